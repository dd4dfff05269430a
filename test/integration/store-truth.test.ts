/**
 * The one path for the store's truth against DynamoDB Local: a store's state applied to the
 * subscription a verified receipt started (renewal, billing issue in grace, recovery, refund,
 * plan change), idempotent per notification, ordered by the store's dates, kept for a purchase
 * nobody verified yet, sandbox money out of revenue. Notifications are built here as the store
 * decoders return them; their verification is tested with each store.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { batchGetConsistent } from '../../lib/data/batch.js';
import { lookUpPurchase } from '../../lib/data/purchase-ownership.js';
import { type RevenueCounter, readRevenueCounters } from '../../lib/data/revenue-reads.js';
import { notificationKey } from '../../lib/data/store-notifications.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import type { StoreNotification, StorePurchaseState } from '../../lib/domain/store-purchase.js';
import { applyStoreNotification, applyStoreState } from '../../lib/services/store-truth.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { outboxEventsOf } from '../support/outbox.js';
import { mintReceipt } from '../support/receipts.js';

const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
let notificationSeq = 0;

/**
 * The store's clock for `as_of`: each reading is later than every earlier reading and than the
 * real clock when it is taken, so each state is newer than what came before it (a verification
 * included) without waiting for the real clock to tick.
 */
let storeClock = 0;
const storeNow = () => new Date((storeClock = Math.max(storeClock + 1, Date.now() + 1))).toISOString();

