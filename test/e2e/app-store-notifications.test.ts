/**
 * App Store Server Notifications V2 through the local gateway, one row per notification type of
 * docs/store-notifications.md ("What each notification does"): a purchase verified with POST
 * /v1/subscriptions/verify, then the notification POSTed to /notifications/app-store/{app_id}, and
 * the answer and the subscription's detail afterwards. Generated notifications are signed by the
 * stand-in chain (test/fixtures/app-store-standin), whose root this file trusts in place of Apple's.
 */

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));

import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/data/client.js';
import { notificationKey } from '../../lib/data/store-notifications.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { applyStoreNotification } from '../../lib/services/store-truth.js';
import { decodeAppStoreNotification } from '../../lib/stores/app-store-notifications.js';
import {
  appStoreNotificationBody,
  appStoreRenewalInfo,
  NOTIFY_APP_APPLE_ID,
  NOTIFY_BUNDLE,
} from '../support/app-store-notifications.js';
import { appStoreTransaction, STAND_IN_ROOT, signedByStandIn } from '../support/app-store-standin.js';
import { atTime } from '../support/clock.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { addedKinds, storeEventKindsOf } from '../support/outbox.js';

const { request } = useGateway();
const DAY = 86_400_000;
/**
 * The days whose revenue the rows compare: the file's first day and the next, fixed once, so a
 * before/after pair read across UTC midnight still reads the same counters.
 */
const REVENUE_DAYS = {
  start_date: new Date().toISOString().slice(0, 10),
  end_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
};
const HOUR = 3_600_000;

/** signedDate of each notification: later than the one before, so none is stale unless a row says so. */
let clock = Date.now();
const tick = () => (clock = Math.max(clock + 1, Date.now()));

type Tx = Record<string, unknown>;

/** One verified purchase and the transactions the store could send about it. */
interface Purchase {
  user: string;
  subscriptionId: string;
  first: Tx;
  /** The next period, paid at another price. */
  renewal: Tx;
  /** The next period, for pro_yearly (an upgrade takes effect at once, in a new transaction). */
  upgrade: Tx;
  /** The first transaction with its period extended by a week (RENEWAL_EXTENDED). */
  extended: Tx;
  /** The first transaction refunded. */
  revoked: Tx;
  /** A new transaction of the same purchase after the first ended (a resubscription). */
  resubscribed: Tx;
}

type TxName = Exclude<keyof Purchase, 'user' | 'subscriptionId'>;

interface Step {
  type: string;
  subtype?: string;
  tx?: TxName;
  /** JWSRenewalInfo overrides; `false`: no renewal info. */
  renewal?: Record<string, unknown> | false;
  status?: number;
}

interface Row {
  name: string;
  /** The first period has ended before the notifications (a failed renewal, an expiry). */
  lapsed?: boolean;
  /** Notifications applied before the one the row is about, each answered `applied`. */
  before?: Step[];
  send: Step;
  outcome: string;
  /** The subscription's detail afterwards; expires_at names the transaction whose end it is. */
  want: {
    status: string;
    /** `now`: access ended when the notification was applied (a refund). */
    expires_at: TxName | 'now';
    auto_renew: boolean;
    billing_issue: boolean;
    grace_period_expires_at: string | null;
    product_id: string;
    price: number;
    cancellation_reason?: string;
  };
  /** A new subscription of the same user, in this state (RESUBSCRIBE). */
  started?: { status: string; expires_at: TxName };
  /** Events besides status_changed that the notification sends, in kind order (default none). */
  events?: string[];
  /** Today's revenue statistics change by (default none): renewals counted, and money in USD. */
  revenue?: { renewals: number; amount: number };
}

const GRACE = 'in a week';
const graceEnd = Date.now() + 7 * DAY;

const ACTIVE = { billing_issue: false, grace_period_expires_at: null, product_id: 'premium_monthly', price: 9.99 };
const FIRST = { ...ACTIVE, status: 'active', expires_at: 'first', auto_renew: true } as const;
const ENDED = { ...ACTIVE, status: 'expired', expires_at: 'first', auto_renew: false } as const;

