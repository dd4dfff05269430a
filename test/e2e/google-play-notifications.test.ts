/**
 * Google Play real-time developer notifications through the local gateway, one row per Google
 * notification of docs/store-notifications.md ("What each notification does"): a purchase token
 * verified with POST /v1/subscriptions/verify, then Google's state of it changed in the stand-in
 * (subscriptionsv2 over HTTP) and the Pub/Sub push, with its OIDC token, POSTed to
 * /notifications/google-play/{app_id}; the answer and the subscription's detail afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import type { LocalGateway } from '../../local/gateway.js';
import { settleCounters } from '../support/counters.js';
import type { TestApp } from '../support/fixtures.js';
import {
  money,
  PUSH_SERVICE_ACCOUNT,
  type PurchaseFixture,
  pushBody,
  type StandIn,
  startGooglePlayStandIn,
  subscriptionPurchaseV2,
} from '../support/google-play-standin.js';
import { addedKinds, storeEventKindsOf } from '../support/outbox.js';

const PACKAGE = 'com.example.subs';
const AUDIENCE = 'https://api.example.com/notifications/google-play/e2e';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** eventTimeMillis of each notification: later than the one before. */
let clock = Date.now();
const tick = () => (clock = Math.max(clock + 1, Date.now()));

/** Google's state of the purchase when it sends the notification. */
type Google = { product?: string } & PurchaseFixture;

interface Step {
  /** subscriptionNotification's notificationType; `voided`: a voidedPurchaseNotification; `test`: testNotification. */
  code: number | 'voided' | 'test';
  /** What subscriptionsv2.get answers from now on; `forgotten`: Google no longer knows the token. */
  google?: Google | 'forgotten';
}

interface Row {
  name: string;
  before?: Step[];
  send: Step;
  type: string;
  outcome: string;
  want: {
    status: string;
    /** ms from the row's start, or `now`: access ended when the notification was applied. */
    expires_at: number | 'now';
    auto_renew: boolean;
    billing_issue: boolean;
    /** ms from the row's start. */
    grace_period_expires_at: number | null;
    product_id: string;
    price: number;
    cancellation_reason?: string;
  };
  /** A new subscription of the same user, active to this end (ms from the row's start). */
  started?: number;
  /** Events besides status_changed that the notification sends, in kind order (default none). */
  events?: string[];
  /** Today's revenue statistics change by (default none): renewals counted, and money in USD (EUR stays unconverted). */
  revenue?: { renewals: number; amount: number };
}

// The period the verified purchase paid for, and the ones Google reports later (ms from the row's start).
const FIRST_END = 30 * DAY;
const NEXT_END = 60 * DAY;
const GRACE_END = 37 * DAY;
const LAPSED = -DAY;
const PAID = { state: 'SUBSCRIPTION_STATE_ACTIVE', orderId: '', expiresInMs: FIRST_END };
const RENEWED = { ...PAID, orderId: '..1', expiresInMs: NEXT_END, price: money('USD', 12.99) };
const RENEWED_AT_THE_SAME_PRICE = { ...PAID, orderId: '..1', expiresInMs: NEXT_END };

const ACTIVE = { billing_issue: false, grace_period_expires_at: null, product_id: 'premium_monthly', price: 9.99 };
const FIRST = { ...ACTIVE, status: 'active', expires_at: FIRST_END, auto_renew: true } as const;
const ENDED = { ...ACTIVE, status: 'expired', expires_at: LAPSED, auto_renew: false } as const;
const REFUNDED = {
  ...ENDED,
  status: 'cancelled',
  expires_at: 'now',
  cancellation_reason: 'refunded_by_store',
} as const;
const ON_HOLD = { ...PAID, state: 'SUBSCRIPTION_STATE_ON_HOLD', expiresInMs: LAPSED };

