/**
 * Tenant isolation, route by route: app B's keys, aimed at app A's ids and users, never read,
 * list, change or count app A's data. Table-driven over ROUTES (lib/routes.ts): a route without
 * an isolation case fails this file. Every case runs between two full scans of this file's own
 * table, and fails when any item outside app B changed, so "A's data is unchanged" is proven for
 * every request, not sampled.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so a full Scan is cheap and sees only what this file wrote.
  process.env.TABLE_NAME = `isolation-e2e-${process.pid}`;
});

import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../../lib/core/ids.js';
import { putAdsConfig, putSegments } from '../../lib/data/app-config.js';
import { getApp, setSupportEmail } from '../../lib/data/apps.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import * as keys from '../../lib/data/entity-keys.js';
import { putOfferings, putRemoteSwitches } from '../../lib/data/offerings.js';
import { recordPaywallVersion } from '../../lib/data/paywalls.js';
import { scanPages } from '../../lib/data/query.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { grantKey, historyKey, listCountCell, reportKeys, type TableKey } from '../../lib/data/table-keys.js';
import { createDelivery, replaceDelivery, setWebhook } from '../../lib/data/webhooks.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import type { Product } from '../../lib/schemas/product.js';
import { mintTestNotification } from '../../lib/stores/test-store-notifications.js';
import { runFromNoonOf } from '../support/clock.js';
import { settleCounters } from '../support/counters.js';
import {
  createTestApp,
  PREMIUM_MONTHLY,
  PRO_YEARLY,
  RETIRED,
  statusChange,
  type TestApp,
} from '../support/fixtures.js';
import { pushBody } from '../support/google-play-standin.js';
import { type HttpResult, type RequestOptions, useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable } from '../support/own-table.js';
import { type MintOptions, mintReceipt } from '../support/receipts.js';
import { isRateLimitWindow, withoutRequestCounter } from '../support/table-snapshot.js';

const { request } = useGateway();

const today = new Date().toISOString().slice(0, 10);
const TODAY = { start_date: today, end_date: today };
// The counters are per day: the file's clock runs from noon of its first day, so a run crossing
// UTC midnight still reads, as today's, the day its purchases were written on.
beforeAll(() => runFromNoonOf(today));
afterAll(() => {
  vi.useRealTimers();
});

/** A real Apple-signed sandbox transaction (bundle com.app.qysmat); only an app with matching App Store settings accepts it. */
const APPLE_RECEIPT = Buffer.from(
  readFileSync(new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url), 'utf8').trim(),
).toString('base64');
const APPLE_PRODUCT: Product = {
  ...PREMIUM_MONTHLY,
  id: 'com.app.qysmat.premium.child.individual.subscription',
  platforms: ['ios'],
};

/** Sold by app A only. */
const A_ONLY: Product = { ...PRO_YEARLY, id: 'a_only_plan', price: 19.99, currency: 'USD' };
/** App B sells a product with the same id as A's, at its own price: B's catalogue must decide. */
const B_PREMIUM: Product = { ...PREMIUM_MONTHLY, name: 'B premium', price: 4.99 };
const B_ONLY: Product = { ...PREMIUM_MONTHLY, id: 'b_only_plan', name: 'B only' };

// A's users. B's probes write as A_BUYER into B's own app; A_QUIET and A_SEGMENT are never used by B's writes,
// so "B does not know them" stays true for the whole file.
const A_BUYER = 'a-buyer';
const A_QUIET = 'a-quiet';
const A_SEGMENT = 'a-segment-user';
/** A buyer as RevenueCat's SDKs name one not logged in: the id a logIn moves purchases from. */
const A_ANONYMOUS = `$RCAnonymousID:${'a'.repeat(32)}`;
const B_USER = 'b-user';

type Item = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Whole-table snapshots
// ---------------------------------------------------------------------------------------------

/** JSON with sorted keys and sets as sorted arrays, so equal items compare equal whatever the attribute order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Set) return { $set: [...v].map(String).sort() };
    if (v && typeof v === 'object' && !Array.isArray(v))
      return Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    return v;
  });
}

type Snapshot = Map<string, { item: Item; json: string }>;

/**
 * Every item of this file's table, the API keys' request counters aside: any authenticated
 * request, also a refused one, counts against its own key, and that count is not app data.
 */
async function scanTable(): Promise<Snapshot> {
  const snapshot: Snapshot = new Map();
  for await (const page of scanPages({ ConsistentRead: true })) {
    for (const item of page.Items ?? []) {
      if (isRateLimitWindow(String(item.pk))) continue;
      const kept = withoutRequestCounter(item, String(item.pk));
      snapshot.set(`${item.pk} | ${item.sk}`, { item: kept, json: canonical(kept) });
    }
  }
  return snapshot;
}

/** Outbox items and webhook deliveries live in global partitions (one per event) and name their app in an attribute. */
const OUTBOX_PREFIX = keys.outbox('').pk;
const DELIVERY_PREFIX = keys.delivery('').pk;

/**
 * The app an item belongs to. Every app-scoped key of lib/data/table-keys.ts carries the app id as the
 * second `#` segment of its partition key, and the key decides: an item in A's partition is A's,
 * whatever its attributes say. Of the global partitions only the outbox is written on an app's
 * behalf (status changes); any other global item belongs to no app, so no app's request may change it.
 */
function ownerOf(item: Item): unknown {
  const pk = String(item.pk);
  const second = pk.split('#')[1];
  if (second === a.appId || second === b.appId) return second;
  return pk.startsWith(OUTBOX_PREFIX) || pk.startsWith(DELIVERY_PREFIX) ? item.app_id : undefined;
}

const itemsOf = (snapshot: Snapshot, appId: string): Record<string, string> =>
  Object.fromEntries(
    [...snapshot].filter(([, { item }]) => ownerOf(item) === appId).map(([key, { json }]) => [key, json]),
  );

/** Items added, removed or changed between two snapshots that do not belong to `appId` (before and after). */
function changedOutside(before: Snapshot, after: Snapshot, appId: string | null): string[] {
  const changed: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key);
    const is = after.get(key);
    if (was?.json === is?.json) continue;
    const owners = [was, is].filter((v) => v !== undefined).map((v) => ownerOf(v.item));
    if (appId === null || owners.some((owner) => owner !== appId)) changed.push(key);
  }
  return changed.sort();
}

/** Runs `probe` and fails if it changed any item outside `appId`'s partitions (null: any item at all). */
async function expectWritesConfinedTo(appId: string | null, probe: () => Promise<void>): Promise<void> {
  // Counts of earlier writes are not the probe's: a list read during it would settle them.
  await settleCounters();
  const before = await scanTable();
  await probe();
  const after = await scanTable();
  expect(changedOutside(before, after, appId), appId ? `items outside ${appId} changed` : 'items changed').toEqual([]);
}

const getItem = async (key: TableKey): Promise<Item | undefined> =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

// ---------------------------------------------------------------------------------------------
// Requests by route name: the method and path come from ROUTES, the one route table
// ---------------------------------------------------------------------------------------------