/** The store's state of a purchase, as a decoder returns it. */
function stateOf(purchase: { original: string }, overrides: Partial<StorePurchaseState> = {}): StorePurchaseState {
  return {
    store: 'test_store',
    platform: 'ios',
    environment: 'Test',
    transaction_id: purchase.original,
    original_transaction_id: purchase.original,
    product_id: 'premium_monthly',
    purchase_date: new Date().toISOString(),
    expires_at: inDays(30),
    trial: false,
    price: 9.99,
    currency: 'USD',
    revoked: false,
    app_account_token: null,
    renewal: { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
    as_of: storeNow(),
    ...overrides,
  };
}

const notificationOf = (state: StorePurchaseState | null, id = `n-${++notificationSeq}`): StoreNotification => ({
  store: 'test_store',
  notification_id: id,
  type: 'DID_RENEW',
  subtype: null,
  environment: 'Test',
  sent_at: new Date().toISOString(),
  state,
});

/** The app's outbox events of one subscription, by kind. */
const eventsOf = async (appId: string, subscriptionId: string): Promise<string[]> =>
  (await outboxEventsOf(appId, subscriptionId)).map((payload) => payload.event);

/** The file's first day and the next, fixed once: a before/after pair read across UTC midnight reads the same days. */
const FIRST_DAY = new Date().toISOString().slice(0, 10);
const NEXT_DAY = new Date(Date.now() + DAY).toISOString().slice(0, 10);

/** The app's revenue counters over FIRST_DAY and NEXT_DAY, summed per product and currency. */
async function revenueOfTheDays(appId: string) {
  await settleCounters();
  const sums = new Map<string, Omit<RevenueCounter, 'day'>>();
  for (const { day: _day, ...counter } of await readRevenueCounters(appId, FIRST_DAY, NEXT_DAY)) {
    const key = `${counter.product_id} ${counter.currency}`;
    const sum = sums.get(key);
    if (!sum) sums.set(key, counter);
    else
      for (const field of ['amount_micros', 'new_subscriptions', 'renewals', 'refunds', 'net_active'] as const)
        sum[field] += counter[field];
  }
  return [...sums.values()].sort((a, b) =>
    `${a.product_id} ${a.currency}`.localeCompare(`${b.product_id} ${b.currency}`),
  );
}

/** A purchase verified by `user`: its subscription and its original transaction id. */
async function verified(app: TestApp, user: string) {
  const receipt = await mintReceipt(app);
  const result = await verifyPurchase(app.appId, {
    platform: 'ios',
    receipt_data: receipt.receipt_data,
    user_id: user,
  });
  return { subscriptionId: result.subscription_id, original: receipt.transaction_id, expiresAt: result.expires_at };
}

describe('the store truth path (DynamoDB Local)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it('a renewal extends the same subscription once, at the store price, with one renewed event', async () => {
    const purchase = await verified(app, 'u-renew');
    const before = await revenueOfTheDays(app.appId);
    const renewal = stateOf(purchase, {
      transaction_id: `${purchase.original}-r1`,
      expires_at: inDays(60),
      price: 8.49,
    });
    const notification = notificationOf(renewal);
    expect(await applyStoreNotification(app.appId, notification)).toBe('applied');
    // The store delivers it again: nothing changes.
    expect(await applyStoreNotification(app.appId, notification)).toBe('duplicate');
    const record = await getSubscriptionRecord(app.appId, purchase.subscriptionId);
    expect(record).toMatchObject({
      status: 'active',
      expires_at: renewal.expires_at,
      price: 8.49,
      store: 'test_store',
      original_transaction_id: purchase.original,
      environment: 'test',
    });
    expect(await eventsOf(app.appId, purchase.subscriptionId)).toEqual([
      'subscription.status_changed',
      'subscription.renewed',
    ]);
    const after = await revenueOfTheDays(app.appId);
    const premium = (rows: typeof after) => rows.find((row) => row.product_id === 'premium_monthly')!;
    expect(premium(after).amount_micros - premium(before).amount_micros).toBe(8_490_000);
    expect(premium(after).renewals - premium(before).renewals).toBe(1);
  });

  it('an older state arriving after a newer one changes nothing (the store dates order them)', async () => {
    const purchase = await verified(app, 'u-order');
    const newer = stateOf(purchase, {
      transaction_id: `${purchase.original}-r2`,
      expires_at: inDays(90),
      as_of: inDays(0.001),
    });
    const older = stateOf(purchase, { transaction_id: `${purchase.original}-r1`, expires_at: inDays(60) });
    expect(await applyStoreNotification(app.appId, notificationOf(newer))).toBe('applied');
    expect(await applyStoreNotification(app.appId, notificationOf(older))).toBe('stale');
    expect((await getSubscriptionRecord(app.appId, purchase.subscriptionId))!.expires_at).toBe(newer.expires_at);
  });

  it('renewal off, billing issue in grace (still active), recovery, refund: one subscription throughout', async () => {
    const purchase = await verified(app, 'u-story');
    const sub = () => getSubscriptionRecord(app.appId, purchase.subscriptionId);
    const step = async (overrides: Partial<StorePurchaseState>) =>
      applyStoreNotification(app.appId, notificationOf(stateOf(purchase, overrides)));
    expect(
      await step({
        expires_at: purchase.expiresAt,
        renewal: { auto_renew: false, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
      }),
    ).toBe('applied');
    expect(await sub()).toMatchObject({ status: 'active', auto_renew: false });
    const graceEnds = inDays(16);
    expect(
      await step({
        expires_at: new Date(Date.now() - 1000).toISOString(),
        renewal: {
          auto_renew: true,
          renewal_product_id: null,
          billing_issue: true,
          grace_period_expires_at: graceEnds,
        },
      }),
    ).toBe('applied');
    const inGrace = await sub();
    expect(inGrace).toMatchObject({ status: 'active', grace_period_expires_at: graceEnds, auto_renew: true });
    expect(inGrace!.billing_issue_at).not.toBeNull();
    expect(await step({ transaction_id: `${purchase.original}-recovered`, expires_at: inDays(45) })).toBe('applied');
    const recovered = await sub();
    expect(recovered).toMatchObject({ status: 'active', billing_issue_at: null, grace_period_expires_at: null });
    expect(Date.parse(recovered!.expires_at)).toBeGreaterThan(Date.now() + 44 * DAY);
    expect(
      await step({ transaction_id: `${purchase.original}-recovered`, expires_at: inDays(45), revoked: true }),
    ).toBe('applied');
    expect(await sub()).toMatchObject({ status: 'cancelled', cancellation_reason: 'refunded_by_store' });
    expect(await eventsOf(app.appId, purchase.subscriptionId)).toEqual([
      'subscription.status_changed',
      'subscription.auto_renew_changed',
      'subscription.auto_renew_changed',
      'subscription.billing_issue',
      'subscription.renewed',
      'subscription.refunded',
      'subscription.status_changed',
    ]);
  });

  it('a plan change moves the subscription to the product the store reports, and to its billing period', async () => {
    const purchase = await verified(app, 'u-upgrade');
    expect((await getSubscriptionRecord(app.appId, purchase.subscriptionId))?.billing_period).toBe('monthly');
    const upgraded = stateOf(purchase, {
      transaction_id: `${purchase.original}-up`,
      product_id: PRO_YEARLY.id,
      price: 59.99,
      expires_at: inDays(365),
    });
    expect(await applyStoreNotification(app.appId, notificationOf(upgraded))).toBe('applied');
    expect(await getSubscriptionRecord(app.appId, purchase.subscriptionId)).toMatchObject({
      product_id: PRO_YEARLY.id,
      price: 59.99,
      billing_period: 'yearly',
    });
    expect(await eventsOf(app.appId, purchase.subscriptionId)).toEqual([
      'subscription.status_changed',
      'subscription.product_changed',
      'subscription.renewed',
    ]);
  });

  it('a purchase nobody verified keeps the state; verifying it later starts from it', async () => {
    const receipt = await mintReceipt(app);
    const later = stateOf(
      { original: receipt.transaction_id },
      { transaction_id: `${receipt.transaction_id}-r1`, expires_at: inDays(75), as_of: inDays(0.001) },
    );
    expect(await applyStoreNotification(app.appId, notificationOf(later))).toBe('kept');
    const lookup = await lookUpPurchase(app.appId, {
      productId: 'premium_monthly',
      owner: { store: 'test_store', original_transaction_id: receipt.transaction_id },
      transactionId: receipt.transaction_id,
    });
    expect(lookup.owned).toBeUndefined();
    expect(lookup.storeState?.expires_at).toBe(later.expires_at);
    const result = await verifyPurchase(app.appId, {
      platform: 'ios',
      receipt_data: receipt.receipt_data,
      user_id: 'u-late',
    });
    expect(result.expires_at).toBe(later.expires_at);
    // The kept state survives the binding of its owner.
    const owned = await lookUpPurchase(app.appId, {
      productId: 'premium_monthly',
      owner: { store: 'test_store', original_transaction_id: receipt.transaction_id },
      transactionId: receipt.transaction_id,
    });
    expect(owned.owned).toEqual({ user_id: 'u-late', subscription_id: result.subscription_id });
    expect(owned.storeState?.as_of).toBe(later.as_of);
  });

  it('a resubscription after a voluntary expiry is a new subscription of the same user', async () => {
    const purchase = await verified(app, 'u-resub');
    expect(
      await applyStoreState(
        app.appId,
        stateOf(purchase, {
          expires_at: new Date(Date.now() - 1000).toISOString(),
          renewal: { auto_renew: false, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
        }),
      ),
    ).toBe('applied');
    expect(await getSubscriptionRecord(app.appId, purchase.subscriptionId)).toMatchObject({ status: 'expired' });
    const again = stateOf(purchase, { transaction_id: `${purchase.original}-again`, expires_at: inDays(30) });
    expect(await applyStoreState(app.appId, again)).toBe('applied');
    const lookup = await lookUpPurchase(app.appId, {
      productId: 'premium_monthly',
      owner: { store: 'test_store', original_transaction_id: purchase.original },
      transactionId: again.transaction_id,
    });
    expect(lookup.owned!.user_id).toBe('u-resub');
    expect(lookup.owned!.subscription_id).not.toBe(purchase.subscriptionId);
    expect(await getSubscriptionRecord(app.appId, lookup.owned!.subscription_id)).toMatchObject({
      status: 'active',
      user_id: 'u-resub',
      expires_at: again.expires_at,
    });
  });

  it("a new purchase replacing a user's (Google's new token for a plan change) is that user's new subscription; the old one ends", async () => {
    const purchase = await verified(app, 'u-linked');
    const replacement = stateOf(
      { original: `${purchase.original}-new-token` },
      {
        product_id: PRO_YEARLY.id,
        price: 59.99,
        expires_at: inDays(365),
        linked_original_transaction_id: purchase.original,
      },
    );
    expect(await applyStoreState(app.appId, replacement)).toBe('applied');
    const { owned } = await lookUpPurchase(app.appId, {
      productId: PRO_YEARLY.id,
      owner: { store: 'test_store', original_transaction_id: replacement.original_transaction_id },
      transactionId: replacement.transaction_id,
    });
    expect(owned!.user_id).toBe('u-linked');
    expect(owned!.subscription_id).not.toBe(purchase.subscriptionId);
    expect(await getSubscriptionRecord(app.appId, owned!.subscription_id)).toMatchObject({
      status: 'active',
      product_id: PRO_YEARLY.id,
      price: 59.99,
      original_transaction_id: replacement.original_transaction_id,
    });
    // The old token grants nothing more: its subscription ended when the new one started.
    const old = await getSubscriptionRecord(app.appId, purchase.subscriptionId);
    expect(old).toMatchObject({ status: 'expired', auto_renew: false });
    expect(Date.parse(old!.expires_at)).toBeLessThanOrEqual(Date.now());
    // Its later word (Google reports the old token active for a while) brings nothing back.
    expect(
      await applyStoreState(app.appId, stateOf(purchase, { as_of: new Date(Date.now() + 1000).toISOString() })),
    ).toBe('applied');
    expect(await getSubscriptionRecord(app.appId, purchase.subscriptionId)).toMatchObject({ status: 'expired' });
    // Another user verifying the new purchase is refused: it is u-linked's.
    const receipt = await mintReceipt(app, { product: PRO_YEARLY, renews: replacement.original_transaction_id });
    const refused = await verifyPurchase(app.appId, {
      platform: 'ios',
      receipt_data: receipt.receipt_data,
      user_id: 'u-stranger',
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'RECEIPT_ALREADY_USED' });
  });

  it('notifications that change nothing are recorded once: TEST twice is one record and a duplicate', async () => {
    const test = notificationOf(null);
    expect(await applyStoreNotification(app.appId, test)).toBe('recorded');
    expect(await applyStoreNotification(app.appId, test)).toBe('duplicate');
  });

  it('each notification is kept as a record of what it was about and did, for 30 days', async () => {
    const purchase = await verified(app, 'u-record');
    const renewal = notificationOf(stateOf(purchase, { transaction_id: `${purchase.original}-rec` }));
    const test = { ...notificationOf(null), type: 'TEST', subtype: 'NONE' };
    const now = new Date('2026-06-01T00:00:00.000Z');
    expect(await applyStoreNotification(app.appId, renewal, { now })).toBe('applied');
    expect(await applyStoreNotification(app.appId, test, { now })).toBe('recorded');
    const ttl = Math.floor(now.getTime() / 1000) + 30 * 86_400;
    const [renewalRecord, testRecord] = await batchGetConsistent([
      notificationKey(app.appId, renewal),
      notificationKey(app.appId, test),
    ]);
    expect(renewalRecord).toEqual({
      ...notificationKey(app.appId, renewal),
      type: 'store_notification',
      app_id: app.appId,
      store: 'test_store',
      notification_id: renewal.notification_id,
      notification_type: 'DID_RENEW',
      subtype: null,
      environment: 'Test',
      sent_at: renewal.sent_at,
      received_at: now.toISOString(),
      original_transaction_id: purchase.original,
      transaction_id: `${purchase.original}-rec`,
      outcome: 'applied',
      ttl,
    });
    expect(testRecord).toMatchObject({
      notification_type: 'TEST',
      subtype: 'NONE',
      original_transaction_id: null,
      transaction_id: null,
      outcome: 'recorded',
      ttl,
    });
  });

  it("a store's sandbox purchase is marked sandbox and moves no revenue", async () => {
    const purchase = await verified(app, 'u-sandbox');
    await applyStoreState(app.appId, stateOf(purchase, { expires_at: new Date(Date.now() - 1000).toISOString() }));
    const before = await revenueOfTheDays(app.appId);
    const sandbox = stateOf(purchase, {
      transaction_id: `${purchase.original}-sandbox`,
      environment: 'Sandbox',
      expires_at: inDays(30),
    });
    expect(await applyStoreState(app.appId, sandbox)).toBe('applied');
    const { owned } = await lookUpPurchase(app.appId, {
      productId: 'premium_monthly',
      owner: { store: 'test_store', original_transaction_id: purchase.original },
      transactionId: sandbox.transaction_id,
    });
    expect(await getSubscriptionRecord(app.appId, owned!.subscription_id)).toMatchObject({
      status: 'active',
      environment: 'sandbox',
    });
    expect(await revenueOfTheDays(app.appId)).toEqual(before);
  });
});
