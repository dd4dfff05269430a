/**
 * `subscriptions rewrite` in-process (lib/data/subscription-rewrite.ts): items an earlier version
 * stored are brought to the current shape, once. Its own table, so the counts it returns are this
 * file's items alone. test/e2e/cli-commands.test.ts runs the command as a process.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `subscription-rewrite-${process.pid}`;
});

import { getConsistent } from '../../lib/data/batch.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getPurchaseOwner } from '../../lib/data/purchase-ownership.js';
import { subscriptionItem } from '../../lib/data/subscription-items.js';
import { getSubscription, listSubscriptions, scanSubscriptions } from '../../lib/data/subscription-queries.js';
import { rewriteSubscriptions } from '../../lib/data/subscription-rewrite.js';
import { conditionFailed, interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { createTestApp } from '../support/fixtures.js';
import { LEGACY_RECEIPT, LEGACY_STORE_STATE, seedLegacyShapes } from '../support/legacy-items.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

describe('rewriteSubscriptions', () => {
  beforeAll(async () => {
    await createOwnTable();
  });
  afterEach(stopIntercepting);

  it('rewrites the legacy SUB and PAYMENT items, moves both purchase owners, and changes nothing the second time', async () => {
    const { appId } = await createTestApp([]);
    const current = await seedSubscription(appId, { user_id: 'current-user' });
    const { record, owner, unownedTransactionId } = await seedLegacyShapes(appId);
    const currentItem = await getConsistent(keys.subscription(appId, current.id));
    // What the write that set its version left on it (here its cause) is not an old shape.
    expect(currentItem).toHaveProperty('change_cause');

    // Read: both subscriptions' SUB and PAYMENT items; written: the legacy pair only.
    expect(await rewriteSubscriptions()).toEqual({ examined: 4, rewritten: 2, purchases_moved: 2 });

    expect(await getConsistent(keys.subscription(appId, current.id))).toEqual(currentItem);
    expect(await getConsistent(keys.subscription(appId, record.id))).toEqual(subscriptionItem(record));
    const stored = await getSubscription(appId, record.id);
    expect(stored?.record).toEqual(record);
    expect(stored?.payment.receipt_data).toBe(LEGACY_RECEIPT);
    expect(await getConsistent(keys.subscriptionPayment(appId, record.id))).not.toHaveProperty('receipt_data');
    const { items } = await listSubscriptions(appId, { status: 'active', platform: 'ios' }, { skip: 0, limit: 10 });
    expect(items.map((item) => item.id).sort()).toEqual([current.id, record.id].sort());

    expect(await getPurchaseOwner(appId, owner.original_transaction_id)).toEqual({
      user_id: 'legacy-user',
      subscription_id: record.id,
    });
    const unowned = await getConsistent(keys.purchase(appId, unownedTransactionId));
    expect(unowned).toMatchObject({ store: owner.store, store_state: LEGACY_STORE_STATE });
    expect(unowned).not.toHaveProperty('owner_user_id');
    for (const id of [owner.original_transaction_id, unownedTransactionId])
      expect(await getConsistent(keys.formerPurchaseOwner(appId, owner.store, id))).toBeUndefined();

    expect(await rewriteSubscriptions()).toEqual({ examined: 4, rewritten: 0, purchases_moved: 0 });
  });
  it("scanSubscriptions reads every page of the table, one app's state items only", async () => {
    const { appId } = await createTestApp([]);
    const seeded = [await seedSubscription(appId), await seedSubscription(appId), await seedSubscription(appId)];
    // Pages of one item: the table's few items take many pages, as a large table's take several.
    const sent = interceptCommands(async ({ command, input }, send) =>
      command === 'ScanCommand' ? send({ ...input, Limit: 1 }) : send(),
    );
    const seen: string[] = [];
    for await (const page of scanSubscriptions(appId)) seen.push(...page.map((record) => record.id));
    expect(seen.sort()).toEqual(seeded.map((record) => record.id).sort());
    expect(sent.length).toBeGreaterThan(3);
  });

  it('a subscription changed since it was read is left to that change; any other failure stops the command', async () => {
    const { appId } = await createTestApp([]);
    const { record } = await seedLegacyShapes(appId);
    const key = keys.subscription(appId, record.id);
    const refuseStatePut = (error: () => Error) =>
      interceptCommands(async ({ command, input }, send) => {
        if (command === 'PutItemCommand' && input.Item?.pk === key.pk && input.Item?.sk === key.sk) throw error();
        return send();
      });
    // Loaded with this file, as the interceptor's client is: the fresh module would have a client of its own.
    refuseStatePut(throttled);
    await expect(rewriteSubscriptions()).rejects.toThrow('throughput exceeded');
    stopIntercepting();
    refuseStatePut(conditionFailed);
    // The item the race changed is not counted as rewritten.
    expect((await rewriteSubscriptions()).rewritten).toBe(0);
    stopIntercepting();
    expect(await getConsistent(key)).toHaveProperty('subscriptionsBy_status_pk');
    await rewriteSubscriptions();
    expect(await getConsistent(key)).toEqual(subscriptionItem(record));
  });
});