const routeNamed = (name: string): Route => {
  const route = ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no route ${name} in lib/routes.ts`);
  return route;
};

function pathOf(route: Route, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.name} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Routes called since the current case started: each case must call its own route. */
const called = new Set<string>();

function call(name: string, options: RequestOptions & { params?: Record<string, string> } = {}): Promise<HttpResult> {
  const route = routeNamed(name);
  called.add(route.name);
  const { params = {}, ...rest } = options;
  return request(route.method, pathOf(route, params), rest);
}

function expectSubscriptionError(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
}

function expectMobileError(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { status: 'error', code, message: expect.any(String) },
  });
}

/** A refusal in the DingYue SDK's envelope (routes under /dingyue): a 200 `fail` unless the status is kept. */
function expectDingYueFail(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { status: 'fail', code, errmsg: expect.any(String) },
  });
}

const inDingYue = (route: Route) => route.path.startsWith('/dingyue/');

// ---------------------------------------------------------------------------------------------
// The two apps
// ---------------------------------------------------------------------------------------------

let a: TestApp;
let b: TestApp;

/** App A's subscriptions, one per state the API can reach. */
const aSubs = {
  verified: '',
  segment: '',
  apple: '',
  anonymous: '',
  pending: '',
  active: '',
  cancelled: '',
  paused: '',
};
const aIds = () => Object.values(aSubs);
/** Every subscription of app B, including the ones B's probes create. */
const bSubs = new Set<string>();
let bActive = '';
/** Money B has taken today (B's revenue must be exactly this, never A's). */
const bMoney = { total: 4.99, renewals: 0 };

/** A's purchase minted for A (receipt and transaction id), verified in setup, and one never verified. */
let aVerifiedReceipt: { receipt_data: string; transaction_id: string };
let aUnusedReceipt: { receipt_data: string; transaction_id: string };
const A_PENDING_TXN = 'a-pending-txn';
const A_RENEW_TXN = 'a-renew-txn';
const A_SESSIONS = ['a-session-1', 'a-session-2'];
const A_ORDERS = ['a-order-1', 'a-order-2'];

const mint = (app: TestApp, product: Product, options: Omit<MintOptions, 'product'> = {}) =>
  mintReceipt(app, { ...options, product });

async function ok<T = any>(res: Promise<HttpResult<T>>, status = 200): Promise<HttpResult<T>> {
  const done = await res;
  expect(done.status, JSON.stringify(done.body)).toBe(status);
  return done;
}

const secret = (app: TestApp) => ({ bearer: app.secretKey });

async function createSub(app: TestApp, body: Record<string, unknown>): Promise<string> {
  return (await ok(call('CreateSubscription', { ...secret(app), body: { platform: 'ios', ...body } }), 201)).body.data
    .id as string;
}

async function verifySub(app: TestApp, user: string, receipt_data: string): Promise<string> {
  return (await ok(call('VerifyPurchase', { ...secret(app), body: { platform: 'ios', receipt_data, user_id: user } })))
    .body.data.subscription_id as string;
}

/** Through the mobile API, as A's SDK would. */
const reportAsA = (name: string, user: string, options: { params?: Record<string, string>; body?: unknown }) =>
  ok(call(name, { ...options, headers: mobileHeaders(a, user) }));

async function setUpAppA(): Promise<void> {
  a = await createTestApp([PREMIUM_MONTHLY, PRO_YEARLY, RETIRED, A_ONLY, APPLE_PRODUCT]);
  await setWebhook(a.appId, 'https://a.example.com/webhooks');
  await setSupportEmail(a.appId, 'help@a.example.com');
  await putStoreSettings(a.appId, 'app_store', { bundle_id: 'com.app.qysmat', environment: 'Sandbox' });
  await putSegments(a.appId, [
    {
      id: 'a_german_speakers',
      name: 'German speakers',
      match: 'all',
      conditions: [{ field: 'attributes.language', op: 'eq', value: 'de' }],
    },
    {
      id: 'a_gold',
      name: 'Gold',
      match: 'all',
      conditions: [{ field: 'custom_properties.plan_tier', op: 'eq', value: 'gold' }],
    },
  ]);
  await putAdsConfig(a.appId, {
    ios: { networks: [{ name: 'a_network', enabled: true, settings: { unit: 'a-secret-unit' } }] },
  });
  // What A shows: an offering with its paywall, a placement choosing by A's segment, a switch.
  await recordPaywallVersion(a.appId, {
    id: 'a_paywall',
    name: 'a_paywall',
    sha256: 'a'.repeat(64),
    bytes: 1,
    files: 1,
  });
  await putOfferings(
    a.appId,
    {
      current: 'a_offering',
      offerings: [
        {
          id: 'a_offering',
          description: 'A only',
          metadata: { headline: 'a-headline' },
          paywall: 'a_paywall',
          packages: [{ id: 'a_package', products: { ios: A_ONLY.id }, metadata: {} }],
        },
      ],
      placements: [
        {
          id: 'a_placement',
          rules: [{ audience: { segment: 'a_gold' }, offering: 'a_offering' }],
          default: 'a_offering',
        },
      ],
    },
    [],
  );
  // A boolean one too: the DingYue SDK's launch answers the boolean switches.
  await putRemoteSwitches(a.appId, [
    { key: 'a_switch', type: 'string', description: '', value: 'a-switch-value', rules: [] },
    { key: 'a_flag', type: 'boolean', description: 'A flag', value: true, rules: [] },
  ]);
  await putEntitlements(a.appId, [
    { id: 'a_pro', name: 'A Pro', products: ['premium_monthly', 'pro_yearly', A_ONLY.id] },
  ]);

  // Subscriptions in every state, and money: a verified purchase and its renewal, an API renewal.
  aVerifiedReceipt = await mint(a, PREMIUM_MONTHLY, { expiresIn: 86_400 });
  aSubs.verified = await verifySub(a, A_BUYER, aVerifiedReceipt.receipt_data);
  const renewal = await mint(a, PREMIUM_MONTHLY, { renews: aVerifiedReceipt.transaction_id, expiresIn: 31 * 86_400 });
  expect(await verifySub(a, A_BUYER, renewal.receipt_data)).toBe(aSubs.verified);
  aSubs.segment = await verifySub(a, A_SEGMENT, (await mint(a, A_ONLY)).receipt_data);
  aSubs.apple = await verifySub(a, 'a-apple-user', APPLE_RECEIPT); // expired since 2023
  aSubs.anonymous = await verifySub(a, A_ANONYMOUS, (await mint(a, PREMIUM_MONTHLY)).receipt_data);
  aUnusedReceipt = await mint(a, PREMIUM_MONTHLY);
  aSubs.pending = await createSub(a, {
    user_id: A_QUIET,
    product_id: 'premium_monthly',
    transaction_id: A_PENDING_TXN,
  });
  for (const state of ['active', 'cancelled', 'paused'] as const) {
    const id = await createSub(a, { user_id: A_QUIET, product_id: 'pro_yearly' });
    await ok(call('UpdateSubscription', { ...secret(a), params: { subscription_id: id }, body: { status: 'active' } }));
    if (state === 'cancelled')
      await ok(
        call('CancelSubscription', { ...secret(a), params: { subscription_id: id }, body: { immediate: true } }),
      );
    if (state === 'paused')
      await ok(
        call('PauseSubscription', { ...secret(a), params: { subscription_id: id }, body: { pause_duration: 7 } }),
      );
    aSubs[state] = id;
  }
  await ok(
    call('RenewSubscription', {
      ...secret(a),
      params: { subscription_id: aSubs.active },
      body: { transaction_id: A_RENEW_TXN },
    }),
  );

  // A grant of A's entitlement to A_QUIET, which B's grant and revoke must never see or change.
  await ok(
    call('GrantEntitlement', {
      ...secret(a),
      params: { user_id: A_QUIET, entitlement_id: 'a_pro' },
      body: { duration: 'P1M' },
    }),
  );

  // A full profile for A_BUYER: sessions, events, orders, conversions, typed reports, properties, attributes, attribution.
  for (const sessionId of A_SESSIONS)
    await reportAsA('ReportSession', A_BUYER, { body: { sessionId, startTime: Date.now() - 60_000, duration: 60 } });
  await reportAsA('ReportEvents', A_BUYER, {
    body: {
      events: ['sync', 'export'].map((feature) => ({
        name: 'feature_used',
        user: A_BUYER,
        sessionId: A_SESSIONS[0],
        extra: { feature_name: feature },
      })),
    },
  });
  for (const orderId of A_ORDERS)
    await reportAsA('ReportOrder', A_BUYER, {
      body: { orderId, productId: 'premium_monthly', price: 9.99, currency: 'USD' },
    });
  await reportAsA('ReportConversion', A_BUYER, { body: { conversionType: 'trial_started', value: 1 } });
  await reportAsA('ReportTyped', A_BUYER, { params: { type: 'device_info' }, body: { model: 'iPhone16,1' } });
  await reportAsA('ReportGlobalSwitch', A_BUYER, { body: { enabled: true } });
  await reportAsA('SetCustomProperties', A_BUYER, {
    body: { properties: { plan_tier: 'gold', level: 3, beta: true } },
  });
  await reportAsA('UpdateUserAttributes', A_BUYER, {
    body: { language: 'de', country: 'DE', email: 'buyer@a.example.com' },
  });
  await reportAsA('ReportAttribution', A_BUYER, { body: { network: 'appsflyer', data: { campaign: 'a_campaign' } } });
  await reportAsA('ReportSearchAds', A_BUYER, {
    body: { attribution: { 'Version3.1': { 'iad-attribution': 'true', 'iad-campaign-id': 'a-123' } } },
  });
  // A_SEGMENT exists only in A: attributes, properties and attribution that B must never see.
  await reportAsA('UpdateUserAttributes', A_SEGMENT, { body: { language: 'de' } });
  await reportAsA('SetCustomProperties', A_SEGMENT, { body: { properties: { plan_tier: 'gold' } } });
  await reportAsA('ReportAttribution', A_SEGMENT, {
    body: { network: 'a_network', data: { campaign_id: 'a_segment_campaign' } },
  });
  aDeliveries = await seedDeliveries(a);
}

/** Webhook deliveries of an app, as the deliverer records them: one delivered, one dead. */
async function seedDeliveries(app: TestApp): Promise<string[]> {
  const ids: string[] = [];
  for (const status of ['delivered', 'dead'] as const) {
    const created = await createDelivery(statusChange(app.appId), new Date());
    if (!created) throw new Error('a new event was already recorded');
    await replaceDelivery({ ...created, status, attempts: 1, next_attempt_at: null }, 0, true);
    ids.push(created.event_id);
  }
  return ids;
}
let aDeliveries: string[] = [];
let bDeliveries: string[] = [];

async function setUpAppB(): Promise<void> {
  b = await createTestApp([B_PREMIUM, B_ONLY]);
  await setWebhook(b.appId, 'https://b.example.com/webhooks');
  await putSegments(b.appId, [
    {
      id: 'b_everyone',
      name: 'Everyone of B',
      match: 'all',
      conditions: [{ field: 'counters.total_sessions', op: 'gte', value: 0 }],
    },
  ]);
  await putAdsConfig(b.appId, {
    ios: { networks: [{ name: 'b_network', enabled: true, settings: { unit: 'b-unit' } }] },
  });
  await putRemoteSwitches(b.appId, [{ key: 'b_switch', type: 'boolean', description: '', value: true, rules: [] }]);
  // The same product id as A's entitlement names, in B's own catalogue.
  await putEntitlements(b.appId, [{ id: 'b_pro', name: 'B Pro', products: ['premium_monthly'] }]);
  bActive = await verifySub(b, B_USER, (await mint(b, B_PREMIUM)).receipt_data);
  bSubs.add(bActive);
  bSubs.add(await createSub(b, { user_id: B_USER, product_id: 'b_only_plan' }));
  await ok(
    call('ReportSession', {
      headers: mobileHeaders(b, B_USER),
      body: { sessionId: 'b-session', startTime: Date.now(), duration: 5 },
    }),
  );
  bDeliveries = await seedDeliveries(b);
}

/** What app A sees of itself through its own keys: must be the same after all of B's probes. */
async function viewOfA() {
  const get = (name: string, options: Parameters<typeof call>[1]) =>
    call(name, options).then((res) => ({ status: res.status, body: res.body }));
  return {
    details: await Promise.all(
      aIds().map((id) => get('GetSubscription', { ...secret(a), params: { subscription_id: id } })),
    ),
    histories: await Promise.all(
      aIds().map((id) => get('GetSubscriptionHistory', { ...secret(a), params: { subscription_id: id } })),
    ),
    list: await get('ListSubscriptions', { ...secret(a), query: { limit: 100 } }),
    quiet: await get('ListSubscriptions', { ...secret(a), query: { user_id: A_QUIET } }),
    active: await get('ListSubscriptions', { ...secret(a), query: { status: 'active' } }),
    revenue: await get('RevenueStatistics', { ...secret(a), query: TODAY }),
    metrics: await get('SubscriptionMetrics', { ...secret(a), query: TODAY }),
    products: await get('ListProducts', secret(a)),
    segments: await get('SegmentInfo', { headers: mobileHeaders(a, A_SEGMENT) }),
    customers: await Promise.all(
      [A_QUIET, A_SEGMENT].map((user) => get('GetCustomer', { ...secret(a), params: { user_id: user } })),
    ),
    customerInfo: await get('CustomerInfo', { headers: mobileHeaders(a, A_SEGMENT) }),
    deliveries: await get('ListWebhookDeliveries', secret(a)),
    ads: await get('AdsInfo', {
      params: { platform: 'ios', app_id: a.appId, store_id: '1234567' },
      headers: mobileHeaders(a, A_BUYER),
    }),
  };
}

let aViewBefore: Awaited<ReturnType<typeof viewOfA>>;
let aItemsBefore: Record<string, string>;

// ---------------------------------------------------------------------------------------------
// The isolation cases, one per route
// ---------------------------------------------------------------------------------------------

interface IsolationCase {
  /** The behaviour proven, as the test's name. */
  does: string;
  run: () => Promise<void>;
}

/** Every lifecycle change, aimed at each of A's subscriptions (every state), is a 404 as if the id did not exist. */
function lifecycleCase(name: string, verb: string, body: Record<string, unknown> | undefined): IsolationCase {
  return {
    does: `app B's secret key cannot ${verb} any of app A's subscriptions (404 SUBSCRIPTION_NOT_FOUND, A's record unchanged)`,
    run: async () => {
      for (const id of aIds())
        expectSubscriptionError(
          await call(name, { ...secret(b), params: { subscription_id: id }, body }),
          404,
          'SUBSCRIPTION_NOT_FOUND',
        );
    },
  };
}

