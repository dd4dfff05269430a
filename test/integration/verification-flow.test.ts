/**
 * The purchase verification flow against DynamoDB Local, below HTTP: the race and repair rules of
 * lib/services/verification.ts's header, which the e2e tests (one request at a time) cannot reach,
 * and the DynamoDB calls it makes (they are most of a verifying function's cold start).
 */

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb } from '../../lib/data/client.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { listSubscriptions } from '../../lib/data/subscription-queries.js';
import { insertSubscription } from '../../lib/data/subscription-writes.js';
import { ROUTES } from '../../lib/routes.js';
import { getSubscriptionDetail, pendingSubscription } from '../../lib/services/subscriptions.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { mintReceipt } from '../support/receipts.js';
import { TEST_CAUSE } from '../support/subscriptions.js';

/** Concurrent verifications per round, and rounds: enough to lose every race (each round mints a new receipt). */
const CONCURRENT = 3;
const ROUNDS = 8;

/** What each of several promises came to: 'ok' or the AppError kind it failed with. */
async function outcomes(work: Promise<unknown>[]): Promise<string[]> {
  return (await Promise.allSettled(work)).map((settled) =>
    settled.status === 'fulfilled' ? 'ok' : ((settled.reason as { kind?: string }).kind ?? String(settled.reason)),
  );
}