// biome-ignore format: a table
const ROWS: Row[] = [
  { name: 'SUBSCRIPTION_PURCHASED of a verified purchase: nothing new', send: { code: 4, google: PAID }, type: 'SUBSCRIPTION_PURCHASED', outcome: 'applied', want: FIRST },
  { name: 'SUBSCRIPTION_RENEWED: Google’s period at Google’s price', send: { code: 2, google: RENEWED }, type: 'SUBSCRIPTION_RENEWED', outcome: 'applied', want: { ...FIRST, expires_at: NEXT_END, price: 12.99 }, revenue: { renewals: 1, amount: 12.99 }, events: ['renewed'] },
  { name: 'SUBSCRIPTION_RECOVERED after on hold: the same subscription active again', before: [{ code: 5, google: ON_HOLD }], send: { code: 1, google: RENEWED }, type: 'SUBSCRIPTION_RECOVERED', outcome: 'applied', want: { ...FIRST, expires_at: NEXT_END, price: 12.99 }, revenue: { renewals: 1, amount: 12.99 }, events: ['renewed'] },
  { name: 'SUBSCRIPTION_CANCELED: auto-renew off, runs to its end', send: { code: 3, google: { ...PAID, state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false } }, type: 'SUBSCRIPTION_CANCELED', outcome: 'applied', want: { ...FIRST, auto_renew: false }, events: ['auto_renew_changed'] },
  { name: 'SUBSCRIPTION_RESTARTED: auto-renew on again', before: [{ code: 3, google: { ...PAID, state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false } }], send: { code: 7, google: PAID }, type: 'SUBSCRIPTION_RESTARTED', outcome: 'applied', want: FIRST, events: ['auto_renew_changed'] },
  { name: 'SUBSCRIPTION_ITEMS_CHANGED: the new product and its price', send: { code: 17, google: { ...PAID, product: 'pro_yearly', orderId: '..1', expiresInMs: 365 * DAY, price: money('EUR', 59.99) } }, type: 'SUBSCRIPTION_ITEMS_CHANGED', outcome: 'applied', want: { ...FIRST, expires_at: 365 * DAY, product_id: 'pro_yearly', price: 59.99 }, revenue: { renewals: 1, amount: 0 }, events: ['product_changed', 'renewed'] },
  { name: 'SUBSCRIPTION_DEFERRED: recorded, takes effect at the renewal', send: { code: 9, google: { ...PAID, replacementProductId: 'pro_yearly' } }, type: 'SUBSCRIPTION_DEFERRED', outcome: 'applied', want: FIRST },
  { name: 'SUBSCRIPTION_RENEWED after SUBSCRIPTION_DEFERRED: the renewal brings the new product', before: [{ code: 9, google: { ...PAID, replacementProductId: 'pro_yearly' } }], send: { code: 2, google: { ...RENEWED, product: 'pro_yearly', price: money('USD', 59.99) } }, type: 'SUBSCRIPTION_RENEWED', outcome: 'applied', want: { ...FIRST, expires_at: NEXT_END, product_id: 'pro_yearly', price: 59.99 }, revenue: { renewals: 1, amount: 59.99 }, events: ['product_changed', 'renewed'] },
  { name: 'SUBSCRIPTION_IN_GRACE_PERIOD: still active, billing issue and grace end shown', send: { code: 6, google: { ...PAID, state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', expiresInMs: GRACE_END } }, type: 'SUBSCRIPTION_IN_GRACE_PERIOD', outcome: 'applied', want: { ...FIRST, expires_at: GRACE_END, billing_issue: true, grace_period_expires_at: GRACE_END }, events: ['billing_issue'] },
  { name: 'SUBSCRIPTION_ON_HOLD: access ends, recoverable', send: { code: 5, google: ON_HOLD }, type: 'SUBSCRIPTION_ON_HOLD', outcome: 'applied', want: { ...ENDED, billing_issue: true }, events: ['billing_issue'] },
  { name: 'SUBSCRIPTION_EXPIRED', send: { code: 13, google: { ...PAID, state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiresInMs: LAPSED } }, type: 'SUBSCRIPTION_EXPIRED', outcome: 'applied', want: ENDED },
  { name: 'SUBSCRIPTION_REVOKED: the state Google reports (expired)', send: { code: 12, google: { ...PAID, state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiresInMs: LAPSED } }, type: 'SUBSCRIPTION_REVOKED', outcome: 'applied', want: ENDED },
  { name: 'SUBSCRIPTION_PAUSED: the pause ends access', send: { code: 10, google: { ...PAID, state: 'SUBSCRIPTION_STATE_PAUSED', expiresInMs: LAPSED } }, type: 'SUBSCRIPTION_PAUSED', outcome: 'applied', want: ENDED },
  { name: 'the period after a pause starts a new subscription', before: [{ code: 10, google: { ...PAID, state: 'SUBSCRIPTION_STATE_PAUSED', expiresInMs: LAPSED } }], send: { code: 2, google: RENEWED }, type: 'SUBSCRIPTION_RENEWED', outcome: 'applied', want: ENDED, started: NEXT_END, revenue: { renewals: 0, amount: 12.99 } },
  { name: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED: its state applied, no change', send: { code: 8, google: PAID }, type: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED', outcome: 'applied', want: FIRST },
  { name: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED: its state applied, no change', send: { code: 11, google: PAID }, type: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED', outcome: 'applied', want: FIRST },
  { name: 'voidedPurchaseNotification: cancelled now, refunded by the store', send: { code: 'voided', google: { ...PAID, state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false } }, type: 'VOIDED_PURCHASE', outcome: 'applied', want: REFUNDED, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'voidedPurchaseNotification of an earlier renewal’s order: that period’s money back, the current period stands', before: [{ code: 2, google: RENEWED_AT_THE_SAME_PRICE }], send: { code: 'voided', google: RENEWED_AT_THE_SAME_PRICE }, type: 'VOIDED_PURCHASE', outcome: 'applied', want: { ...FIRST, expires_at: NEXT_END }, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'voidedPurchaseNotification of a token Google no longer knows: refunded as we know it', send: { code: 'voided', google: 'forgotten' }, type: 'VOIDED_PURCHASE', outcome: 'applied', want: REFUNDED, revenue: { renewals: 0, amount: -9.99 }, events: ['refunded'] },
  { name: 'testNotification: recorded', send: { code: 'test' }, type: 'TEST_NOTIFICATION', outcome: 'recorded', want: FIRST },
];

describe('Google Play notifications through the gateway (stand-in of Google over HTTP)', () => {
  let standIn: StandIn;
  let app: TestApp;
  let gateway: LocalGateway;
  let contractFetch: typeof import('../support/contract.js').contractFetch;
  let tokens = 0;
  let messages = 0;
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn(PACKAGE);
    // Store URLs are configuration read once at start-up: lib/ is imported after they point at the
    // stand-in (test/support/contract.ts imports the gateway, hence lib/, so it is imported late too).
    process.env.GOOGLE_OAUTH_TOKEN_URL = standIn.tokenUrl;
    process.env.GOOGLE_PLAY_API_BASE_URL = standIn.url;
    process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
    app = await (await import('../support/fixtures.js')).createTestApp();
    // What `admin stores google set --package-name --service-account-file --push-audience --push-service-account` stores.
    await (await import('../../lib/data/store-settings.js')).putStoreSettings(app.appId, 'google_play', {
      package_name: PACKAGE,
      service_account: standIn.serviceAccount,
      push_audience: AUDIENCE,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    });
    contractFetch = (await import('../support/contract.js')).contractFetch;
    gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0, functionTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await gateway?.close();
    await standIn?.close();
  });

  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await contractFetch(`${gateway.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const api = (method: string, path: string, body?: unknown) =>
    request(method, path, body, { authorization: `Bearer ${app.secretKey}` });
  const detail = async (id: string) => (await api('GET', `${SUBSCRIPTIONS_BASE}/${id}`)).body.data;
  /**
   * The app's revenue statistics over the file's first day and the next (fixed once, so a
   * before/after pair read across UTC midnight reads the same counters): money (USD) and renewals.
   */
  const revenueDays = `start_date=${new Date().toISOString().slice(0, 10)}&end_date=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`;
  const revenueOfTheDays = async () => {
    await settleCounters();
    const { body } = await api('GET', `${SUBSCRIPTIONS_BASE}/revenue?${revenueDays}`);
    const breakdown = body.data.breakdown as { renewals: number }[];
    return { amount: body.data.total_revenue as number, renewals: breakdown.reduce((sum, b) => sum + b.renewals, 0) };
  };
  const bearer = (audience = AUDIENCE) => ({ authorization: `Bearer ${standIn.pushToken({ audience })}` });

  /** Google's answer for the purchase: each token's orders are its own (GPA.…-00000, then ..1 for the renewal). */
  const googleState = (token: string, google: Google, start: number) => {
    const { product = 'premium_monthly', expiresInMs = FIRST_END, orderId = '', ...fixture } = google;
    return subscriptionPurchaseV2(product, {
      ...fixture,
      orderId: `${orderOf(token)}${orderId}`,
      expiryTime: iso(start + expiresInMs),
    });
  };
  const orderOf = (token: string) => `GPA.3345-${token.slice(-8, -4)}-${token.slice(-4)}-00000`;

  /** A purchase token verified by its user through the API. */
  async function purchase(start: number) {
    const token = `rtdn-e2e-token-${String((tokens += 1)).padStart(8, '0')}`;
    standIn.purchases.set(token, googleState(token, PAID, start));
    const user = `google-user-${tokens}`;
    const verified = await api('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      platform: 'android',
      receipt_data: token,
      user_id: user,
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    return { token, user, subscriptionId: verified.body.data.subscription_id as string };
  }

  const developerNotification = (token: string, code: Step['code'], packageName = PACKAGE) => ({
    version: '1.0',
    packageName,
    eventTimeMillis: String(tick()),
    ...(code === 'test'
      ? { testNotification: { version: '1.0' } }
      : code === 'voided'
        ? {
            voidedPurchaseNotification: {
              purchaseToken: token,
              orderId: orderOf(token),
              productType: 1,
              refundType: 1,
            },
          }
        : {
            subscriptionNotification: {
              version: '1.0',
              notificationType: code,
              purchaseToken: token,
              subscriptionId: 'premium_monthly',
            },
          }),
  });
  const push = (notification: unknown, headers: Record<string, string> = bearer()) =>
    request('POST', `/notifications/google-play/${app.appId}`, pushBody(notification, `${(messages += 1)}`), headers);

  async function deliver(token: string, step: Step, start: number) {
    if (step.google === 'forgotten') standIn.purchases.delete(token);
    else if (step.google) standIn.purchases.set(token, googleState(token, step.google, start));
    return push(developerNotification(token, step.code));
  }

  it.each(ROWS)('$name', async (row) => {
    const start = Date.now();
    const p = await purchase(start);
    for (const step of row.before ?? []) {
      const before = await deliver(p.token, step, start);
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.data.outcome).toBe('applied');
    }
    const sentAt = Date.now() - 1_000;
    const revenueBefore = await revenueOfTheDays();
    const eventsBefore = await storeEventKindsOf(app.appId, p.subscriptionId);
    const sent = await deliver(p.token, row.send, start);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data).toMatchObject({ type: row.type, outcome: row.outcome });

    const { expires_at, billing_issue, grace_period_expires_at, cancellation_reason, ...rest } = row.want;
    const after = await detail(p.subscriptionId);
    if (expires_at === 'now') expect(Date.parse(after.expires_at)).toBeGreaterThanOrEqual(sentAt);
    expect(after).toMatchObject({
      ...rest,
      ...(expires_at === 'now' ? {} : { expires_at: iso(start + expires_at) }),
      grace_period_expires_at: grace_period_expires_at === null ? null : iso(start + grace_period_expires_at),
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

    const others = ((await api('GET', `${SUBSCRIPTIONS_BASE}?user_id=${p.user}`)).body.data as { id: string }[]).filter(
      (s) => s.id !== p.subscriptionId,
    );
    if (row.started === undefined) expect(others).toEqual([]);
    else {
      expect(others).toHaveLength(1);
      expect(await detail(others[0]!.id)).toMatchObject({ status: 'active', expires_at: iso(start + row.started) });
    }
  });

  it("a plan change under a new token (linkedPurchaseToken): the user's new subscription, the old token's ends", async () => {
    const start = Date.now();
    const old = await purchase(start);
    const token = `rtdn-e2e-token-${String((tokens += 1)).padStart(8, '0')}`;
    standIn.purchases.set(token, {
      ...googleState(
        token,
        { ...PAID, product: 'pro_yearly', expiresInMs: 365 * DAY, price: money('USD', 59.99) },
        start,
      ),
      linkedPurchaseToken: old.token,
    });
    const sent = await push(developerNotification(token, 4));
    expect(sent.body.data).toMatchObject({ type: 'SUBSCRIPTION_PURCHASED', outcome: 'applied' });
    const replaced = await detail(old.subscriptionId);
    expect(replaced).toMatchObject({ status: 'expired', auto_renew: false });
    expect(Date.parse(replaced.expires_at)).toBeLessThanOrEqual(Date.now());
    const subscriptions = (await api('GET', `${SUBSCRIPTIONS_BASE}?user_id=${old.user}`)).body.data as {
      id: string;
      status: string;
      product_id: string;
    }[];
    expect(subscriptions.filter((s) => s.status === 'active')).toMatchObject([{ product_id: 'pro_yearly' }]);
  });

  it('a voided purchase dated before the revocation Google reported first is a refund all the same', async () => {
    const start = Date.now();
    const p = await purchase(start);
    const revoked = await deliver(
      p.token,
      { code: 12, google: { ...PAID, state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiresInMs: LAPSED } },
      start,
    );
    expect(revoked.body.data.outcome).toBe('applied');
    const revenueBefore = await revenueOfTheDays();
    const sent = await push({ ...developerNotification(p.token, 'voided'), eventTimeMillis: String(start - 60_000) });
    expect(sent.body.data).toMatchObject({ type: 'VOIDED_PURCHASE', outcome: 'applied' });
    expect(await detail(p.subscriptionId)).toMatchObject({
      status: 'expired',
      cancellation_reason: 'refunded_by_store',
    });
    const revenueAfter = await revenueOfTheDays();
    expect(Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100).toBe(-9.99);
  });

  it('SUBSCRIPTION_PURCHASED of a token nobody verified yet is kept; verifying it starts from it', async () => {
    const start = Date.now();
    const token = `rtdn-e2e-unverified-${String((tokens += 1)).padStart(8, '0')}`;
    standIn.purchases.set(token, googleState(token, { ...PAID, autoRenew: false }, start));
    const kept = await push(developerNotification(token, 4));
    expect(kept.body.data.outcome).toBe('kept');
    const verified = await api('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      platform: 'android',
      receipt_data: token,
      user_id: 'google-later',
    });
    expect(verified.status).toBe(200);
    expect(await detail(verified.body.data.subscription_id)).toMatchObject({ status: 'active', auto_renew: false });
  });

  it('a voided earlier order of a token nobody verified yet is kept; verifying the token gives the current period', async () => {
    const start = Date.now();
    const token = `rtdn-e2e-unverified-${String((tokens += 1)).padStart(8, '0')}`;
    // Google's latest order is the renewal (..1); the push voids the first order.
    standIn.purchases.set(token, googleState(token, RENEWED, start));
    const kept = await push(developerNotification(token, 'voided'));
    expect(kept.body.data).toMatchObject({ type: 'VOIDED_PURCHASE', outcome: 'kept' });
    const revenueBefore = await revenueOfTheDays();
    const verified = await api('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      platform: 'android',
      receipt_data: token,
      user_id: 'google-later-voided',
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(await detail(verified.body.data.subscription_id)).toMatchObject({
      status: 'active',
      expires_at: iso(start + NEXT_END),
      price: 12.99,
      refunded_at: null,
    });
    // The current period's price in; the voided order's back out, at the subscription's price
    // (Google's voided purchase notification does not price it).
    const revenueAfter = await revenueOfTheDays();
    expect(Math.round((revenueAfter.amount - revenueBefore.amount) * 100) / 100).toBe(0);
  });

  it('the same push delivered twice (same messageId): duplicate, nothing changes', async () => {
    const start = Date.now();
    const p = await purchase(start);
    standIn.purchases.set(p.token, googleState(p.token, RENEWED, start));
    const body = pushBody(developerNotification(p.token, 2), `dup-${(messages += 1)}`);
    const send = () => request('POST', `/notifications/google-play/${app.appId}`, body, bearer());
    expect((await send()).body.data.outcome).toBe('applied');
    const once = await detail(p.subscriptionId);
    expect((await send()).body.data.outcome).toBe('duplicate');
    expect(await detail(p.subscriptionId)).toEqual(once);
  });

  describe('refusals change nothing', () => {
    it.each([
      ['no OIDC token', {}],
      ['a token for another audience', { get: () => bearer('https://elsewhere.example.com/push') }],
    ] as const)('%s: 400 INVALID_NOTIFICATION', async (_name, headers) => {
      const start = Date.now();
      const p = await purchase(start);
      standIn.purchases.set(p.token, googleState(p.token, RENEWED, start));
      const before = await detail(p.subscriptionId);
      const response = await push(developerNotification(p.token, 2), 'get' in headers ? headers.get() : {});
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.code).toBe('INVALID_NOTIFICATION');
      expect(await detail(p.subscriptionId)).toEqual(before);
    });

    it('Google unreachable: 503, so Pub/Sub delivers again; the redelivery applies', async () => {
      const start = Date.now();
      const p = await purchase(start);
      standIn.purchases.set(p.token, googleState(p.token, RENEWED, start));
      const before = await detail(p.subscriptionId);
      const body = pushBody(developerNotification(p.token, 2), `retry-${(messages += 1)}`);
      standIn.failNext('subscriptionsv2', 503);
      const failed = await request('POST', `/notifications/google-play/${app.appId}`, body, bearer());
      expect(failed.status, JSON.stringify(failed.body)).toBe(503);
      expect(failed.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(await detail(p.subscriptionId)).toEqual(before);
      const again = await request('POST', `/notifications/google-play/${app.appId}`, body, bearer());
      expect(again.body.data.outcome).toBe('applied');
      expect(await detail(p.subscriptionId)).toMatchObject({ expires_at: iso(start + NEXT_END), price: 12.99 });
    });
  });
});
