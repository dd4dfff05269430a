/**
 * A restore that takes a purchase over (the app's `transfer` policy) against DynamoDB Local: the
 * previous owner's subscription ends and the new one is inserted with its transfer in one
 * transaction, so a write refused part-way (as a crash would leave it) leaves both or neither.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setRestorePolicy } from '../../lib/data/apps.js';
import { getPurchaseOwner } from '../../lib/data/purchase-ownership.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { createTestApp } from '../support/fixtures.js';
import { mintReceipt } from '../support/receipts.js';

afterEach(stopIntercepting);

async function boughtByFirstOwner() {
  const app = await createTestApp();
  await setRestorePolicy(app.appId, 'transfer');
  const { receipt_data, transaction_id } = await mintReceipt(app);
  const bought = await verifyPurchase(app.appId, { platform: 'ios', receipt_data, user_id: 'first-owner' });
  return { appId: app.appId, receipt_data, transaction_id, fromId: bought.subscription_id };
}

const restoreBySecondOwner = (appId: string, receipt_data: string) =>
  verifyPurchase(appId, { platform: 'ios', receipt_data, user_id: 'second-owner' }, { restore: true });

describe('a transfer restore is one transaction', () => {
  it("a write refused after the restore's first transaction leaves both halves or neither, never the previous owner without the subscription", async () => {
    const { appId, receipt_data, transaction_id, fromId } = await boughtByFirstOwner();
    let transactions = 0;
    interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand' && ++transactions > 1) throw throttled();
      return send();
    });
    const outcome = await restoreBySecondOwner(appId, receipt_data).catch((error: Error) => error);
    stopIntercepting();
    const from = await getSubscriptionRecord(appId, fromId);
    const owner = await getPurchaseOwner(appId, transaction_id);
    const ended = from?.status === 'cancelled';
    const moved = owner?.user_id === 'second-owner';
    expect({ ended, moved }).toEqual({ ended: moved, moved });
    // Here it is both, in the one transaction that was let through.
    expect(outcome).not.toBeInstanceOf(Error);
    expect(transactions).toBe(1);
    expect(from).toMatchObject({ user_id: 'first-owner', cancellation_reason: 'transferred_to_another_user' });
  });

  it('the transaction refused, nothing is written: the previous owner keeps the subscription; a retry transfers it', async () => {
    const { appId, receipt_data, transaction_id, fromId } = await boughtByFirstOwner();
    interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand') throw throttled();
      return send();
    });
    await expect(restoreBySecondOwner(appId, receipt_data)).rejects.toThrow('throughput exceeded');
    stopIntercepting();
    expect(await getSubscriptionRecord(appId, fromId)).toMatchObject({ user_id: 'first-owner', status: 'active' });
    expect(await getPurchaseOwner(appId, transaction_id)).toMatchObject({ user_id: 'first-owner' });

    const moved = await restoreBySecondOwner(appId, receipt_data);
    expect(await getPurchaseOwner(appId, transaction_id)).toEqual({
      user_id: 'second-owner',
      subscription_id: moved.subscription_id,
    });
    expect(await getSubscriptionRecord(appId, fromId)).toMatchObject({ status: 'cancelled' });
  });

  it("a concurrent change of the previous owner's subscription refuses the transaction, and the restore decides again", async () => {
    const { appId, receipt_data, transaction_id, fromId } = await boughtByFirstOwner();
    const before = (await getSubscriptionRecord(appId, fromId))!;
    let transactions = 0;
    const refusals: string[] = [];
    interceptCommands(async ({ command }, send) => {
      if (command !== 'TransactWriteItemsCommand' || ++transactions > 1) return send();
      await updateSubscription(appId, fromId, { auto_renew: false });
      return send().catch((error: Error) => {
        refusals.push(error.name);
        throw error;
      });
    });
    const moved = await restoreBySecondOwner(appId, receipt_data);
    stopIntercepting();
    expect(refusals).toEqual(['TransactionCanceledException']);
    expect(await getPurchaseOwner(appId, transaction_id)).toEqual({
      user_id: 'second-owner',
      subscription_id: moved.subscription_id,
    });
    // Cancelled over the concurrent change: version read, the change, the cancellation.
    expect(await getSubscriptionRecord(appId, fromId)).toMatchObject({
      status: 'cancelled',
      version: before.version + 2,
    });
  });
});