describe('purchase verification flow (DynamoDB Local)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const verify = (receipt_data: string, user_id: string) =>
    verifyPurchase(app.appId, { platform: 'ios', receipt_data, user_id });

  it('a new purchase takes 2 DynamoDB calls, its repeat 2 reads, every one granted to the verifying functions', async () => {
    const { receipt_data } = await mintReceipt(app);
    const purchase = await dynamoDbRoundTrips(() => verify(receipt_data, 'counted'));
    // The app with the product, owner and binding the receipt names (and its store settings, for
    // a store's receipt) | the activated subscription with its notification and revenue.
    expect(purchase).toEqual([['BatchGetItem'], ['TransactWriteItems']]);
    // The same read | the subscription: the repeat writes nothing.
    const repeat = await dynamoDbRoundTrips(() => verify(receipt_data, 'counted'));
    expect(repeat).toEqual([['BatchGetItem'], ['GetItem']]);

    // A transaction needs the actions of its items (puts and updates), not an action of its own.
    const reads = new Set([...purchase, ...repeat].flat().filter((operation) => operation !== 'TransactWriteItems'));
    for (const route of ROUTES.filter((r) =>
      ['VerifyPurchase', 'VerifyFirstReceipt', 'RecoverReceipt'].includes(r.name),
    )) {
      expect(route.table, route.name).toEqual(expect.arrayContaining([...reads]));
    }
  });

  it('a real StoreKit 2 transaction is read with the app, its App Store settings and its purchase in one request, and no credential', async () => {
    const apple = await createTestApp([
      { ...PREMIUM_MONTHLY, id: 'com.app.qysmat.premium.child.individual.subscription', platforms: ['ios'] },
    ]);
    await putStoreSettings(apple.appId, 'app_store', { bundle_id: 'com.app.qysmat', environment: 'Sandbox' });
    const jws = readFileSync(
      new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
      'utf8',
    ).trim();
    const calls = await dynamoDbRoundTrips(() =>
      verifyPurchase(apple.appId, { platform: 'ios', receipt_data: jws, user_id: 'apple-counted' }),
    );
    expect(calls).toEqual([['BatchGetItem'], ['TransactWriteItems']]);
  });

  it('a forged receipt stating ids no store issues is INVALID_RECEIPT, never a failed read', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const productId of ['p'.repeat(3000), '']) {
      const forged = `${part({ alg: 'ES256', kid: `test-store:${app.appId}` })}.${part({ transactionId: 't'.repeat(2000), originalTransactionId: '1', productId })}.${'A'.repeat(86)}`;
      await expect(verify(forged, 'forger')).rejects.toMatchObject({ kind: 'INVALID_RECEIPT' });
    }
  });

  it('one user verifying a new receipt several times at once gets one active subscription, the same answer every time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = `together-${round}`;
      const { receipt_data } = await mintReceipt(app);
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => verify(receipt_data, user)));
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
      const { items } = await listSubscriptions(app.appId, { user_id: user }, { skip: 0, limit: 10 });
      expect(items.map((item) => [item.id, item.status])).toEqual([[results[0]!.subscription_id, 'active']]);
    }
  });

  it('several users verifying one new receipt at once: one owns it, the others get RECEIPT_ALREADY_USED', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { receipt_data } = await mintReceipt(app);
      const results = await outcomes(
        Array.from({ length: CONCURRENT }, (_, i) => verify(receipt_data, `rival-${round}-${i}`)),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(1);
      expect(results.filter((r) => r !== 'ok')).toEqual(Array(CONCURRENT - 1).fill('RECEIPT_ALREADY_USED'));
    }
  });

  it('one renewal verified several times at once renews once, and every answer has its expiry', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = `renewing-${round}`;
      const first = await mintReceipt(app, { expiresIn: 86_400 });
      const bought = await verify(first.receipt_data, user);
      const renewal = await mintReceipt(app, { expiresIn: 40 * 86_400, renews: first.transaction_id });
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => verify(renewal.receipt_data, user)));
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
      expect(results[0]).toMatchObject({ subscription_id: bought.subscription_id });
      expect(Date.parse(results[0]!.expires_at)).toBeGreaterThan(Date.parse(bought.expires_at));
      const detail = await getSubscriptionDetail(app.appId, bought.subscription_id);
      expect(detail).toMatchObject({
        status: 'active',
        expires_at: results[0]!.expires_at,
        payment_info: { transaction_id: renewal.transaction_id },
      });
    }
  });

  it('a new purchase is one write: a function dying before it leaves nothing, and the retry records it once', async () => {
    const { receipt_data } = await mintReceipt(app);
    ddb.middlewareStack.add(
      (next) => async (args) => {
        if ((args.input as { TransactItems?: unknown[] }).TransactItems) throw new Error('function crashed');
        return next(args);
      },
      { step: 'initialize', name: 'crashBeforeTheWrite' },
    );
    try {
      await expect(verify(receipt_data, 'dies-once')).rejects.toThrow('function crashed');
    } finally {
      ddb.middlewareStack.remove('crashBeforeTheWrite');
    }
    expect((await listSubscriptions(app.appId, { user_id: 'dies-once' }, { skip: 0, limit: 10 })).items).toEqual([]);
    const verified = await verify(receipt_data, 'dies-once');
    const { items } = await listSubscriptions(app.appId, { user_id: 'dies-once' }, { skip: 0, limit: 10 });
    expect(items.map((item) => [item.id, item.status])).toEqual([[verified.subscription_id, 'active']]);
  });

  it('a purchase left pending_verification (by an older version between its two writes) is activated by the next verification of its receipt', async () => {
    const { receipt_data, transaction_id } = await mintReceipt(app);
    // What the older version wrote first: the pending record, bound to the transaction and its owner.
    const now = new Date();
    const { record, payment } = pendingSubscription(
      app.appId,
      {
        user_id: 'crashed',
        product_id: 'premium_monthly',
        platform: 'ios',
        price: 9.99,
        currency: 'USD',
        billing_period: 'monthly',
        started_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
        auto_renew: true,
        trial_period: false,
        trial_expires_at: null,
        transaction_id,
        receipt_data,
      },
      now,
    );
    expect(
      await insertSubscription(record, payment, {
        owner: { store: 'test_store', original_transaction_id: transaction_id },
        cause: TEST_CAUSE,
      }),
    ).toEqual({ inserted: true });
    const {
      items: [pending],
    } = await listSubscriptions(app.appId, { user_id: 'crashed' }, { skip: 0, limit: 10 });
    expect(pending).toMatchObject({ status: 'pending_verification' });

    const repaired = await verify(receipt_data, 'crashed');
    expect(repaired.subscription_id).toBe(pending!.id);
    expect(await getSubscriptionDetail(app.appId, pending!.id)).toMatchObject({
      status: 'active',
      payment_info: { transaction_id, last_payment: repaired.purchase_date },
    });
    // Repaired once: verifying again is the idempotent repeat.
    expect(await verify(receipt_data, 'crashed')).toEqual(repaired);
  });
});