interface MobileSample {
  params?: Record<string, string>;
  body: unknown;
}

/**
 * A mobile write: B's sdk key naming A in X-APP-ID is a 403; with B's own X-APP-ID and A's user id
 * it succeeds and lands in B's partitions (the wrapper proves A's profile, events and usage_stats
 * unchanged; here, that B now knows the user). `check` reads the answer for signs of A's data.
 */
function mobileWriteCase(
  name: string,
  what: string,
  sample: MobileSample,
  check?: (res: HttpResult) => void,
  dialect: 'spec' | 'dingyue' = 'spec',
): IsolationCase {
  const through = dialect === 'dingyue' ? ' through the DingYue SDK' : '';
  return {
    does: `app B's sdk key cannot ${what} into app A${through} (403), and A's user ids under B's X-APP-ID land only in B's partitions`,
    run: async () => {
      (dialect === 'dingyue' ? expectDingYueFail : expectMobileError)(
        await call(name, { ...sample, headers: mobileHeaders(b, A_BUYER, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      const own = await ok(call(name, { ...sample, headers: mobileHeaders(b, A_BUYER) }));
      expect(own.body.status).toBe(dialect === 'dingyue' ? 'ok' : 'success');
      check?.(own);
      // Event batches record the user's activity on an item of its own next to the profile.
      const known =
        (await getItem(keys.userProfile(b.appId, A_BUYER))) ?? (await getItem(keys.userActivity(b.appId, A_BUYER)));
      expect(known).toMatchObject({ pk: keys.userProfile(b.appId, A_BUYER).pk });
    },
  };
}

/** The V1 and V2 routes of a mobile endpoint; `i` lets each version use its own id of A's (a session, an order). */
function bothVersions(base: string, make: (name: string, i: 0 | 1) => IsolationCase): Record<string, IsolationCase> {
  return { [base]: make(base, 0), [`${base}V2`]: make(`${base}V2`, 1) };
}

/** A receipt minted for A, in B's hands: refused, whoever B claims the user is. */
function mobileReceiptCase(name: string, bodyOf: (receipt: string) => Record<string, unknown>): IsolationCase {
  return {
    does: `app B's sdk key cannot verify app A's receipts: 403 naming A, INVALID_RECEIPT in B, A's ownership unchanged`,
    run: async () => {
      const body = bodyOf(aVerifiedReceipt.receipt_data);
      expectMobileError(
        await call(name, { body, headers: mobileHeaders(b, A_BUYER, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      for (const receipt of [aVerifiedReceipt, aUnusedReceipt]) {
        for (const user of [A_BUYER, B_USER]) {
          expectMobileError(
            await call(name, { body: bodyOf(receipt.receipt_data), headers: mobileHeaders(b, user) }),
            400,
            'INVALID_RECEIPT',
          );
        }
      }
      // A's purchase is still A_BUYER's: another user of A is refused it.
      const stolen = await call(name, { body, headers: mobileHeaders(a, 'a-thief') });
      expectMobileError(stolen, 400, 'RECEIPT_ALREADY_USED');
    },
  };
}

/** mobileWriteCase for a DingYue SDK call: the same probes, in that SDK's envelope. */
const dingyueWriteCase = (name: string, what: string, sample: MobileSample, check?: (res: HttpResult) => void) =>
  mobileWriteCase(name, what, sample, check, 'dingyue');

/** mobileReceiptCase for a DingYue SDK call: A's receipts in B's hands are a 200 `fail`, A's purchase stays A_BUYER's. */
function dingyueReceiptCase(name: string, bodyOf: (receipt: string) => Record<string, unknown>): IsolationCase {
  return {
    does: `app B's sdk key cannot claim app A's purchases through the DingYue SDK: 403 naming A, "fail" INVALID_RECEIPT in B, A's ownership unchanged`,
    run: async () => {
      expectDingYueFail(
        await call(name, {
          body: bodyOf(aVerifiedReceipt.receipt_data),
          headers: mobileHeaders(b, A_BUYER, { 'x-app-id': a.appId }),
        }),
        403,
        'FORBIDDEN',
      );
      for (const receipt of [aVerifiedReceipt, aUnusedReceipt]) {
        for (const user of [A_BUYER, B_USER]) {
          expectDingYueFail(
            await call(name, { body: bodyOf(receipt.receipt_data), headers: mobileHeaders(b, user) }),
            200,
            'INVALID_RECEIPT',
          );
        }
      }
      // A's purchase is still A_BUYER's: another user of A is refused it (by the spec's call, which moves nothing).
      const stolen = await call('VerifyFirstReceipt', {
        body: { receipt: aVerifiedReceipt.receipt_data, productId: 'premium_monthly' },
        headers: mobileHeaders(a, 'a-thief'),
      });
      expectMobileError(stolen, 400, 'RECEIPT_ALREADY_USED');
    },
  };
}

/** A test-store notification about A's verified purchase, signed by `app`'s test store. */
async function testStoreNotificationOf(app: TestApp): Promise<{ signedPayload: string }> {
  return mintTestNotification({
    appId: app.appId,
    privateKeyPem: (await getApp(app.appId))!.test_store_private_key!,
    type: 'refunded',
    latest: {
      transactionId: aVerifiedReceipt.transaction_id,
      originalTransactionId: aVerifiedReceipt.transaction_id,
      productId: 'premium_monthly',
      platform: 'ios',
      purchaseDate: new Date(Date.now() - 60_000),
      expiresDate: new Date(Date.now() + 86_400_000),
      price: 9.99,
      currency: 'USD',
      trial: false,
    },
    autoRenew: true,
  });
}

/** The notification routes take no key: the path names the app, and only that app's notifications are taken. */
const notificationCases: Record<string, IsolationCase> = {
  AppStoreNotification: {
    does: "Apple-signed data posted to B's path is refused (B takes no App Store notifications), and a transaction posing as a notification on A's path too",
    run: async () => {
      const signedPayload = Buffer.from(APPLE_RECEIPT, 'base64').toString('utf8');
      for (const appId of [b.appId, a.appId]) {
        expectSubscriptionError(
          await call('AppStoreNotification', { params: { app_id: appId }, body: { signedPayload } }),
          400,
          'INVALID_NOTIFICATION',
        );
      }
    },
  },
  GooglePlayNotification: {
    does: "a Pub/Sub push naming a purchase, posted to B's or A's path without their push settings and Google's token, is refused",
    run: async () => {
      const push = pushBody(
        {
          version: '1.0',
          packageName: 'com.app.qysmat',
          eventTimeMillis: String(Date.now()),
          subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: 'a-purchase-token-0001' },
        },
        '1000001',
      );
      for (const appId of [b.appId, a.appId]) {
        expectSubscriptionError(
          await call('GooglePlayNotification', {
            params: { app_id: appId },
            headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln' },
            body: push,
          }),
          400,
          'INVALID_NOTIFICATION',
        );
      }
    },
  },
  TestStoreNotification: {
    does: "A's test-store notification is refused on B's path and B's on A's; B's own about A's transaction id stays in B",
    run: async () => {
      const [ofA, ofB] = [await testStoreNotificationOf(a), await testStoreNotificationOf(b)];
      for (const [appId, body] of [
        [b.appId, ofA],
        [a.appId, ofB],
      ] as const) {
        expectSubscriptionError(
          await call('TestStoreNotification', { params: { app_id: appId }, body }),
          400,
          'INVALID_NOTIFICATION',
        );
      }
      // B's store may say anything about an id: B has no such purchase, so it is kept, in B's partitions only.
      const own = await ok(call('TestStoreNotification', { params: { app_id: b.appId }, body: ofB }));
      expect(own.body.data.outcome).toBe('kept');
    },
  },
};

/** The DingYue SDK's calls (lib/routes.ts DINGYUE_CALLS), each beside the case of the route it mirrors. */
const DINGYUE_CASES: Record<string, IsolationCase> = {
  // A_BUYER holds A's purchase and A has a boolean switch: B's launch of the same user id answers neither.
  DingYueReportSession: dingyueWriteCase(
    'DingYueReportSession',
    'report a launch',
    { body: { osVersion: 'iOS 17.5', device: 'b-phone', language: 'fr-FR' } },
    (res) => {
      expect(res.body.switchItems).toEqual([{ variableName: 'b_switch', variableValue: true }]);
      expect(res.body.globalSwitchItems.map((entry: { varName: string }) => entry.varName)).toEqual(['b_switch']);
      for (const ofA of ['a_flag', 'a_switch', A_ONLY.id, aVerifiedReceipt.transaction_id])
        expect(JSON.stringify(res.body)).not.toContain(ofA);
    },
  ),
  DingYueVerifyFirstReceipt: dingyueReceiptCase('DingYueVerifyFirstReceipt', (appleReceipt) => ({
    appleReceipt,
    platformProductId: 'premium_monthly',
    price: '9.99',
    currencyCode: 'USD',
    countryCode: 'US',
  })),
  DingYueRecoverReceipt: dingyueReceiptCase('DingYueRecoverReceipt', (appleReceipt) => ({ appleReceipt })),
  DingYueReportEvents: dingyueWriteCase('DingYueReportEvents', 'report events', {
    body: { events: [{ name: 'ENTER_PAYWALL', extra: '2.0', user: 'b-paywall', sessionId: A_SESSIONS[0] }] },
  }),
  DingYueReportTyped: dingyueWriteCase('DingYueReportTyped', 'report a device token', {
    params: { type: 'device_token' },
    body: 'b-device-token',
  }),
  DingYueUpdateUserAttributes: dingyueWriteCase('DingYueUpdateUserAttributes', 'update user attributes', {
    body: [
      { key: 'language', value: 'fr', type: 'string' },
      { key: 'uniqueUser.extraData.userPurchasedSources', value: 'b_source', type: 'string' },
    ],
  }),
  DingYueSetCustomProperties: dingyueWriteCase('DingYueSetCustomProperties', 'set custom properties', {
    body: { plan_tier: 'b_tier' },
  }),
  DingYueReportConversion: dingyueWriteCase('DingYueReportConversion', 'report a conversion value', {
    body: { conversionValue: 2, coarseValue: 'MEDIUM' },
  }),
  DingYueReportAttribution: dingyueWriteCase('DingYueReportAttribution', 'report attribution ids', {
    body: { appsFlyerId: 'b-appsflyer-id' },
  }),
  DingYueReportSearchAds: dingyueWriteCase('DingYueReportSearchAds', 'report Search Ads attribution', {
    body: { attribution: { 'Version3.1': { 'iad-attribution': 'false' } } },
  }),
  DingYueReportGlobalSwitch: dingyueWriteCase('DingYueReportGlobalSwitch', 'report a global switch', {
    body: { showName: 'A flag', varName: 'a_flag', value: false },
  }),
  DingYueSegmentInfo: {
    does: "app B's sdk key cannot read app A's users or segments through the DingYue SDK: 403 naming A, \"fail\" USER_NOT_FOUND for a user only A knows, B's segments only",
    run: async () => {
      expectDingYueFail(
        await call('DingYueSegmentInfo', { headers: mobileHeaders(b, A_SEGMENT, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      expectDingYueFail(
        await call('DingYueSegmentInfo', { headers: mobileHeaders(b, A_SEGMENT) }),
        200,
        'USER_NOT_FOUND',
      );
      // A_BUYER is German and gold in A; in B, a user of B's probes.
      for (const user of [B_USER, A_BUYER]) {
        const own = await ok(call('DingYueSegmentInfo', { headers: mobileHeaders(b, user) }));
        expect(own.body).toEqual({ status: 'ok', segmentList: expect.arrayContaining(['b_everyone']) });
        expect(own.body.segmentList).not.toContain('a_german_speakers');
        expect(own.body.segmentList).not.toContain('a_gold');
      }
    },
  },
};

/** What of A's a customer info answer must never carry. */
const secretsOfA = () => [A_QUIET, A_SEGMENT, 'a_pro', A_ONLY.id, a.appId, ...aIds()];

/** RevenueCat's SDK dialect: B's sdk key as the SDKs send it (Bearer), aimed at A's users and receipts. */
const revenuecatHeaders = (app: TestApp) => ({ authorization: `Bearer ${app.sdkKey}`, 'x-platform': 'iOS' });

function expectRevenueCatError(res: HttpResult, status: number, code: number, error: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { code, error, message: expect.any(String) },
  });
}

const REVENUECAT_CASES: Record<string, IsolationCase> = {
  RevenueCatCustomerInfo: {
    // A_BUYER (A's purchase) only: a read records the user in B, and other cases hold B to knowing none of A's other ids.
    does: "app B's sdk key reading A's buyer's id gets B's own new user: nothing of A's entitlements, purchases or ids",
    run: async () => {
      for (const user of [A_BUYER]) {
        const res = await ok(
          call('RevenueCatCustomerInfo', { params: { app_user_id: user }, headers: revenuecatHeaders(b) }),
        );
        expect(res.body.subscriber).toMatchObject({ subscriptions: {}, entitlements: {}, non_subscriptions: {} });
        const text = JSON.stringify(res.body);
        for (const secret of ['a_pro', A_ONLY.id, a.appId, ...aIds()]) expect(text).not.toContain(secret);
      }
    },
  },
  RevenueCatLogIn: {
    does: "app B's sdk key logging in from A's users' ids (an anonymous buyer's too) moves nothing of A's to B's user",
    run: async () => {
      for (const from of [A_ANONYMOUS, A_BUYER]) {
        const res = await call('RevenueCatLogIn', {
          body: { app_user_id: from, new_app_user_id: 'b-logged-in' },
          headers: revenuecatHeaders(b),
        });
        expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
        expect(res.body.subscriber).toMatchObject({ subscriptions: {}, entitlements: {}, non_subscriptions: {} });
        const text = JSON.stringify(res.body);
        for (const secret of ['a_pro', A_ONLY.id, a.appId, ...aIds()]) expect(text).not.toContain(secret);
      }
    },
  },
  RevenueCatPostAttributes: {
    does: "app B's sdk key setting attributes of A's buyer's id writes B's own user only: A's profile is unchanged",
    run: async () => {
      const res = await call('RevenueCatPostAttributes', {
        params: { app_user_id: A_BUYER },
        body: { attributes: { tier: { value: 'b-wrote-this', updated_at_ms: 1 } } },
        headers: revenuecatHeaders(b),
      });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    },
  },
  RevenueCatOfferings: {
    does: "app B's sdk key reading offerings for A's users gets B's offerings only: none of A's",
    run: async () => {
      for (const user of [A_BUYER, A_ANONYMOUS]) {
        const res = await ok(
          call('RevenueCatOfferings', { params: { app_user_id: user }, headers: revenuecatHeaders(b) }),
        );
        const text = JSON.stringify(res.body);
        for (const secret of ['a_pro', A_ONLY.id, a.appId, ...aIds()]) expect(text).not.toContain(secret);
      }
    },
  },
  RevenueCatIntroEligibility: {
    does: "app B's sdk key asking intro eligibility of A's buyer decides by B's user only: none of A's trials",
    run: async () => {
      const res = await ok(
        call('RevenueCatIntroEligibility', {
          params: { app_user_id: A_BUYER },
          body: { product_identifiers: [PREMIUM_MONTHLY.id, A_ONLY.id], fetch_token: 'AQID' },
          headers: revenuecatHeaders(b),
        }),
      );
      expect(res.body).toEqual({ [PREMIUM_MONTHLY.id]: null, [A_ONLY.id]: null });
    },
  },
  RevenueCatRestoreEligibility: {
    does: "app B's sdk key cannot learn who owns A's purchases: A's receipts are invalid in B (7103), whoever asks",
    run: async () => {
      for (const receipt of [aVerifiedReceipt, aUnusedReceipt]) {
        for (const user of [A_BUYER, B_USER]) {
          expectRevenueCatError(
            await call('RevenueCatRestoreEligibility', {
              params: { app_user_id: user },
              body: { fetch_token: receipt.receipt_data },
              headers: revenuecatHeaders(b),
            }),
            400,
            7103,
            'INVALID_RECEIPT',
          );
        }
      }
    },
  },
  RevenueCatPostOffers: {
    does: "app B's sdk key asking offers signed for A's buyer is answered from B's settings only (no In-App Purchase key: 7234)",
    run: async () => {
      const res = await ok(
        call('RevenueCatPostOffers', {
          body: {
            app_user_id: A_BUYER,
            generate_offers: [{ offer_id: 'a-winback', product_id: PREMIUM_MONTHLY.id, subscription_group: 'g' }],
          },
          headers: revenuecatHeaders(b),
        }),
      );
      expect(res.body).toEqual({
        offers: [
          {
            offer_id: 'a-winback',
            product_id: PREMIUM_MONTHLY.id,
            key_id: '',
            signature_error: { code: 7234, message: expect.any(String) },
          },
        ],
      });
    },
  },
  RevenueCatVirtualCurrencies: {
    does: "app B's sdk key reading A's buyer's virtual currencies gets none",
    run: async () => {
      const res = await ok(
        call('RevenueCatVirtualCurrencies', { params: { app_user_id: A_BUYER }, headers: revenuecatHeaders(b) }),
      );
      expect(res.body).toEqual({ virtual_currencies: {} });
    },
  },
  ...Object.fromEntries(
    (['RevenueCatPostAdServicesToken', 'RevenueCatPostAttribution'] as const).map((name): [string, IsolationCase] => [
      name,
      {
        does: `app B's sdk key posting ${name === 'RevenueCatPostAttribution' ? 'attribution' : 'an AdServices token'} for A's buyer gets {} and writes nothing of A's`,
        run: async () => {
          const res = await call(name, {
            params: { app_user_id: A_BUYER },
            body: { aad_attribution_token: 'b-wrote-this' },
            headers: revenuecatHeaders(b),
          });
          expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
        },
      },
    ]),
  ),
  RevenueCatHealthReportAvailability: {
    does: "the health report's availability of A's buyer, asked without a key, says no report and reads nothing of A's",
    run: async () => {
      const res = await call('RevenueCatHealthReportAvailability', { params: { app_user_id: A_BUYER } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { report_logs: false } });
    },
  },
  RevenueCatCustomerCenter: {
    does: "app B's sdk key reading the customer center for A's buyer gets B's support email, never A's",
    run: async () => {
      const res = await ok(
        call('RevenueCatCustomerCenter', { params: { app_user_id: A_BUYER }, headers: revenuecatHeaders(b) }),
      );
      expect((res.body as { customer_center: { support: { email: string } } }).customer_center.support.email).toBe('');
    },
  },
  RevenueCatHealth: {
    does: 'the health check, sent without a key, answers {} and reads nothing of any app',
    run: async () => {
      const res = await call('RevenueCatHealth', {});
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    },
  },
  RevenueCatWebProducts: {
    does: "app B's sdk key asking web products of A's users gets B's catalogue only: B's price of a shared id, none of A's own",
    run: async () => {
      const res = await ok(
        call('RevenueCatWebProducts', {
          params: { app_user_id: A_BUYER },
          query: { id: [A_ONLY.id, B_PREMIUM.id] },
          headers: { ...revenuecatHeaders(b), 'x-platform': 'web' },
        }),
      );
      const details = res.body.product_details as { identifier: string; title: string; purchase_options: unknown }[];
      expect(details.map((p) => [p.identifier, p.title])).toEqual([[B_PREMIUM.id, B_PREMIUM.name]]);
      expect(JSON.stringify(details)).toContain('"amount_micros":4990000');
      const text = JSON.stringify(res.body);
      for (const secret of [A_ONLY.id, a.appId, ...aIds()]) expect(text).not.toContain(secret);
    },
  },
  RevenueCatProductEntitlementMapping: {
    does: "app B's sdk key reads B's product-entitlement mapping: none of A's entitlements or products",
    run: async () => {
      const res = await ok(call('RevenueCatProductEntitlementMapping', { headers: revenuecatHeaders(b) }));
      const text = JSON.stringify(res.body);
      for (const secret of ['a_pro', A_ONLY.id, a.appId]) expect(text).not.toContain(secret);
    },
  },
  RevenueCatRemoteConfig: {
    does: "app B's sdk key posting RevenueCat's remote-config call gets a 204 and reads or writes nothing of A's",
    run: async () => {
      const res = await call('RevenueCatRemoteConfig', {
        params: { domain: 'paywalls' },
        body: { app_id: a.appId },
        headers: revenuecatHeaders(b),
      });
      expect(res.status).toBe(204);
    },
  },
  ...Object.fromEntries(
    ['RevenueCatPostEvents', 'RevenueCatPostDiagnostics'].map((name): [string, IsolationCase] => [
      name,
      {
        does: `app B's sdk key posting ${name === 'RevenueCatPostEvents' ? 'events' : 'diagnostics'} naming A's users gets {} and writes nothing of A's`,
        run: async () => {
          const res = await call(name, {
            body: { events: [{ app_user_id: A_BUYER, app_id: a.appId }] },
            headers: revenuecatHeaders(b),
          });
          expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
        },
      },
    ]),
  ),
  RevenueCatPostReceipt: {
    does: "app B's sdk key cannot claim app A's receipts: 7103 INVALID_RECEIPT in B, A's purchase stays A_BUYER's (7102)",
    run: async () => {
      for (const receipt of [aVerifiedReceipt, aUnusedReceipt]) {
        for (const user of [A_BUYER, B_USER]) {
          expectRevenueCatError(
            await call('RevenueCatPostReceipt', {
              body: { app_user_id: user, fetch_token: receipt.receipt_data, is_restore: true },
              headers: revenuecatHeaders(b),
            }),
            400,
            7103,
            'INVALID_RECEIPT',
          );
        }
      }
      expectRevenueCatError(
        await call('RevenueCatPostReceipt', {
          body: { app_user_id: 'a-thief', fetch_token: aVerifiedReceipt.receipt_data, is_restore: true },
          headers: revenuecatHeaders(a),
        }),
        400,
        7102,
        'RECEIPT_ALREADY_USED',
      );
    },
  },
};

const CASES: Record<string, IsolationCase> = {
  ...notificationCases,
  ...DINGYUE_CASES,
  ...REVENUECAT_CASES,
  ListWebhookDeliveries: {
    does: "app B's secret key lists B's webhook deliveries only, with or without a status filter",
    run: async () => {
      for (const query of [{}, { status: 'dead' }, { status: 'delivered' }, { limit: '100' }] as Record<
        string,
        string
      >[]) {
        const res = await ok(call('ListWebhookDeliveries', { ...secret(b), query }));
        const listed = (res.body.data as { event_id: string }[]).map((d) => d.event_id);
        expect(listed.length, JSON.stringify(query)).toBeGreaterThan(0);
        for (const id of listed) expect(bDeliveries).toContain(id);
        for (const id of aDeliveries) expect(JSON.stringify(res.body)).not.toContain(id);
      }
    },
  },
  RedeliverWebhook: {
    does: "app B's secret key cannot redeliver app A's events (404 DELIVERY_NOT_FOUND, A's deliveries unchanged)",
    run: async () => {
      for (const id of aDeliveries)
        expectSubscriptionError(
          await call('RedeliverWebhook', { ...secret(b), params: { event_id: id } }),
          404,
          'DELIVERY_NOT_FOUND',
        );
    },
  },
  ListCustomers: {
    does: "app B's secret key finds B's customers only: every id it lists is B's, none that only A knows",
    run: async () => {
      // User ids are the app's own: B may have a user of the same id as one of A's (a case below grants one).
      const onlyA: string[] = [];
      for (const user of [A_BUYER, A_QUIET, A_SEGMENT])
        if ((await call('GetCustomer', { ...secret(b), params: { user_id: user } })).status === 404) onlyA.push(user);
      expect(onlyA.length).toBeGreaterThan(0);
      for (const query of [{}, { prefix: 'a-' }, { prefix: A_QUIET }, { prefix: 'b-' }] as Record<string, string>[]) {
        const res = await ok(call('ListCustomers', { ...secret(b), query }));
        const listed = (res.body.data as { user_id: string }[]).map((c) => c.user_id);
        for (const user of onlyA) expect(listed, JSON.stringify(query)).not.toContain(user);
        for (const user of listed) await ok(call('GetCustomer', { ...secret(b), params: { user_id: user } }));
        if (query.prefix === undefined || query.prefix === 'b-') expect(listed).toContain(B_USER);
      }
    },
  },
  GetCustomer: {
    does: "app B's secret key cannot read app A's customers (404 CUSTOMER_NOT_FOUND), and sees B's entitlements only",
    run: async () => {
      for (const user of [A_QUIET, A_SEGMENT]) {
        const res = await call('GetCustomer', { ...secret(b), params: { user_id: user } });
        expectSubscriptionError(res, 404, 'CUSTOMER_NOT_FOUND');
        expect(JSON.stringify(res.body)).not.toContain('a_pro');
      }
      const own = await ok(call('GetCustomer', { ...secret(b), params: { user_id: B_USER } }));
      expect(Object.keys(own.body.data.entitlements)).toEqual(['b_pro']);
      expect(own.body.data.entitlements.b_pro.active).toBe(true);
      for (const s of own.body.data.subscriptions) expect(bSubs).toContain(s.id);
      for (const secretOfA of secretsOfA()) expect(JSON.stringify(own.body)).not.toContain(secretOfA);
    },
  },
  DeleteCustomer: {
    does: "app B's secret key cannot erase app A's users: B knows none of them (200, nothing removed), A's data unchanged",
    run: async () => {
      for (const user of [A_QUIET, A_SEGMENT]) {
        const res = await ok(call('DeleteCustomer', { ...secret(b), params: { user_id: user } }));
        expect(res.body.data).toEqual({
          user_id: user,
          status: 'erased',
          removed: {
            profile: 0,
            events: 0,
            sessions: 0,
            orders: 0,
            reports: 0,
            grants: 0,
            webhook_events: 0,
            subscriptions_detached: 0,
          },
        });
      }
    },
  },
  GrantEntitlement: {
    does: "app B's secret key cannot grant app A's entitlements (404 ENTITLEMENT_NOT_FOUND); its own grant to A's user id lands in B",
    run: async () => {
      for (const user of [A_QUIET, A_BUYER]) {
        const res = await call('GrantEntitlement', {
          ...secret(b),
          params: { user_id: user, entitlement_id: 'a_pro' },
          body: { duration: 'P1M' },
        });
        expectSubscriptionError(res, 404, 'ENTITLEMENT_NOT_FOUND');
      }
      // A_BUYER is a user id B's probes already write into B; A_QUIET must stay unknown to B.
      const own = await ok(
        call('GrantEntitlement', {
          ...secret(b),
          params: { user_id: A_BUYER, entitlement_id: 'b_pro' },
          body: { duration: 'P7D' },
        }),
      );
      // A new grant: nothing of A's grant of its own entitlement was extended.
      expect(own.body.data).toMatchObject({ user_id: A_BUYER, entitlement_id: 'b_pro', active: true });
      const customer = await ok(call('GetCustomer', { ...secret(b), params: { user_id: A_BUYER } }));
      expect(Object.keys(customer.body.data.entitlements)).toEqual(['b_pro']);
      expect(customer.body.data.entitlements.b_pro).toMatchObject({ active: true, period_type: 'grant' });
    },
  },
  RevokeEntitlement: {
    does: "app B's secret key cannot revoke app A's grants: A's entitlement is a 404, B's own finds no grant of A's user",
    run: async () => {
      expectSubscriptionError(
        await call('RevokeEntitlement', { ...secret(b), params: { user_id: A_QUIET, entitlement_id: 'a_pro' } }),
        404,
        'ENTITLEMENT_NOT_FOUND',
      );
      const none = await ok(
        call('RevokeEntitlement', { ...secret(b), params: { user_id: A_QUIET, entitlement_id: 'b_pro' } }),
      );
      expect(none.body).toEqual({ data: { revoked: false, grant: null } });
    },
  },
  ...bothVersions('CustomerInfo', (name) => ({
    does: "app B's sdk key cannot read app A's users' customer info: 403 naming A, 404 USER_NOT_FOUND for A's users, B's entitlements only",
    run: async () => {
      expectMobileError(
        await call(name, { headers: mobileHeaders(b, A_SEGMENT, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      for (const user of [A_QUIET, A_SEGMENT])
        expectMobileError(await call(name, { headers: mobileHeaders(b, user) }), 404, 'USER_NOT_FOUND');
      const own = await ok(call(name, { headers: mobileHeaders(b, B_USER) }));
      expect(Object.keys(own.body.data.entitlements)).toEqual(['b_pro']);
      for (const s of own.body.data.subscriptions) expect(bSubs).toContain(s.id);
      for (const secretOfA of secretsOfA()) expect(JSON.stringify(own.body)).not.toContain(secretOfA);
    },
  })),
  ListSubscriptions: {
    does: "app B's secret key lists and counts only app B's subscriptions, whatever filter or cursor names app A's data",
    run: async () => {
      const all = await ok(call('ListSubscriptions', { ...secret(b), query: { limit: 100 } }));
      const ids: string[] = all.body.data.map((s: { id: string }) => s.id);
      expect(new Set(ids)).toEqual(bSubs);
      expect(all.body.pagination).toMatchObject({ total: bSubs.size });
      const filters: Record<string, string>[] = [
        { user_id: A_QUIET },
        { user_id: A_SEGMENT },
        { product_id: A_ONLY.id },
        { status: 'paused' },
        { status: 'cancelled' },
        { status: 'expired' },
      ];
      for (const query of filters) {
        const res = await ok(call('ListSubscriptions', { ...secret(b), query }));
        expect(res.body, JSON.stringify(query)).toEqual({
          data: [],
          pagination: { page: 1, limit: 20, total: 0, pages: 0, next_cursor: null },
        });
      }
      // A cursor issued to A, replayed by B: at most B's own subscriptions.
      const aPage = await ok(call('ListSubscriptions', { ...secret(a), query: { limit: 2 } }));
      expect(aPage.body.pagination.next_cursor).toEqual(expect.any(String));
      const replayed = await ok(
        call('ListSubscriptions', { ...secret(b), query: { limit: 2, cursor: aPage.body.pagination.next_cursor } }),
      );
      for (const s of replayed.body.data) expect(bSubs).toContain(s.id);
      expect(replayed.body.pagination.total).toBe(bSubs.size);
    },
  },
  CreateSubscription: {
    does: "app B's secret key creates only in B's catalogue: A's product is unknown, a shared product id takes B's price, A's transaction id binds nothing of A's",
    run: async () => {
      const body = { user_id: A_BUYER, platform: 'ios' };
      expectSubscriptionError(
        await call('CreateSubscription', { ...secret(b), body: { ...body, product_id: A_ONLY.id } }),
        404,
        'PRODUCT_NOT_FOUND',
      );
      // A's pending transaction id: in A it would answer A's record (200) or RECEIPT_ALREADY_USED.
      const created = await ok(
        call('CreateSubscription', {
          ...secret(b),
          body: { ...body, product_id: 'premium_monthly', transaction_id: A_PENDING_TXN },
        }),
        201,
      );
      expect(aIds()).not.toContain(created.body.data.id);
      bSubs.add(created.body.data.id);
      const detail = await ok(
        call('GetSubscription', { ...secret(b), params: { subscription_id: created.body.data.id } }),
      );
      expect(detail.body.data).toMatchObject({
        price: B_PREMIUM.price,
        product_info: { name: B_PREMIUM.name },
        usage_stats: { total_sessions: 0, features_used: 0 },
      });
    },
  },
  VerifyPurchase: {
    does: "app B's secret key cannot verify app A's receipts (test store or App Store), and A's purchases stay A's",
    run: async () => {
      for (const receipt of [aVerifiedReceipt, aUnusedReceipt]) {
        for (const body of [
          { user_id: A_BUYER },
          { user_id: B_USER },
          { user_id: A_BUYER, transaction_id: receipt.transaction_id },
        ]) {
          const res = await call('VerifyPurchase', {
            ...secret(b),
            body: { platform: 'ios', receipt_data: receipt.receipt_data, ...body },
          });
          expectSubscriptionError(res, 400, 'INVALID_RECEIPT');
        }
      }
      // A's App Store settings are A's: B has none, so the Apple transaction A verified cannot be verified by B.
      const apple = await call('VerifyPurchase', {
        ...secret(b),
        body: { platform: 'ios', receipt_data: APPLE_RECEIPT, user_id: A_BUYER },
      });
      expectSubscriptionError(apple, 400, 'VERIFICATION_FAILED');
      expect(apple.body.error.message).toContain('not configured');
      const stolen = await call('VerifyPurchase', {
        ...secret(a),
        body: { platform: 'ios', receipt_data: aVerifiedReceipt.receipt_data, user_id: 'a-thief' },
      });
      expectSubscriptionError(stolen, 400, 'RECEIPT_ALREADY_USED');
    },
  },
  RevenueStatistics: {
    does: "app B's revenue is B's own money and counts only, never A's, and A's product is unknown to it",
    run: async () => {
      const res = await ok(call('RevenueStatistics', { ...secret(b), query: TODAY }));
      expect(aViewBefore.revenue.body.data.total_revenue).not.toBe(bMoney.total); // the comparison below means something
      expect(res.body.data).toEqual({
        total_revenue: bMoney.total,
        currency: 'USD',
        period: { start: today, end: today },
        // B's one active subscription and one new purchase (A has three active ones and several purchases).
        breakdown: [
          { date: today, revenue: bMoney.total, subscriptions: 1, new_subscriptions: 1, renewals: bMoney.renewals },
        ],
        products: [{ product_id: 'premium_monthly', revenue: bMoney.total, percentage: 100 }],
        unconverted: [],
      });
      expectSubscriptionError(
        await call('RevenueStatistics', { ...secret(b), query: { ...TODAY, product_id: A_ONLY.id } }),
        404,
        'PRODUCT_NOT_FOUND',
      );
    },
  },
  SubscriptionMetrics: {
    does: "app B's metrics count B's one subscription at B's price, never A's",
    run: async () => {
      const res = await ok(call('SubscriptionMetrics', { ...secret(b), query: TODAY }));
      // The comparison below means something: A has four active subscriptions.
      expect(aViewBefore.metrics.body.data.breakdown[0].active_subscriptions).toBe(4);
      expect(res.body.data.breakdown).toEqual([
        {
          date: today,
          mrr: bMoney.total,
          active_subscriptions: 1,
          active_trials: 0,
          new_subscriptions: 1,
          churned: 0,
          trial_conversions: 0,
          trials_ended: 0,
          trial_conversion_rate: null,
          refunds: 0,
          unconverted_mrr: [],
        },
      ]);
    },
  },
  GetApp: {
    does: "app B's secret key reads app B alone: its name and webhook URL, nothing of A",
    run: async () => {
      const res = await ok(call('GetApp', secret(b)));
      expect(res.body.data).toMatchObject({ app_id: b.appId, webhook: { url: 'https://b.example.com/webhooks' } });
      for (const secretOfA of [a.appId, 'https://a.example.com/webhooks'])
        expect(JSON.stringify(res.body)).not.toContain(secretOfA);
    },
  },
  ListProducts: {
    does: "app B's secret key lists exactly B's catalogue, at B's prices",
    run: async () => {
      const res = await ok(call('ListProducts', secret(b)));
      expect(res.body).toEqual({ data: expect.arrayContaining([B_PREMIUM, B_ONLY]) });
      expect(res.body.data).toHaveLength(2);
    },
  },
  GetSubscription: {
    does: "app B's secret key cannot read any of app A's subscriptions (404 SUBSCRIPTION_NOT_FOUND, nothing of A in the body)",
    run: async () => {
      for (const id of aIds()) {
        const res = await call('GetSubscription', { ...secret(b), params: { subscription_id: id } });
        expectSubscriptionError(res, 404, 'SUBSCRIPTION_NOT_FOUND');
        for (const secretOfA of [A_BUYER, A_QUIET, A_SEGMENT, a.appId, aVerifiedReceipt.transaction_id])
          expect(JSON.stringify(res.body)).not.toContain(secretOfA);
      }
    },
  },
  GetSubscriptionHistory: {
    does: "app B's secret key cannot read the history of any of app A's subscriptions (404 SUBSCRIPTION_NOT_FOUND, nothing of A in the body)",
    run: async () => {
      for (const id of aIds()) {
        for (const query of [{}, { limit: '1' }] as Record<string, string>[]) {
          const res = await call('GetSubscriptionHistory', { ...secret(b), params: { subscription_id: id }, query });
          expectSubscriptionError(res, 404, 'SUBSCRIPTION_NOT_FOUND');
          for (const secretOfA of [A_BUYER, A_QUIET, A_SEGMENT, a.appId, aVerifiedReceipt.transaction_id])
            expect(JSON.stringify(res.body)).not.toContain(secretOfA);
        }
      }
    },
  },
  UpdateSubscription: lifecycleCase('UpdateSubscription', 'change', {
    status: 'cancelled',
    auto_renew: false,
    cancellation_reason: 'b_was_here',
  }),
  CancelSubscription: lifecycleCase('CancelSubscription', 'cancel', {
    immediate: true,
    refund: true,
    reason: 'b_was_here',
  }),
  PauseSubscription: lifecycleCase('PauseSubscription', 'pause', { pause_duration: 3 }),
  ResumeSubscription: lifecycleCase('ResumeSubscription', 'resume', undefined),
  RenewSubscription: {
    does: "app B's secret key cannot renew app A's subscriptions, and A's renewal transaction id is free in B (not bound into A)",
    run: async () => {
      await lifecycleCase('RenewSubscription', 'renew', { transaction_id: 'b-renewal' }).run();
      // In A this transaction id already pays for a subscription (RECEIPT_ALREADY_USED there); B's namespace is its own.
      const renewed = await ok(
        call('RenewSubscription', {
          ...secret(b),
          params: { subscription_id: bActive },
          body: { transaction_id: A_RENEW_TXN },
        }),
      );
      expect(renewed.body.data.payment_info.transaction_id).toBe(A_RENEW_TXN);
      bMoney.total = Math.round((bMoney.total + B_PREMIUM.price) * 100) / 100;
      bMoney.renewals += 1;
      expect(await getItem(keys.transaction(b.appId, A_RENEW_TXN))).toMatchObject({ subscription_id: bActive });
    },
  },

  VerifyFirstReceipt: mobileReceiptCase('VerifyFirstReceipt', (receipt) => ({ receipt, productId: 'premium_monthly' })),
  RecoverReceipt: mobileReceiptCase('RecoverReceipt', (receipt) => ({ receipt })),
  ...bothVersions('ReportEvents', (name, i) =>
    mobileWriteCase(
      name,
      'report events',
      {
        body: {
          events: [
            {
              name: 'feature_used',
              user: A_BUYER,
              sessionId: A_SESSIONS[i],
              extra: { feature_name: `b_feature_${i}` },
            },
          ],
        },
      },
      (res) => expect(res.body.data).toEqual({ accepted: 1 }),
    ),
  ),
  // A's own session and order ids: "already recorded" would reveal that A has them.
  ...bothVersions('ReportSession', (name, i) =>
    mobileWriteCase(
      name,
      'report sessions',
      { body: { sessionId: A_SESSIONS[i], startTime: Date.now(), duration: 5 } },
      (res) => expect(res.body.message).toBe('Session recorded'),
    ),
  ),
  ...bothVersions('ReportOrder', (name, i) =>
    mobileWriteCase(
      name,
      'report orders',
      { body: { orderId: A_ORDERS[i], productId: 'premium_monthly', price: 1, currency: 'USD' } },
      (res) => expect(res.body.message).toBe('Order recorded'),
    ),
  ),
  ...bothVersions('ReportConversion', (name) =>
    mobileWriteCase(name, 'report conversions', { body: { conversionType: 'b_conversion', value: 2 } }),
  ),
  ...bothVersions('ReportGlobalSwitch', (name) =>
    mobileWriteCase(name, 'set the global switch', { body: { enabled: false, reason: 'b' } }),
  ),
  ...bothVersions('ReportTyped', (name) =>
    mobileWriteCase(name, 'send typed reports', { params: { type: 'device_info' }, body: { model: 'b-phone' } }),
  ),
  ...bothVersions('UpdateUserAttributes', (name) =>
    mobileWriteCase(name, 'update user attributes', { body: { language: 'fr', email: null } }),
  ),
  ReportAttribution: mobileWriteCase('ReportAttribution', 'report attribution', {
    body: { network: 'b_network', data: { campaign: 'b_campaign' } },
  }),
  ReportSearchAds: mobileWriteCase('ReportSearchAds', 'report Search Ads attribution', {
    body: { attribution: { 'Version3.1': { 'iad-attribution': 'false' } } },
  }),
  // A_BUYER has three custom properties in A; B's count must see only the one B set.
  SetCustomProperties: mobileWriteCase(
    'SetCustomProperties',
    'set custom properties',
    { body: { properties: { plan_tier: 'b_tier' } } },
    (res) => expect(res.body.data).toEqual({ properties: 1 }),
  ),
  ListOfferings: {
    does: "app B's secret key reads what app B shows alone: none of A's offerings, placements or switches",
    run: async () => {
      const res = await ok(call('ListOfferings', secret(b)));
      expect(res.body.data).toMatchObject({ current_offering_id: null, offerings: [], placements: [], paywalls: [] });
      expect(res.body.data.switches.map((entry: { key: string }) => entry.key)).toEqual(['b_switch']);
      for (const ofA of ['a_offering', 'a_switch', 'a-headline', 'a_paywall', a.appId])
        expect(JSON.stringify(res.body)).not.toContain(ofA);
    },
  },
  GetCustomerOfferings: {
    does: "app B's secret key, asking about A's users, gets what B would show them: B's switches and segments, nothing of A",
    run: async () => {
      for (const user of [A_QUIET, A_SEGMENT, B_USER]) {
        const res = await ok(call('GetCustomerOfferings', { ...secret(b), params: { user_id: user } }));
        expect(Object.keys(res.body.data.switches)).toEqual(['b_switch']);
        expect(res.body.data.segments).not.toContain('a_gold');
        for (const ofA of ['a_offering', 'a_placement', 'a_switch', 'a_paywall'])
          expect(JSON.stringify(res.body)).not.toContain(ofA);
      }
    },
  },
  ...bothVersions('UserOfferings', (name) => ({
    does: "app B's sdk key cannot read what app A shows: 403 naming A, B's own offerings and switches for any user id",
    run: async () => {
      expectMobileError(
        await call(name, { headers: mobileHeaders(b, A_SEGMENT, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      for (const user of [A_SEGMENT, B_USER]) {
        const res = await ok(call(name, { headers: mobileHeaders(b, user) }));
        expect(Object.keys(res.body.data.switches)).toEqual(['b_switch']);
        expect(res.body.data.offerings).toEqual([]);
        for (const ofA of ['a_offering', 'a_switch', 'a_gold', 'a_paywall'])
          expect(JSON.stringify(res.body)).not.toContain(ofA);
      }
    },
  })),
  SegmentInfo: {
    does: "app B's sdk key cannot read app A's users or segments: 403 naming A, 404 USER_NOT_FOUND for a user only A knows, B's segments only",
    run: async () => {
      expectMobileError(
        await call('SegmentInfo', { headers: mobileHeaders(b, A_SEGMENT, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      expectMobileError(await call('SegmentInfo', { headers: mobileHeaders(b, A_SEGMENT) }), 404, 'USER_NOT_FOUND');
      const own = await ok(call('SegmentInfo', { headers: mobileHeaders(b, B_USER) }));
      const ids: string[] = own.body.data.segments.map((s: { id: string }) => s.id);
      expect(ids).toContain('b_everyone');
      expect(ids).not.toContain('a_german_speakers');
      expect(ids).not.toContain('a_gold');
    },
  },
  AdsInfo: {
    does: "app B's sdk key never gets app A's ad configuration or A's users' attribution: A's app id is a 403 in the header or the path",
    run: async () => {
      const forA = { platform: 'ios', app_id: a.appId, store_id: '1234567' };
      expectMobileError(
        await call('AdsInfo', { params: forA, headers: mobileHeaders(b, A_SEGMENT, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      expectMobileError(
        await call('AdsInfo', { params: forA, headers: mobileHeaders(b, A_SEGMENT) }),
        403,
        'FORBIDDEN',
      );
      const own = await ok(
        call('AdsInfo', { params: { ...forA, app_id: b.appId }, headers: mobileHeaders(b, A_SEGMENT) }),
      );
      expect(own.body.data).toEqual({
        platform: 'ios',
        app_id: b.appId,
        store_id: '1234567',
        user: { user_id: A_SEGMENT, attribution: { first: null, latest: null } },
        networks: [{ name: 'b_network', enabled: true, settings: { unit: 'b-unit' } }],
      });
    },
  },
};

/** Path parameters for any route, by parameter name: A's ids wherever an id goes. */
function anyParams(route: Route, appId: string): Record<string, string> {
  const values: Record<string, string> = {
    subscription_id: aSubs.active,
    user_id: A_QUIET,
    entitlement_id: 'a_pro',
    type: 'device_info',
    platform: 'ios',
    app_id: appId,
    store_id: '1234567',
    event_id: aDeliveries[0]!,
  };
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g))
    if (!(name! in values)) throw new Error(`no sample value for path parameter ${name} of ${route.name}`);
  return values;
}

// ---------------------------------------------------------------------------------------------

describe("tenant isolation: app B's keys against app A's data", () => {
  beforeAll(async () => {
    await createOwnTable();
    await setUpAppA();
    await setUpAppB();
    aViewBefore = await viewOfA();
    aItemsBefore = itemsOf(await scanTable(), a.appId);
  }, 180_000);

  it('app A holds every kind of app-scoped item (catalogue, config, subscriptions, bindings, counters, revenue, profile, reports)', async () => {
    const expected: TableKey[] = [
      keys.app(a.appId),
      keys.product(a.appId, A_ONLY.id),
      keys.webhook(a.appId),
      keys.delivery(aDeliveries[0]!),
      keys.storeSettings(a.appId, 'app_store'),
      keys.segments(a.appId),
      keys.adsConfig(a.appId),
      keys.subscription(a.appId, aSubs.verified),
      keys.subscriptionPayment(a.appId, aSubs.verified),
      historyKey(a.appId, aSubs.verified, 1),
      keys.transaction(a.appId, A_RENEW_TXN),
      keys.transaction(a.appId, A_PENDING_TXN),
      keys.purchase(a.appId, aVerifiedReceipt.transaction_id),
      listCountCell(a.appId, {}).key,
      keys.revenue(a.appId, today, 'premium_monthly', 'USD'),
      keys.userProfile(a.appId, A_BUYER),
      grantKey(a.appId, A_QUIET, 'a_pro'),
      reportKeys.reportedSession(a.appId, A_BUYER, A_SESSIONS[0]!),
      reportKeys.reportedOrder(a.appId, A_BUYER, A_ORDERS[0]!),
    ];
    for (const key of expected) expect(aItemsBefore, `${key.pk} | ${key.sk}`).toHaveProperty([`${key.pk} | ${key.sk}`]);
    const partitions = Object.keys(aItemsBefore).map((key) => key.split(' | ')[0]);
    expect(partitions).toContain(reportKeys.reportedEvent(a.appId, A_BUYER, 'x').pk);
    expect(partitions).toContain(reportKeys.reportHistory(a.appId, A_BUYER, 'conversion', '', '').pk);
    expect(aViewBefore.details.map((d) => d.body.data.status).sort()).toEqual([
      'active',
      'active',
      'active',
      'active',
      'cancelled',
      'expired',
      'paused',
      'pending_verification',
    ]);
    expect(aViewBefore.revenue.body.data.total_revenue).toBeGreaterThan(0);
    // Each subscription's history holds its creation at least: B's probes below must leave it as it is.
    for (const history of aViewBefore.histories) expect(history.body.data.at(-1)).toMatchObject({ version: 1 });
  });

  it('every route in lib/routes.ts has an isolation case, and every case is a route', () => {
    expect(Object.keys(CASES).sort()).toEqual(ROUTES.map((route) => route.name).sort());
  });

  for (const route of ROUTES) {
    const testCase = CASES[route.name];
    it(`${route.name}: ${testCase?.does ?? 'has no isolation case (add one to CASES)'}`, async () => {
      expect(testCase, `${route.method} ${route.path} needs an isolation case`).toBeDefined();
      called.clear();
      await expectWritesConfinedTo(b.appId, testCase!.run);
      expect([...called], `the case of ${route.name} must call it`).toContain(route.name);
    });
  }

  it("app B's sdk key is refused (401 INVALID_API_KEY) by every subscription route, even aimed at A's ids", async () => {
    const routes = ROUTES.filter((route) => route.api === 'subscriptions');
    await expectWritesConfinedTo(null, async () => {
      for (const route of routes) {
        const res = await call(route.name, {
          bearer: b.sdkKey,
          params: anyParams(route, a.appId),
          body: route.method === 'GET' ? undefined : {},
        });
        expectSubscriptionError(res, 401, 'INVALID_API_KEY');
      }
    });
    expect(routes.length).toBeGreaterThan(0);
  });

  it("app B's secret key is refused (401 INVALID_API_KEY) by every mobile route, with B's or A's X-APP-ID", async () => {
    const routes = ROUTES.filter((route) => route.api === 'mobile');
    await expectWritesConfinedTo(null, async () => {
      for (const route of routes) {
        for (const appId of [b.appId, a.appId]) {
          const res = await call(route.name, {
            headers: mobileHeaders(b, A_BUYER, { 'x-api-key': b.secretKey, 'x-app-id': appId }),
            params: anyParams(route, appId),
            body: route.method === 'GET' ? undefined : {},
          });
          (inDingYue(route) ? expectDingYueFail : expectMobileError)(res, 401, 'INVALID_API_KEY');
        }
      }
    });
    expect(routes.length).toBeGreaterThan(0);
  });

  it("app B's requests, refused or not, never count against app A's rate-limit windows", async () => {
    // The counters are left out of the snapshots (every request counts against its own key or user); here, whose is counted.
    const windowOf = async (key: TableKey) => {
      const item = await getItem(key);
      return item && { request_count: item.request_count, window_ends_at: item.window_ends_at };
    };
    const windowsOfA = () =>
      Promise.all([
        windowOf(keys.apiKey(sha256Hex(a.secretKey))),
        windowOf(keys.rateLimitWindow(a.appId, A_BUYER)),
        // The sdk key is only read: no counter on it.
        windowOf(keys.apiKey(sha256Hex(a.sdkKey))),
      ]);
    const before = await windowsOfA();
    expect(before.map((window) => window?.request_count !== undefined)).toEqual([true, true, false]); // used in setup
    const bBefore = await Promise.all([
      windowOf(keys.apiKey(sha256Hex(b.secretKey))),
      windowOf(keys.rateLimitWindow(b.appId, A_SEGMENT)),
    ]);
    for (let i = 0; i < 5; i++) {
      expectSubscriptionError(
        await call('GetSubscription', { ...secret(b), params: { subscription_id: aSubs.verified } }),
        404,
        'SUBSCRIPTION_NOT_FOUND',
      );
      expectMobileError(
        await call('SegmentInfo', { headers: mobileHeaders(b, A_BUYER, { 'x-app-id': a.appId }) }),
        403,
        'FORBIDDEN',
      );
      // A user id of A under B's own app id: counted for that user of B.
      expectMobileError(await call('SegmentInfo', { headers: mobileHeaders(b, A_SEGMENT) }), 404, 'USER_NOT_FOUND');
    }
    expect(await windowsOfA()).toEqual(before);
    const bAfter = await Promise.all([
      windowOf(keys.apiKey(sha256Hex(b.secretKey))),
      windowOf(keys.rateLimitWindow(b.appId, A_SEGMENT)),
    ]);
    expect(bAfter[0]).not.toEqual(bBefore[0]);
    expect(bAfter[1]).not.toEqual(bBefore[1]);
  });

  it('after every probe, each item of app A is exactly as it was (full-table scan, rate-limit counters aside)', async () => {
    expect(itemsOf(await scanTable(), a.appId)).toEqual(aItemsBefore);
  });

  it("app A's own keys read the same subscriptions, lists, counts, revenue, catalogue, segments and ads as before", async () => {
    expect(await viewOfA()).toEqual(aViewBefore);
  });

  describe('the other way round: app A cannot see app B', () => {
    it("app A's secret key cannot read, list, count or change app B's subscriptions", async () => {
      await expectWritesConfinedTo(a.appId, async () => {
        for (const id of bSubs) {
          expectSubscriptionError(
            await call('GetSubscription', { ...secret(a), params: { subscription_id: id } }),
            404,
            'SUBSCRIPTION_NOT_FOUND',
          );
          expectSubscriptionError(
            await call('GetSubscriptionHistory', { ...secret(a), params: { subscription_id: id } }),
            404,
            'SUBSCRIPTION_NOT_FOUND',
          );
          expectSubscriptionError(
            await call('CancelSubscription', {
              ...secret(a),
              params: { subscription_id: id },
              body: { immediate: true },
            }),
            404,
            'SUBSCRIPTION_NOT_FOUND',
          );
        }
        const listed = await ok(call('ListSubscriptions', { ...secret(a), query: { user_id: B_USER } }));
        expect(listed.body.pagination.total).toBe(0);
        expectSubscriptionError(
          await call('GetCustomer', { ...secret(a), params: { user_id: B_USER } }),
          404,
          'CUSTOMER_NOT_FOUND',
        );
        expectSubscriptionError(
          await call('RevenueStatistics', { ...secret(a), query: { ...TODAY, product_id: B_ONLY.id } }),
          404,
          'PRODUCT_NOT_FOUND',
        );
        const deliveries = await ok(call('ListWebhookDeliveries', { ...secret(a), query: { limit: '100' } }));
        expect((deliveries.body.data as { event_id: string }[]).map((d) => d.event_id).sort()).toEqual(
          [...aDeliveries].sort(),
        );
        for (const id of bDeliveries)
          expectSubscriptionError(
            await call('RedeliverWebhook', { ...secret(a), params: { event_id: id } }),
            404,
            'DELIVERY_NOT_FOUND',
          );
      });
    });

    it("app A's sdk key cannot read app B's users or ad configuration", async () => {
      await expectWritesConfinedTo(a.appId, async () => {
        expectMobileError(
          await call('SegmentInfo', { headers: mobileHeaders(a, B_USER, { 'x-app-id': b.appId }) }),
          403,
          'FORBIDDEN',
        );
        expectMobileError(await call('SegmentInfo', { headers: mobileHeaders(a, B_USER) }), 404, 'USER_NOT_FOUND');
        expectMobileError(await call('CustomerInfo', { headers: mobileHeaders(a, B_USER) }), 404, 'USER_NOT_FOUND');
        const forB = { platform: 'ios', app_id: b.appId, store_id: '1' };
        expectMobileError(await call('AdsInfo', { params: forB, headers: mobileHeaders(a, B_USER) }), 403, 'FORBIDDEN');
        expectMobileError(
          await call('ReportSession', {
            headers: mobileHeaders(a, B_USER, { 'x-app-id': b.appId }),
            body: { sessionId: 'x', startTime: 1, duration: 1 },
          }),
          403,
          'FORBIDDEN',
        );
      });
    });
  });
});