// biome-ignore format: a table
const ROWS: Row[] = [
  { name: 'SUBSCRIBED INITIAL_BUY of a verified purchase: nothing new', send: { type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'SUBSCRIBED RESUBSCRIBE after the end: a new subscription of the same user', lapsed: true, before: [{ type: 'EXPIRED', subtype: 'VOLUNTARY', tx: 'first', renewal: { autoRenewStatus: 0 } }], send: { type: 'SUBSCRIBED', subtype: 'RESUBSCRIBE', tx: 'resubscribed' }, outcome: 'applied', want: ENDED, started: { status: 'active', expires_at: 'resubscribed' }, revenue: { renewals: 0, amount: 12.99 } },
  { name: 'SUBSCRIBED RESUBSCRIBE after billing retry ended (EXPIRED BILLING_RETRY): a new subscription, not a recovery', lapsed: true, before: [{ type: 'DID_FAIL_TO_RENEW', tx: 'first', renewal: { isInBillingRetryPeriod: true }, status: 3 }, { type: 'EXPIRED', subtype: 'BILLING_RETRY', tx: 'first', renewal: { autoRenewStatus: 0 }, status: 2 }], send: { type: 'SUBSCRIBED', subtype: 'RESUBSCRIBE', tx: 'resubscribed' }, outcome: 'applied', want: ENDED, started: { status: 'active', expires_at: 'resubscribed' }, revenue: { renewals: 0, amount: 12.99 } },
  { name: 'DID_RENEW: the store’s period, at the store’s price', send: { type: 'DID_RENEW', tx: 'renewal' }, outcome: 'applied', want: { ...FIRST, expires_at: 'renewal', price: 12.99 }, revenue: { renewals: 1, amount: 12.99 }, events: ['renewed'] },
  { name: 'DID_RENEW BILLING_RECOVERY after billing retry: the same subscription active again', lapsed: true, before: [{ type: 'DID_FAIL_TO_RENEW', tx: 'first', renewal: { isInBillingRetryPeriod: true }, status: 3 }], send: { type: 'DID_RENEW', subtype: 'BILLING_RECOVERY', tx: 'renewal' }, outcome: 'applied', want: { ...FIRST, expires_at: 'renewal', price: 12.99 }, revenue: { renewals: 1, amount: 12.99 }, events: ['renewed'] },
  { name: 'DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED: runs to its end', send: { type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED', tx: 'first', renewal: { autoRenewStatus: 0 } }, outcome: 'applied', want: { ...FIRST, auto_renew: false }, events: ['auto_renew_changed'] },
  { name: 'DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED: on again', before: [{ type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED', tx: 'first', renewal: { autoRenewStatus: 0 } }], send: { type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_ENABLED', tx: 'first' }, outcome: 'applied', want: FIRST, events: ['auto_renew_changed'] },
  { name: 'DID_CHANGE_RENEWAL_PREF UPGRADE: the new transaction’s product and price', send: { type: 'DID_CHANGE_RENEWAL_PREF', subtype: 'UPGRADE', tx: 'upgrade' }, outcome: 'applied', want: { ...FIRST, expires_at: 'upgrade', product_id: 'pro_yearly', price: 59.99 }, revenue: { renewals: 1, amount: 59.99 }, events: ['product_changed', 'renewed'] },
  { name: 'DID_CHANGE_RENEWAL_PREF DOWNGRADE: recorded, takes effect at the renewal', send: { type: 'DID_CHANGE_RENEWAL_PREF', subtype: 'DOWNGRADE', tx: 'first', renewal: { autoRenewProductId: 'pro_yearly' } }, outcome: 'applied', want: FIRST },
  { name: 'DID_RENEW after a DOWNGRADE: the renewal brings the new product', before: [{ type: 'DID_CHANGE_RENEWAL_PREF', subtype: 'DOWNGRADE', tx: 'first', renewal: { autoRenewProductId: 'pro_yearly' } }], send: { type: 'DID_RENEW', tx: 'upgrade' }, outcome: 'applied', want: { ...FIRST, expires_at: 'upgrade', product_id: 'pro_yearly', price: 59.99 }, revenue: { renewals: 1, amount: 59.99 }, events: ['product_changed', 'renewed'] },
  { name: 'DID_CHANGE_RENEWAL_PREF (none): back to the current product', send: { type: 'DID_CHANGE_RENEWAL_PREF', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'DID_FAIL_TO_RENEW GRACE_PERIOD: still active, billing issue and grace end shown', lapsed: true, send: { type: 'DID_FAIL_TO_RENEW', subtype: 'GRACE_PERIOD', tx: 'first', renewal: { isInBillingRetryPeriod: true, gracePeriodExpiresDate: graceEnd }, status: 4 }, outcome: 'applied', want: { ...FIRST, billing_issue: true, grace_period_expires_at: GRACE }, events: ['billing_issue'] },
  { name: 'DID_FAIL_TO_RENEW (none): billing retry without grace ends access', lapsed: true, send: { type: 'DID_FAIL_TO_RENEW', tx: 'first', renewal: { isInBillingRetryPeriod: true }, status: 3 }, outcome: 'applied', want: { ...ENDED, billing_issue: true }, events: ['billing_issue'] },
  { name: 'GRACE_PERIOD_EXPIRED: access ends, recoverable', lapsed: true, before: [{ type: 'DID_FAIL_TO_RENEW', subtype: 'GRACE_PERIOD', tx: 'first', renewal: { isInBillingRetryPeriod: true, gracePeriodExpiresDate: graceEnd }, status: 4 }], send: { type: 'GRACE_PERIOD_EXPIRED', tx: 'first', renewal: { isInBillingRetryPeriod: true }, status: 3 }, outcome: 'applied', want: { ...ENDED, billing_issue: true } },
  { name: 'EXPIRED VOLUNTARY', lapsed: true, send: { type: 'EXPIRED', subtype: 'VOLUNTARY', tx: 'first', renewal: { autoRenewStatus: 0 }, status: 2 }, outcome: 'applied', want: ENDED },
  { name: 'EXPIRED BILLING_RETRY', lapsed: true, send: { type: 'EXPIRED', subtype: 'BILLING_RETRY', tx: 'first', status: 2 }, outcome: 'applied', want: ENDED },
  { name: 'EXPIRED PRICE_INCREASE', lapsed: true, send: { type: 'EXPIRED', subtype: 'PRICE_INCREASE', tx: 'first', renewal: { autoRenewStatus: 0, priceIncreaseStatus: 0 }, status: 2 }, outcome: 'applied', want: ENDED },
  { name: 'EXPIRED PRODUCT_NOT_FOR_SALE', lapsed: true, send: { type: 'EXPIRED', subtype: 'PRODUCT_NOT_FOR_SALE', tx: 'first', status: 2 }, outcome: 'applied', want: ENDED },
  { name: 'REFUND: cancelled now, refunded by the store', send: { type: 'REFUND', tx: 'revoked', status: 5 }, outcome: 'applied', want: { ...ENDED, status: 'cancelled', expires_at: 'now', cancellation_reason: 'refunded_by_store' }, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'REFUND of an earlier period after a renewal: that period’s money back, the renewed period stands', before: [{ type: 'DID_RENEW', tx: 'renewal' }], send: { type: 'REFUND', tx: 'revoked', status: 1 }, outcome: 'applied', want: { ...FIRST, expires_at: 'renewal', price: 12.99 }, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'REFUND_REVERSED of an earlier period: that period’s money back again, nothing else', before: [{ type: 'DID_RENEW', tx: 'renewal' }, { type: 'REFUND', tx: 'revoked', status: 1 }], send: { type: 'REFUND_REVERSED', tx: 'first' }, outcome: 'applied', want: { ...FIRST, expires_at: 'renewal', price: 12.99 }, revenue: { renewals: 0, amount: 9.99 }, events: ['refund_reversed'] },
  { name: 'REFUND_REVERSED: access and money back, to the store’s period end', before: [{ type: 'REFUND', tx: 'revoked', status: 5 }], send: { type: 'REFUND_REVERSED', tx: 'first' }, outcome: 'applied', want: FIRST, revenue: { renewals: 0, amount: 9.99 }, events: ['refund_reversed'] },
  { name: 'REFUND_REVERSED after the period ended: expired, the money back', lapsed: true, before: [{ type: 'REFUND', tx: 'revoked', status: 5 }], send: { type: 'REFUND_REVERSED', tx: 'first', renewal: { autoRenewStatus: 0 } }, outcome: 'applied', want: ENDED, revenue: { renewals: 0, amount: 9.99 }, events: ['refund_reversed'] },
  { name: 'REVOKE: as a refund', send: { type: 'REVOKE', tx: 'revoked', status: 5 }, outcome: 'applied', want: { ...ENDED, status: 'cancelled', expires_at: 'now', cancellation_reason: 'refunded_by_store' }, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'RENEWAL_EXTENDED: the period extends, no payment', send: { type: 'RENEWAL_EXTENDED', tx: 'extended' }, outcome: 'applied', want: { ...FIRST, expires_at: 'extended' } },
  { name: 'OFFER_REDEEMED: its state applied, no change', send: { type: 'OFFER_REDEEMED', subtype: 'UPGRADE', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'PRICE_INCREASE: its state applied, no change', send: { type: 'PRICE_INCREASE', subtype: 'PENDING', tx: 'first', renewal: { priceIncreaseStatus: 0 } }, outcome: 'applied', want: FIRST },
  { name: 'REFUND after the end: the ended subscription records the refund', lapsed: true, before: [{ type: 'EXPIRED', subtype: 'VOLUNTARY', tx: 'first', renewal: { autoRenewStatus: 0 }, status: 2 }], send: { type: 'REFUND', tx: 'revoked', status: 5 }, outcome: 'applied', want: { ...ENDED, cancellation_reason: 'refunded_by_store' }, events: ['refunded'], revenue: { renewals: 0, amount: -9.99 } },
  { name: 'REFUND_DECLINED: recorded, nothing changes (its transaction may be an earlier period’s)', send: { type: 'REFUND_DECLINED', tx: 'first' }, outcome: 'recorded', want: FIRST },
  { name: 'REFUND_DECLINED of an earlier period after a renewal: the renewed period stands', before: [{ type: 'DID_RENEW', tx: 'renewal' }], send: { type: 'REFUND_DECLINED', tx: 'first' }, outcome: 'recorded', want: { ...FIRST, expires_at: 'renewal', price: 12.99 } },
  { name: 'PRICE_CHANGE: its state applied, no change', send: { type: 'PRICE_CHANGE', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'METADATA_UPDATE: its state applied, no change', send: { type: 'METADATA_UPDATE', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'MIGRATION: its state applied, no change', send: { type: 'MIGRATION', tx: 'first' }, outcome: 'applied', want: FIRST },
  { name: 'CONSUMPTION_REQUEST: recorded', send: { type: 'CONSUMPTION_REQUEST', tx: 'first' }, outcome: 'recorded', want: FIRST },
  { name: 'TEST: recorded', send: { type: 'TEST', renewal: false }, outcome: 'recorded', want: FIRST },
  { name: 'an unknown type: recorded', send: { type: 'SOMETHING_APPLE_ADDS_LATER', subtype: 'NEW', tx: 'first' }, outcome: 'recorded', want: FIRST },
];

describe('App Store notifications through the gateway (stand-in chain)', () => {
  let app: TestApp;
  let users = 0;
  beforeAll(async () => {
    app = await createTestApp();
    await putStoreSettings(app.appId, 'app_store', {
      bundle_id: NOTIFY_BUNDLE,
      environment: 'Production',
      app_apple_id: NOTIFY_APP_APPLE_ID,
    });
  });

  const detail = async (target: TestApp, id: string) =>
    (await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: target.secretKey })).body.data;
  const subscriptionsOf = async (target: TestApp, user_id: string) =>
    (await request('GET', SUBSCRIPTIONS_BASE, { bearer: target.secretKey, query: { user_id } })).body.data as {
      id: string;
    }[];
  /** The app's revenue statistics over REVENUE_DAYS: money (USD) and renewals counted. */
  const revenueOfTheDays = async () => {
    const { body } = await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, {
      bearer: app.secretKey,
      query: REVENUE_DAYS,
    });
    const breakdown = body.data.breakdown as { renewals: number }[];
    return { amount: body.data.total_revenue as number, renewals: breakdown.reduce((sum, b) => sum + b.renewals, 0) };
  };
  const notify = (target: TestApp, body: unknown) =>
    request('POST', `/notifications/app-store/${target.appId}`, { body });

  /**
   * A purchase verified by its user through the API. `lapsed`: verified an hour ago, while its
   * period still ran (the clock set back for the verification: the gateway's functions run in this
   * worker, so what they write happened then), and ended a minute ago; no row waits for it to end.
   */
  async function purchase(lapsed = false, environment = 'Production', target = app): Promise<Purchase> {
    const now = Date.now();
    const verifiedAt = lapsed ? now - HOUR : now;
    const first = appStoreTransaction(NOTIFY_BUNDLE, {
      environment,
      purchaseDate: verifiedAt - 60_000,
      originalPurchaseDate: verifiedAt - 60_000,
      signedDate: verifiedAt,
      expiresDate: lapsed ? now - 60_000 : now + 30 * DAY,
    });
    const expires = first.expiresDate as number;
    const next = (overrides: Tx): Tx => ({
      ...first,
      transactionId: String(BigInt(first.transactionId as string) + 1n),
      purchaseDate: expires,
      expiresDate: expires + 30 * DAY,
      price: 12990,
      ...overrides,
    });
    const user = `apple-user-${(users += 1)}`;
    const verified = await atTime(verifiedAt, () =>
      request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
        bearer: target.secretKey,
        body: { platform: 'ios', receipt_data: signedByStandIn(first), user_id: user },
      }),
    );
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    return {
      user,
      subscriptionId: verified.body.data.subscription_id,
      first,
      renewal: next({}),
      upgrade: next({ productId: 'pro_yearly', purchaseDate: now, expiresDate: now + 365 * DAY, price: 59990 }),
      extended: { ...first, expiresDate: expires + 7 * DAY },
      revoked: { ...first, revocationDate: now, revocationReason: 0 },
      resubscribed: next({ purchaseDate: now + 5_000, expiresDate: now + 30 * DAY }),
    };
  }

  const bodyOf = (p: Purchase, step: Step, environment = 'Production', extra: Record<string, unknown> = {}) => {
    const transaction = step.tx ? p[step.tx] : undefined;
    return appStoreNotificationBody({
      type: step.type,
      subtype: step.subtype,
      environment,
      signedDate: tick(),
      transaction: transaction ? { ...transaction, signedDate: clock } : undefined,
      renewal: transaction && step.renewal !== false ? appStoreRenewalInfo(transaction, step.renewal || {}) : undefined,
      ...(step.status === undefined ? {} : { status: step.status }),
      ...extra,
    });
  };

  it.each(ROWS)('$name', async (row) => {
    const p = await purchase(row.lapsed);
    for (const step of row.before ?? []) {
      const before = await notify(app, bodyOf(p, step));
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.data.outcome).toBe('applied');
    }
    const sentAt = Date.now() - 1_000;
    const revenueBefore = await revenueOfTheDays();
    const eventsBefore = await storeEventKindsOf(app.appId, p.subscriptionId);
    const sent = await notify(app, bodyOf(p, row.send));
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data).toMatchObject({ type: row.send.type, outcome: row.outcome });

    const { expires_at, billing_issue, grace_period_expires_at, cancellation_reason, ...rest } = row.want;
    const after = await detail(app, p.subscriptionId);
    if (expires_at === 'now') expect(Date.parse(after.expires_at)).toBeGreaterThanOrEqual(sentAt);
    expect(after).toMatchObject({
      ...rest,
      ...(expires_at === 'now' ? {} : { expires_at: new Date(p[expires_at].expiresDate as number).toISOString() }),
      grace_period_expires_at: grace_period_expires_at === GRACE ? new Date(graceEnd).toISOString() : null,
      environment: 'production',
      ...(cancellation_reason ? { cancellation_reason } : {}),
    });
    if (billing_issue) expect(after.billing_issue_at).toEqual(expect.any(String));
    else expect(after.billing_issue_at).toBeNull();

    expect(addedKinds(eventsBefore, await storeEventKindsOf(app.appId, p.subscriptionId))).toEqual(row.events ?? []);
    const revenueAfter = await revenueOfTheDays();
    expect({
      renewals: revenueAfter.renewals - revenueBefore.renewals,
      amount: Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100,
    }).toEqual(row.revenue ?? { renewals: 0, amount: 0 });

    const others = (await subscriptionsOf(app, p.user)).filter((s) => s.id !== p.subscriptionId);
    if (!row.started) expect(others).toEqual([]);
    else {
      expect(others).toHaveLength(1);
      expect(await detail(app, others[0]!.id)).toMatchObject({
        status: row.started.status,
        expires_at: new Date(p[row.started.expires_at].expiresDate as number).toISOString(),
      });
    }
  });

  it('DID_CHANGE_RENEWAL_PREF UPGRADE to a period that ends sooner (yearly to monthly): a new paid period at once', async () => {
    const now = Date.now();
    const yearly = appStoreTransaction(NOTIFY_BUNDLE, {
      environment: 'Production',
      productId: 'pro_yearly',
      expiresDate: now + 365 * DAY,
      price: 59990,
    });
    const verified = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: signedByStandIn(yearly), user_id: `apple-user-${(users += 1)}` },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const id = verified.body.data.subscription_id as string;
    const monthly = {
      ...yearly,
      transactionId: String(BigInt(yearly.transactionId as string) + 1n),
      productId: 'premium_monthly',
      purchaseDate: now,
      expiresDate: now + 30 * DAY,
      price: 9990,
    };
    const revenueBefore = await revenueOfTheDays();
    const eventsBefore = await storeEventKindsOf(app.appId, id);
    const sent = await notify(
      app,
      appStoreNotificationBody({
        type: 'DID_CHANGE_RENEWAL_PREF',
        subtype: 'UPGRADE',
        environment: 'Production',
        signedDate: tick(),
        transaction: { ...monthly, signedDate: clock },
        renewal: appStoreRenewalInfo(monthly),
      }),
    );
    expect(sent.body.data.outcome).toBe('applied');
    expect(await detail(app, id)).toMatchObject({
      status: 'active',
      product_id: 'premium_monthly',
      price: 9.99,
      expires_at: new Date(monthly.expiresDate).toISOString(),
    });
    expect(addedKinds(eventsBefore, await storeEventKindsOf(app.appId, id))).toEqual(['product_changed', 'renewed']);
    const revenueAfter = await revenueOfTheDays();
    expect({
      renewals: revenueAfter.renewals - revenueBefore.renewals,
      amount: Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100,
    }).toEqual({ renewals: 1, amount: 9.99 });
  });

  it("a Family Sharing member's purchase counts no money: verified, renewed, revoked", async () => {
    const shared = appStoreTransaction(NOTIFY_BUNDLE, {
      environment: 'Production',
      inAppOwnershipType: 'FAMILY_SHARED',
    });
    const revenueBefore = await revenueOfTheDays();
    const verified = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: signedByStandIn(shared), user_id: `apple-user-${(users += 1)}` },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const id = verified.body.data.subscription_id as string;
    expect(await detail(app, id)).toMatchObject({ status: 'active', price: 0 });
    const renewed = {
      ...shared,
      transactionId: String(BigInt(shared.transactionId as string) + 1n),
      purchaseDate: shared.expiresDate,
      expiresDate: (shared.expiresDate as number) + 30 * DAY,
    };
    for (const [type, transaction] of [
      ['DID_RENEW', renewed],
      ['REVOKE', { ...renewed, revocationDate: Date.now(), revocationReason: 0 }],
    ] as const) {
      const sent = await notify(
        app,
        appStoreNotificationBody({
          type,
          environment: 'Production',
          signedDate: tick(),
          transaction: { ...transaction, signedDate: clock },
          renewal: appStoreRenewalInfo(transaction),
        }),
      );
      expect(sent.body.data.outcome).toBe('applied');
    }
    expect(await detail(app, id)).toMatchObject({ status: 'cancelled', price: 0 });
    expect((await revenueOfTheDays()).amount).toBe(revenueBefore.amount);
  });

  it('a REFUND signed before a state already applied is applied all the same: a refund is never stale', async () => {
    const p = await purchase();
    const disabled = { type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED', tx: 'first' as const };
    const applied = await notify(app, bodyOf(p, { ...disabled, renewal: { autoRenewStatus: 0 } }));
    expect(applied.body.data.outcome).toBe('applied');
    const revenueBefore = await revenueOfTheDays();
    const signedBefore = clock - 60_000;
    const refund = await notify(
      app,
      appStoreNotificationBody({
        type: 'REFUND',
        environment: 'Production',
        signedDate: signedBefore,
        transaction: { ...p.revoked, signedDate: signedBefore },
        renewal: appStoreRenewalInfo(p.revoked, { autoRenewStatus: 0 }),
        status: 5,
      }),
    );
    expect(refund.body.data.outcome).toBe('applied');
    expect(await detail(app, p.subscriptionId)).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'refunded_by_store',
    });
    const revenueAfter = await revenueOfTheDays();
    expect(Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100).toBe(-9.99);
  });

  it('a genuine REFUND replayed after its record expired (30 days) is stale: the reversal after it stands', async () => {
    const p = await purchase();
    const refundBody = bodyOf(p, { type: 'REFUND', tx: 'revoked', status: 5 });
    const refund = await notify(app, refundBody);
    expect(refund.body.data.outcome).toBe('applied');
    const reversed = await notify(app, bodyOf(p, { type: 'REFUND_REVERSED', tx: 'first' }));
    expect(reversed.body.data.outcome).toBe('applied');
    expect(await detail(app, p.subscriptionId)).toMatchObject({ status: 'active' });
    // The record that answers redeliveries is gone (its TTL), and a month has passed.
    await ddb.send(
      new DeleteCommand({
        TableName: tableName,
        Key: notificationKey(app.appId, { store: 'app_store', notification_id: refund.body.data.notification_id }),
      }),
    );
    const replay = await atTime(Date.now() + 31 * DAY, () => notify(app, refundBody));
    expect(replay.body.data.outcome).toBe('stale');
    expect(await detail(app, p.subscriptionId)).toMatchObject({ status: 'active', refunded_at: null });
  });

  it('SUBSCRIBED INITIAL_BUY of a purchase nobody verified yet is kept; verifying it starts from it', async () => {
    const first = appStoreTransaction(NOTIFY_BUNDLE, { environment: 'Production' });
    const kept = await notify(
      app,
      appStoreNotificationBody({
        type: 'SUBSCRIBED',
        subtype: 'INITIAL_BUY',
        environment: 'Production',
        signedDate: tick(),
        transaction: first,
        renewal: appStoreRenewalInfo(first, { autoRenewStatus: 0 }),
      }),
    );
    expect(kept.body.data.outcome).toBe('kept');
    const verified = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: signedByStandIn(first), user_id: 'apple-later' },
    });
    expect(verified.status).toBe(200);
    expect(await detail(app, verified.body.data.subscription_id)).toMatchObject({
      status: 'active',
      auto_renew: false,
    });
  });

  it('REFUND of an earlier period of a purchase nobody verified yet: verifying the later transaction gives that period, the earlier money is refunded', async () => {
    const now = Date.now();
    const first = appStoreTransaction(NOTIFY_BUNDLE, {
      environment: 'Production',
      purchaseDate: now - 40 * DAY,
      originalPurchaseDate: now - 40 * DAY,
      expiresDate: now - 10 * DAY,
    });
    const renewal = {
      ...first,
      transactionId: String(BigInt(first.transactionId as string) + 1n),
      purchaseDate: now - 10 * DAY,
      expiresDate: now + 20 * DAY,
      price: 12990,
    };
    const refund = await notify(
      app,
      appStoreNotificationBody({
        type: 'REFUND',
        environment: 'Production',
        signedDate: tick(),
        transaction: { ...first, revocationDate: now - 1_000, revocationReason: 0, signedDate: clock },
        renewal: appStoreRenewalInfo(renewal),
        status: 1,
      }),
    );
    expect(refund.body.data.outcome).toBe('kept');
    const revenueBefore = await revenueOfTheDays();
    const verified = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: signedByStandIn(renewal), user_id: `apple-user-${(users += 1)}` },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(await detail(app, verified.body.data.subscription_id)).toMatchObject({
      status: 'active',
      expires_at: new Date(renewal.expiresDate).toISOString(),
      price: 12.99,
      refunded_at: null,
    });
    const revenueAfter = await revenueOfTheDays();
    // The later period's price in, the earlier period's price (the refunded transaction's) back out.
    expect(Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100).toBe(3);
    // The refunded transaction itself stays refused.
    const refused = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: signedByStandIn({ ...first, revocationDate: now - 1_000 }), user_id: 'x' },
    });
    expect(refused.body.error).toMatchObject({ code: 'INVALID_RECEIPT' });
  });

  it('RENEWAL_EXTENSION SUMMARY (a summary, no transaction): recorded', async () => {
    const response = await notify(
      app,
      appStoreNotificationBody({
        type: 'RENEWAL_EXTENSION',
        subtype: 'SUMMARY',
        environment: 'Production',
        signedDate: tick(),
        data: undefined,
        extra: {
          summary: {
            requestIdentifier: 'b3f4c0de-0000-4000-8000-000000000001',
            environment: 'Production',
            appAppleId: NOTIFY_APP_APPLE_ID,
            bundleId: NOTIFY_BUNDLE,
            productId: 'premium_monthly',
            storefrontCountryCodes: ['USA'],
            succeededCount: 1,
            failedCount: 0,
          },
        },
      }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ type: 'RENEWAL_EXTENSION', outcome: 'recorded' });
  });

  it('the same notification delivered twice: duplicate, nothing changes', async () => {
    const p = await purchase();
    const body = bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' });
    expect((await notify(app, body)).body.data.outcome).toBe('applied');
    const once = await detail(app, p.subscriptionId);
    expect((await notify(app, body)).body.data.outcome).toBe('duplicate');
    expect(await detail(app, p.subscriptionId)).toEqual(once);
  });

  it('a renewal reads the app, its settings and the purchase in one request, the subscription in another, and writes one transaction', async () => {
    const p = await purchase();
    const body = bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' });
    let outcome: unknown;
    expect(
      await dynamoDbRoundTrips(async () => {
        outcome = (await notify(app, body)).body.data.outcome;
      }),
    ).toEqual([['BatchGetItem'], ['GetItem'], ['TransactWriteItems']]);
    expect(outcome).toBe('applied');
    // A redelivery is known from the first read.
    expect(
      await dynamoDbRoundTrips(async () => {
        outcome = (await notify(app, body)).body.data.outcome;
      }),
    ).toEqual([['BatchGetItem']]);
    expect(outcome).toBe('duplicate');
  });

  it('out of order: an older signedDate after a newer one is stale and changes nothing', async () => {
    const p = await purchase();
    const older = tick();
    const olderBody = appStoreNotificationBody({
      type: 'DID_CHANGE_RENEWAL_STATUS',
      subtype: 'AUTO_RENEW_DISABLED',
      environment: 'Production',
      signedDate: older,
      transaction: p.first,
      renewal: appStoreRenewalInfo(p.first, { autoRenewStatus: 0 }),
    });
    expect((await notify(app, bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' }))).body.data.outcome).toBe('applied');
    const renewed = await detail(app, p.subscriptionId);
    const late = await notify(app, olderBody);
    expect(late.status).toBe(200);
    expect(late.body.data.outcome).toBe('stale');
    expect(await detail(app, p.subscriptionId)).toEqual(renewed);
    expect(renewed).toMatchObject({ auto_renew: true, price: 12.99 });
  });

  it('a Sandbox notification to a Production app: the subscription is sandbox, and counts no revenue', async () => {
    const revenue = async () =>
      (
        await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, {
          bearer: app.secretKey,
          query: REVENUE_DAYS,
        })
      ).body.data.total_revenue as number;
    const p = await purchase(false, 'Sandbox');
    expect(await detail(app, p.subscriptionId)).toMatchObject({ environment: 'sandbox' });
    const before = await revenue();
    const renewed = await notify(app, bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' }, 'Sandbox'));
    expect(renewed.body.data.outcome).toBe('applied');
    expect(await detail(app, p.subscriptionId)).toMatchObject({
      environment: 'sandbox',
      status: 'active',
      expires_at: new Date(p.renewal.expiresDate as number).toISOString(),
    });
    expect(await revenue()).toBe(before);
  });

  describe('refusals change nothing', () => {
    const refused = async (target: TestApp, body: unknown, p: Purchase) => {
      const before = await detail(app, p.subscriptionId);
      const response = await notify(target, body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.code).toBe('INVALID_NOTIFICATION');
      expect(await detail(app, p.subscriptionId)).toEqual(before);
    };

    it('one byte of the signed payload changed', async () => {
      const p = await purchase();
      const { signedPayload } = bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' });
      const [header, payload, signature] = signedPayload.split('.');
      const bytes = Buffer.from(payload!, 'base64url');
      bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x01;
      await refused(app, { signedPayload: `${header}.${bytes.toString('base64url')}.${signature}` }, p);
    });

    it('another bundle id', async () => {
      const p = await purchase();
      await refused(
        app,
        appStoreNotificationBody({
          type: 'DID_RENEW',
          environment: 'Production',
          bundleId: 'com.example.other',
          signedDate: tick(),
          transaction: { ...p.renewal, bundleId: 'com.example.other' },
        }),
        p,
      );
    });

    it('another app’s path', async () => {
      const p = await purchase();
      const other = await createTestApp();
      await putStoreSettings(other.appId, 'app_store', {
        bundle_id: 'com.example.other',
        environment: 'Production',
        app_apple_id: NOTIFY_APP_APPLE_ID + 1,
      });
      await refused(other, bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' }), p);
    });

    it('a body over 64 KB is 413', async () => {
      const p = await purchase();
      const before = await detail(app, p.subscriptionId);
      const body = bodyOf(p, { type: 'DID_RENEW', tx: 'renewal' }, 'Production', {
        extra: { padding: 'x'.repeat(70_000) },
      });
      const response = await notify(app, body);
      expect(response.status).toBe(413);
      expect(await detail(app, p.subscriptionId)).toEqual(before);
    });
  });
});

describe('the real Apple-signed transaction inside a notification', () => {
  // Apple's own chain (leaf expired, judged at the payload's signedDate) inside an outer payload
  // signed by the stand-in: both roots trusted, each JWS verified against its own chain.
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/apple/${name}`, import.meta.url), 'utf8');
  const payload = JSON.parse(fixture('sandbox-notification-subscribed-payload.json'));
  const settings = { bundleId: 'com.app.qysmat', environment: 'Sandbox' as const, appAppleId: undefined };
  // Re-signed now: the stand-in chain is younger than Apple's payload; Apple's inner JWS are judged at their own dates.
  const outer = (signed: Record<string, unknown>) => ({
    signedPayload: signedByStandIn({ ...signed, signedDate: Date.now() }),
  });
  let roots: X509Certificate[];
  beforeAll(async () => {
    // Apple's real root, as the bundles embed it (this file mocks that module to the stand-in's).
    const real = await vi.importActual<typeof import('../../lib/stores/apple-root-ca-g3.js')>(
      '../../lib/stores/apple-root-ca-g3.js',
    );
    roots = [STAND_IN_ROOT, new X509Certificate(real.APPLE_ROOT_CA_G3_PEM)];
  });

  it('verifies, decodes Apple’s transaction and renewal info, and keeps the state on the unverified purchase', async () => {
    const app = await createTestApp();
    const notification = decodeAppStoreNotification(outer(payload), settings, roots);
    expect(notification).toMatchObject({
      notification_id: 'f8ac20ef-e972-4465-80c4-3170f9882aff',
      type: 'SUBSCRIBED',
      subtype: 'RESUBSCRIBE',
      environment: 'Sandbox',
      state: {
        transaction_id: '2000000302596403',
        original_transaction_id: '2000000302178785',
        product_id: 'com.app.qysmat.premium.child.individual.subscription',
        expires_at: new Date(1679899942000).toISOString(),
        renewal: { auto_renew: true },
      },
    });
    expect(await applyStoreNotification(app.appId, notification)).toBe('kept');
    expect(await applyStoreNotification(app.appId, notification)).toBe('duplicate');
  });

  it('one byte changed in Apple’s inner transaction is refused', () => {
    const jws = payload.data.signedTransactionInfo as string;
    const [header, body, signature] = jws.split('.');
    const bytes = Buffer.from(body!, 'base64url');
    bytes[10] = bytes[10]! ^ 0x01;
    const tampered = {
      ...payload,
      data: { ...payload.data, signedTransactionInfo: `${header}.${bytes.toString('base64url')}.${signature}` },
    };
    expect(() => decodeAppStoreNotification(outer(tampered), settings, roots)).toThrow(
      expect.objectContaining({ kind: 'INVALID_NOTIFICATION' }),
    );
    // Without Apple's root the genuine one is refused too: the inner chain is really checked.
    expect(() => decodeAppStoreNotification(outer(payload), settings, [STAND_IN_ROOT])).toThrow(
      expect.objectContaining({ kind: 'INVALID_NOTIFICATION' }),
    );
  });
});
