/**
 * Issue #7, "Hostile input": the fuzzing of every route of one API, shared by the two test files
 * (one per API, so that they run in parallel, each with its own table). Requests are
 * authenticated with the app's real keys so that fuzzed input reaches validation and business
 * logic. For every answer: never a 5xx, the API's envelope with a code of lib/core/errors.ts (under
 * /dingyue the DingYue SDK's, whose refusals the caller can fix are a 200 `fail`), no trace of
 * internals, no prototype pollution in the (in-process) handlers, and a refused request writes
 * nothing: the table is scanned before and after each request.
 *
 * Import it after setting TABLE_NAME (vi.hoisted): it imports lib/.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import type { SubscriptionRecord } from '../../lib/data/subscription-items.js';
import { createDelivery, replaceDelivery } from '../../lib/data/webhooks.js';
import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../lib/domain/subscription-state.js';
import { isDingYuePath } from '../../lib/http/dingyue.js';
import { MAX_BODY_BYTES } from '../../lib/http/endpoint.js';
import type { ApiName } from '../../lib/http/envelopes.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { apiOfPath, compileRoutes, matchRoute, requestUrl } from '../../local/gateway.js';
import { DINGYUE_LAUNCH } from './dingyue-requests.js';
import { createTestApp, statusChange, type TestApp } from './fixtures.js';
import {
  type Alternatives,
  type Answer,
  alternativesFor,
  answerProblems,
  CONTENT_TYPES,
  encodeJson,
  type Hostile,
  headerName,
  headerValue,
  hostileBody,
  pathOf,
  pathSegment,
  queryName,
  queryValue,
} from './hostile-input.js';
import { recordTally } from './hostile-tally.js';
import { useGateway } from './http.js';
import { mobileHeaders } from './mobile.js';
import type { NotificationFixture } from './notification-requests.js';
import { createOwnTable } from './own-table.js';
import { mintReceipt } from './receipts.js';
import { seedSubscription } from './subscriptions.js';
import { diffSnapshots, isEmptyDiff, restoreSnapshot, snapshotTable, type TableSnapshot } from './table-snapshot.js';

/** Replay a failure with FUZZ_SEED=<the seed fast-check prints>; FUZZ_RUNS overrides the cases per route. */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

export interface Fixture {
  app: TestApp;
  other: TestApp;
  /** Subscription ids of the app in every status, and one of the other app. */
  subscriptions: Record<'active' | 'paused' | 'expired' | 'cancelled' | 'pending' | 'ofOtherApp', string>;
  /** Event ids of a webhook delivery of the app (dead) and of the other app. */
  deliveries: { dead: string; ofOtherApp: string };
  receipts: {
    verify: { receipt_data: string; transaction_id: string };
    first: string;
    recover: string;
    /** Already verified for OWNER: RECEIPT_ALREADY_USED for anyone else. */
    owned: string;
    ofOtherApp: string;
    ofOtherProduct: string;
    expired: string;
  };
  /** Set by the files that send the notification routes valid requests (test/support/notification-requests.ts). */
  notifications?: NotificationFixture;
}

export interface ValidRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Hostile;
}

const USER = 'fuzz-user';
const OWNER = 'owner-user';
const DAY = 86_400_000;

/** Values that pass validation but mean something else, by field, query or path parameter name. */
function alternativesOf(f: Fixture): Alternatives {
  const receipts = [
    f.receipts.owned,
    f.receipts.ofOtherApp,
    f.receipts.ofOtherProduct,
    f.receipts.expired,
    f.receipts.verify.receipt_data,
  ];
  const products = ['pro_yearly', 'retired_plan', 'no_such_product'];
  const iso = (offset: number) => new Date(Date.now() + offset).toISOString();
  return {
    user_id: [OWNER, 'another-user'],
    user: [OWNER, 'another-user'],
    product_id: products,
    productId: products,
    platformProductId: products,
    platform: ['ios', 'android', 'web', 'ANDROID'],
    currency: ['EUR', 'eur', 'XXX'],
    status: [...SUBSCRIPTION_STATUSES, 'pending'],
    receipt_data: receipts,
    receipt: receipts,
    appleReceipt: receipts,
    transaction_id: ['tx-of-nothing', f.receipts.verify.transaction_id],
    expires_at: [iso(-DAY), iso(400 * DAY), iso(0)],
    cancellation_date: [iso(-DAY), iso(DAY)],
    unit: ['days', 'weeks', 'months'],
    pause_duration: [1, 12, 52, 53, 365, 366],
    name: ['feature_used', 'x'.repeat(128)],
    timestamp: [Date.now() + 2 * DAY, 946_684_799_000, Math.floor(Date.now() / 1000)],
    startTime: [Math.floor(Date.now() / 1000), 946_684_799, Date.now() + 2 * DAY],
    // A session's seconds, and a grant's ISO 8601 duration.
    duration: [0, 604_800, 604_801, 'P0D', 'PT1S', 'P100Y', 'P101Y', 'P1.5D', '-P1D'],
    orderId: ['order-2', 'x'.repeat(256)],
    subscription_id: Object.values(f.subscriptions),
    app_id: [f.other.appId, 'app_0000000000000000'],
    store_id: ['-', 'x'.repeat(128)],
    type: ['app_info', 'global_switch', '__proto__', 'constructor', 'x'.repeat(64)],
    page: ['1', '2', '999999999'],
    limit: ['1', '100', '101'],
    group_by: ['day', 'week', 'month'],
    start_date: ['2025-03-31', '2020-01-01', '2025-02-29'],
    end_date: ['2025-01-01', '2030-12-31'],
    // The last: a history cursor's shape, of a subscription that is not the one asked about.
    cursor: ['eyJ4IjoxfQ', 'AAAA', 'eyJzIjoic3ViX3giLCJ2IjoxfQ'],
    event_id: [f.deliveries.ofOtherApp, 'evt_000000000000000000000000'],
    entitlement_id: ['pro', 'no_such_entitlement', '__proto__', 'PRO'],
  };
}

const notificationsOf = (f: Fixture): NotificationFixture => {
  if (!f.notifications)
    throw new Error('the notification routes need buildNotificationFixture (notification-requests.ts)');
  return f.notifications;
};

/** One valid request per route (as in the e2e tests): the seed that mutations start from. */
export const VALID: Record<string, (f: Fixture) => ValidRequest> = {
  ListSubscriptions: () => ({
    query: { limit: '10', status: 'active', platform: 'ios', product_id: 'premium_monthly' },
  }),
  CreateSubscription: () => ({
    body: {
      user_id: USER,
      product_id: 'premium_monthly',
      platform: 'ios',
      price: 4.99,
      currency: 'usd',
      transaction_id: 'tx-fuzz',
      receipt_data: 'cmVjZWlwdA==',
      auto_renew: true,
      trial_period: false,
    },
  }),
  VerifyPurchase: (f) => ({
    body: {
      platform: 'ios',
      receipt_data: f.receipts.verify.receipt_data,
      user_id: USER,
      transaction_id: f.receipts.verify.transaction_id,
    },
  }),
  RevenueStatistics: () => ({
    query: { start_date: '2025-01-01', end_date: '2025-03-31', group_by: 'week', product_id: 'premium_monthly' },
  }),
  SubscriptionMetrics: () => ({ query: { start_date: '2025-01-01', end_date: '2025-03-31', group_by: 'month' } }),
  ListProducts: () => ({}),
  GetApp: () => ({}),
  GetSubscription: (f) => ({ params: { subscription_id: f.subscriptions.active } }),
  GetSubscriptionHistory: (f) => ({ params: { subscription_id: f.subscriptions.active }, query: { limit: '10' } }),
  ListCustomers: () => ({ query: { prefix: OWNER.slice(0, 3), limit: '5' } }),
  GetCustomer: () => ({ params: { user_id: OWNER } }),
  ListOfferings: () => ({}),
  GetCustomerOfferings: () => ({ params: { user_id: OWNER }, query: { platform: 'ios' } }),
  ListWebhookDeliveries: () => ({ query: { limit: '10', status: 'dead' } }),
  RedeliverWebhook: (f) => ({ params: { event_id: f.deliveries.dead } }),
  DeleteCustomer: () => ({ params: { user_id: 'erased-user' } }),
  GrantEntitlement: () => ({ params: { user_id: OWNER, entitlement_id: 'pro' }, body: { duration: 'P1M' } }),
  RevokeEntitlement: () => ({ params: { user_id: OWNER, entitlement_id: 'pro' } }),
  UpdateSubscription: (f) => ({
    params: { subscription_id: f.subscriptions.active },
    body: { auto_renew: false, cancellation_reason: 'too expensive' },
  }),
  CancelSubscription: (f) => ({
    params: { subscription_id: f.subscriptions.active },
    body: { reason: 'too expensive', immediate: true, refund: true },
  }),
  RenewSubscription: (f) => ({
    params: { subscription_id: f.subscriptions.active },
    body: {
      transaction_id: 'tx-renewal',
      receipt_data: 'cmVuZXdhbA==',
      expires_at: new Date(Date.now() + 60 * 86_400_000).toISOString(),
    },
  }),
  PauseSubscription: (f) => ({
    params: { subscription_id: f.subscriptions.active },
    body: { pause_duration: 2, unit: 'weeks', reason: 'holiday' },
  }),
  ResumeSubscription: (f) => ({ params: { subscription_id: f.subscriptions.paused }, body: {} }),
  VerifyFirstReceipt: (f) => ({ body: { receipt: f.receipts.first, productId: 'premium_monthly' } }),
  RevenueCatCustomerInfo: () => ({ params: { app_user_id: USER } }),
  RevenueCatPostAttributes: () => ({
    params: { app_user_id: USER },
    body: { attributes: { tier: { value: 'gold', updated_at_ms: 1678307200000 } } },
  }),
  RevenueCatOfferings: () => ({ params: { app_user_id: USER } }),
  RevenueCatIntroEligibility: () => ({
    params: { app_user_id: USER },
    body: { product_identifiers: ['premium_monthly'], fetch_token: 'AQID' },
  }),
  RevenueCatRestoreEligibility: (f) => ({ params: { app_user_id: USER }, body: { fetch_token: f.receipts.first } }),
  RevenueCatVirtualCurrencies: () => ({ params: { app_user_id: USER } }),
  RevenueCatPostOffers: () => ({
    body: {
      app_user_id: USER,
      fetch_token: 'YW4gYXdlc29tZSBkaXNjb3VudA==',
      generate_offers: [{ offer_id: 'offerid', product_id: 'premium_monthly', subscription_group: 'sub_group' }],
    },
  }),
  RevenueCatPostAdServicesToken: () => ({ params: { app_user_id: USER }, body: { aad_attribution_token: 'asdf' } }),
  RevenueCatPostAttribution: () => ({ params: { app_user_id: USER }, body: { network: 1, data: {} } }),
  RevenueCatHealthReportAvailability: () => ({ params: { app_user_id: USER } }),
  RevenueCatCustomerCenter: () => ({ params: { app_user_id: USER } }),
  RevenueCatHealth: () => ({}),
  RevenueCatWebProducts: () => ({ params: { app_user_id: USER }, query: { id: 'premium_monthly' } }),
  RevenueCatProductEntitlementMapping: () => ({}),
  RevenueCatRemoteConfig: () => ({ params: { domain: 'paywalls' }, body: { etag: '' } }),
  RevenueCatPostEvents: () => ({ body: { events: [{ type: 'paywall_impression', id: 'e1' }] } }),
  RevenueCatPostDiagnostics: () => ({ body: { entries: [{ name: 'http_request_performed' }] } }),
  RevenueCatLogIn: () => ({ body: { app_user_id: `$RCAnonymousID:${'0'.repeat(32)}`, new_app_user_id: USER } }),
  RevenueCatPostReceipt: (f) => ({
    body: {
      app_user_id: USER,
      fetch_token: f.receipts.first,
      is_restore: false,
      product_id: 'premium_monthly',
      price: '9.99',
    },
  }),
  RecoverReceipt: (f) => ({ body: { receipt: f.receipts.recover } }),
  ...Object.fromEntries(
    (['', 'V2'] as const).flatMap((v) => [
      [
        `ReportEvents${v}`,
        () => ({
          body: {
            events: [
              {
                name: 'app_opened',
                user: USER,
                sessionId: 's-1',
                extra: { source: 'push', nested: { depth: [1, 2] } },
              },
              { eventName: 'screen_view', timestamp: Date.now() - 1000, properties: { screen_name: 'paywall' } },
            ],
          },
        }),
      ],
      [`ReportSession${v}`, () => ({ body: { sessionId: 's-1', startTime: Date.now() - 60_000, duration: 60 } })],
      [`CustomerInfo${v}`, () => ({})],
      [
        `ReportOrder${v}`,
        () => ({ body: { orderId: 'order-1', productId: 'premium_monthly', price: 9.99, currency: 'USD' } }),
      ],
      [`ReportConversion${v}`, () => ({ body: { conversionType: 'trial_started', value: 1.5 } })],
      [`ReportGlobalSwitch${v}`, () => ({ body: { enabled: true, features: { paywall: 'b', limits: [1, 2, 3] } } })],
      [
        `ReportTyped${v}`,
        () => ({
          params: { type: 'device_info' },
          body: { model: 'iPhone15,2', os: '18.1', screen: { w: 1179, h: 2556 } },
        }),
      ],
      [
        `UpdateUserAttributes${v}`,
        () => ({
          body: {
            email: 'ada@example.com',
            name: 'Ada',
            first_name: 'Ada',
            last_name: 'Lovelace',
            phone: '+14155550123',
            language: 'en',
            country: 'GB',
            gender: 'female',
            birthday: '1990-12-10',
            timezone: 'Europe/London',
          },
        }),
      ],
    ]),
  ),
  ReportAttribution: () => ({
    body: { network: 'appsflyer', data: { campaign_id: 'c-1', campaign_name: 'Spring', cost: 0.25 } },
  }),
  ReportSearchAds: () => ({
    body: {
      attribution: {
        'Version3.1': { 'iad-campaign-id': '123', 'iad-campaign-name': 'Spring', 'iad-attribution': 'true' },
      },
    },
  }),
  SegmentInfo: () => ({}),
  UserOfferings: () => ({}),
  UserOfferingsV2: () => ({}),
  AdsInfo: (f) => ({ params: { platform: 'ios', app_id: f.app.appId, store_id: '1234567' } }),
  SetCustomProperties: () => ({ body: { properties: { plan: 'gold', level: 3, beta: true, legacy: null } } }),
  // The DingYue SDK's calls (lib/schemas/dingyue.ts), as its encoders write them.
  DingYueReportSession: () => ({ body: DINGYUE_LAUNCH }),
  DingYueVerifyFirstReceipt: (f) => ({
    body: {
      appleReceipt: f.receipts.first,
      platformProductId: 'premium_monthly',
      price: '7.99',
      currencyCode: 'USD',
      countryCode: 'US',
    },
  }),
  DingYueRecoverReceipt: (f) => ({ body: { appleReceipt: f.receipts.recover } }),
  DingYueReportEvents: () => ({
    body: {
      events: [
        { name: 'ENTER_PAYWALL', extra: '2.0', user: 'paywall-1', sessionId: '3f0b7c2e-1a2b-4c3d-9e8f-0a1b2c3d4e5f' },
      ],
    },
  }),
  DingYueReportTyped: () => ({ params: { type: 'idfa' }, body: '6D92078A-8246-4BA4-AE5B-76104861E7DC' }),
  DingYueUpdateUserAttributes: () => ({
    body: [{ key: 'uniqueUser.extraData.userPurchasedSources', value: 'paywall:Summer/7306/2.0', type: 'string' }],
  }),
  DingYueSetCustomProperties: () => ({ body: { plan_tier: 'gold' } }),
  DingYueReportConversion: () => ({ body: { conversionValue: 1, coarseValue: 'LOW' } }),
  DingYueReportAttribution: () => ({ body: { appsFlyerId: '1690000000000-1234567' } }),
  DingYueReportSearchAds: () => ({
    body: {
      attribution: {
        'Version3.1': { 'iad-attribution': 'true', 'iad-campaign-id': '542370539' },
        rawData: { attribution: true },
      },
    },
  }),
  DingYueSegmentInfo: () => ({}),
  DingYueReportGlobalSwitch: () => ({ body: { showName: 'New onboarding', varName: 'new_onboarding', value: true } }),
  AppStoreNotification: (f) => ({ params: { app_id: f.app.appId }, body: notificationsOf(f).appStore }),
  GooglePlayNotification: (f) => ({
    params: { app_id: f.app.appId },
    body: notificationsOf(f).googlePlay.body as Hostile,
  }),
  TestStoreNotification: (f) => ({ params: { app_id: f.app.appId }, body: notificationsOf(f).testStore }),
};

interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  description: string;
  /** Invalid UTF-8 or nesting far past the limit in a request that is otherwise fine: must be a 400. */
  refuse: boolean;
}

/** fast-check prints counterexamples with this (2 MB of bytes would be unreadable). */
const printable = (c: Omit<FuzzCase, typeof fc.toStringMethod>): FuzzCase =>
  Object.assign(c, {
    [fc.toStringMethod]: () =>
      `${c.method} ${c.path.slice(0, 300)} (${c.description}) headers=${JSON.stringify(c.headers).slice(0, 500)} body=${c.body ? JSON.stringify(c.body.subarray(0, 300).toString('latin1')) : '-'}${c.body && c.body.length > 300 ? `... (${c.body.length} bytes)` : ''}`,
  });

/** Request line and headers kept within what Node's HTTP server (16 KiB) and API Gateway (10 KiB) accept. */
const MAX_REQUEST_HEAD_BYTES = 8 * 1024;

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function authHeaders(route: Route, f: Fixture): Record<string, string> {
  if (route.api === 'notifications') {
    // Only Google's push carries a token (Pub/Sub's OIDC); Apple's and the test store's are signed payloads.
    return route.name === 'GooglePlayNotification'
      ? { authorization: notificationsOf(f).googlePlay.authorization }
      : {};
  }
  if (route.api === 'revenuecat') return { authorization: `Bearer ${f.app.sdkKey}`, 'x-platform': 'iOS' };
  return route.api === 'subscriptions' ? { authorization: `Bearer ${f.app.secretKey}` } : mobileHeaders(f.app, USER);
}

function authVariants(api: ApiName, f: Fixture): fc.Arbitrary<Record<string, string | undefined>> {
  if (api === 'notifications') {
    const { googlePlay, pushAudience, standIn } = notificationsOf(f);
    const token = googlePlay.authorization.slice('Bearer '.length);
    const hour = Math.floor(Date.now() / 1000) - 7200;
    return fc
      .constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `bearer ${token}`,
        `Bearer ${token}x`,
        `Bearer ${token} ${token}`,
        `Basic ${token}`,
        `Bearer ${f.app.secretKey}`,
        `Bearer ${'k'.repeat(3000)}`,
        `Bearer ${standIn.pushToken({ audience: `${pushAudience}/other` })}`,
        `Bearer ${standIn.pushToken({ audience: pushAudience, email: 'someone@example.com' })}`,
        `Bearer ${standIn.pushToken({ audience: pushAudience, issuedAt: hour, expiresAt: hour + 3600 })}`,
        `Bearer ${standIn.pushToken({ audience: pushAudience, forgeSignature: true })}`,
        `Bearer ${standIn.pushToken({ audience: pushAudience, alg: 'none' })}`,
      )
      .map((authorization) => ({ authorization }));
  }
  /** Authorization headers that are not `Bearer <key>` of the right kind: the API's own key, the other kind's. */
  const bearerVariants = (key: string, wrongKind: string, more: string[]) =>
    fc
      .constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${wrongKind}`,
        `Basic ${key}`,
        `Bearer ${key}x`,
        `Bearer ${key} ${key}`,
        `Bearer ${'k'.repeat(3000)}`,
        ...more,
      )
      .map((authorization) => ({ authorization }));
  if (api === 'revenuecat') {
    const key = f.app.sdkKey;
    return bearerVariants(key, f.app.secretKey, [`Bearer rcb_rcb_${key}`, 'Bearer rcb_', 'Bearer pk_']);
  }
  if (api === 'subscriptions') {
    const key = f.app.secretKey;
    return bearerVariants(key, f.app.sdkKey, [
      `bearer ${key}`,
      `Bearer  ${key}  `,
      `Bearer ${f.other.secretKey}`,
      'Bearer sk_',
      `Token ${key}`,
    ]);
  }
  return fc.oneof(
    fc
      .constantFrom(
        undefined,
        '',
        ' ',
        f.app.secretKey,
        f.other.sdkKey,
        `${f.app.sdkKey} `,
        `${f.app.sdkKey}x`,
        'pk_',
        'k'.repeat(3000),
      )
      .map((key) => ({ 'x-api-key': key })),
    fc.constantFrom(f.other.appId, '', 'app_0000000000000000', '__proto__').map((appId) => ({ 'x-app-id': appId })),
  );
}

function queryString(entries: [string, string][]): string {
  const search = new URLSearchParams();
  for (const [name, value] of entries) search.append(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Every way a request to `route` is fuzzed: mostly its body, less often headers, query, path and method. */
function casesFor(route: Route, f: Fixture): fc.Arbitrary<FuzzCase> {
  const valid = VALID[route.name]!(f);
  const params = Object.fromEntries(Object.entries(valid.params ?? {}).map(([k, v]) => [k, encodeURIComponent(v)]));
  const validQuery = Object.entries(valid.query ?? {});
  const path = pathOf(route, params);
  const headers = authHeaders(route, f);
  const validBody = valid.body === undefined ? undefined : encodeJson(valid.body);
  const base = (change: Partial<FuzzCase> & { description: string }): FuzzCase =>
    printable({
      method: route.method,
      path: `${path}${queryString(validQuery)}`,
      headers: { ...headers, ...(validBody ? { 'content-type': 'application/json' } : {}) },
      body: validBody,
      refuse: false,
      ...change,
    });
  const withHeaders = (changes: Record<string, string | undefined>, description: string) => {
    const merged: Record<string, string | undefined> = { ...base({ description }).headers, ...changes };
    return base({
      description,
      headers: Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<string, string>,
    });
  };

  const alternatives = alternativesOf(f);
  const bodies = hostileBody(valid.body ?? {}, alternatives).map((body) =>
    base({
      body: body.bytes,
      description: body.description,
      refuse: body.refuse,
      headers: { ...headers, 'content-type': 'application/json' },
    }),
  );
  const headerCases = fc.oneof(
    authVariants(route.api, f).map((changes) => withHeaders(changes, `auth ${JSON.stringify(changes).slice(0, 80)}`)),
    // The App Store's and the test store's notifications come with no header of their own.
    ...(Object.keys(headers).length > 0
      ? [
          fc
            .tuple(fc.constantFrom(...Object.keys(headers)), headerValue)
            .map(([name, value]) => withHeaders({ [name]: value }, `header ${name} replaced`)),
          fc
            .constantFrom(...Object.keys(headers))
            .map((name) => withHeaders({ [name]: undefined }, `header ${name} dropped`)),
        ]
      : []),
    fc
      .constantFrom(...CONTENT_TYPES)
      .map((type) => withHeaders({ 'content-type': type }, `content-type ${JSON.stringify(type)}`)),
    fc.tuple(headerName, headerValue).map(([name, value]) => withHeaders({ [name]: value }, `extra header ${name}`)),
  );
  const queryCases = fc
    .oneof(
      fc
        .tuple(fc.nat(), queryValue)
        .map(([i, value]): [string, string][] =>
          validQuery.length === 0
            ? [['x', value]]
            : validQuery.map(([k, v], j) => [k, j === i % validQuery.length ? value : v]),
        ),
      fc.nat().map((i): [string, string][] => validQuery.filter((_, j) => j !== i % Math.max(1, validQuery.length))),
      fc.tuple(queryName, queryValue).map(([name, value]): [string, string][] => [...validQuery, [name, value]]),
      fc.nat().map((i): [string, string][] =>
        validQuery.length === 0
          ? [
              ['page', '1'],
              ['page', '2'],
            ]
          : [...validQuery, validQuery[i % validQuery.length]!],
      ),
      fc.tuple(fc.nat(), fc.nat()).map(([i, pick]): [string, string][] => {
        // A valid-looking value that means something else (another status, page, date range...).
        if (validQuery.length === 0) return [['page', '1']];
        const [name] = validQuery[i % validQuery.length]!;
        const options = alternativesFor(alternatives, name);
        return validQuery.map(([k, v]) => [
          k,
          k === name && options.length > 0 ? String(options[pick % options.length]) : v,
        ]);
      }),
    )
    .map((entries) =>
      base({ path: `${path}${queryString(entries)}`, description: `query ${JSON.stringify(entries).slice(0, 120)}` }),
    );
  const rawQueries = fc
    .constantFrom(
      '?%zz=1',
      '?a=%',
      '?&&&',
      '?=x',
      '?a',
      '?%00=%00',
      '?__proto__[polluted]=yes',
      '?constructor=1&constructor=2',
      `?${'q'.repeat(3000)}=1`,
    )
    .map((query) => base({ path: `${path}${query}`, description: `raw query ${query.slice(0, 40)}` }));
  const paramNames = Object.keys(params);
  const pathCases = fc.oneof(
    ...(paramNames.length > 0
      ? [
          fc.tuple(fc.constantFrom(...paramNames), pathSegment).map(([name, segment]) =>
            base({
              path: pathOf(route, { ...params, [name]: segment }),
              description: `path parameter ${name}=${segment.slice(0, 60)}`,
            }),
          ),
          fc.tuple(fc.constantFrom(...paramNames), fc.nat()).map(([name, pick]) => {
            const options = alternativesFor(alternatives, name);
            const value =
              options.length > 0 ? encodeURIComponent(String(options[pick % options.length])) : params[name]!;
            return base({
              path: pathOf(route, { ...params, [name]: value }),
              description: `path parameter ${name}=${value.slice(0, 60)} (valid form)`,
            });
          }),
        ]
      : []),
    fc
      .constantFrom('/', '//', '/extra', '/..', '/%2e%2e', '/%00')
      .map((suffix) => base({ path: `${path}${suffix}`, description: `path suffix ${suffix}` })),
  );
  const methodCases = fc
    .constantFrom(...OTHER_METHODS.filter((m) => m !== route.method))
    .map((method) => base({ method, description: `method ${method}` }));

  const readsQuery = validQuery.length > 0;
  return (
    fc
      .oneof(
        { weight: route.method === 'GET' ? 3 : 12, arbitrary: bodies },
        { weight: 2, arbitrary: headerCases },
        { weight: readsQuery ? 6 : 1, arbitrary: queryCases },
        { weight: 1, arbitrary: rawQueries },
        { weight: paramNames.length > 0 ? 3 : 1, arbitrary: pathCases },
        { weight: 1, arbitrary: methodCases },
      )
      // Longer request lines and headers never reach a handler: Node answers 431 and API Gateway its own error.
      .filter(
        (c) =>
          Buffer.byteLength(c.path) + Object.entries(c.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) <=
          MAX_REQUEST_HEAD_BYTES,
      )
  );
}

/** `200`, or `400 INVALID_PARAMETER`: status and error code of an answer. */
function outcomeOf(answer: Answer): string {
  try {
    const body = JSON.parse(answer.text) as { code?: string; error?: { code?: string } };
    return [answer.status, body.error?.code ?? body.code].filter(Boolean).join(' ');
  } catch {
    return String(answer.status);
  }
}

/** The `status` member of a JSON answer (the DingYue SDK's "ok" or "fail"), if any. */
function statusOf(answer: Answer): unknown {
  try {
    return (JSON.parse(answer.text) as { status?: unknown }).status;
  } catch {
    return undefined;
  }
}

const COMPILED = compileRoutes(ROUTES);

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join();
const PROTOTYPE_KEYS = prototypeKeys();

/**
 * Fuzzes every route of `api` (runsPerRoute cases each, FUZZ_RUNS overrides), plus a few 2 MB
 * bodies, and records the number of cases for the run's tally (test/support/hostile-tally.ts).
 */
/** Apps, subscriptions in every status and receipts the valid requests of VALID refer to. */
export async function buildFixture(): Promise<Fixture> {
  const [app, other] = [await createTestApp(), await createTestApp([])];
  const mint = mintReceipt;
  const seed = async (status: SubscriptionStatus, owner = app, overrides: Partial<SubscriptionRecord> = {}) =>
    (await seedSubscription(owner.appId, { user_id: USER, status, ...overrides })).id;
  const now = Date.now();
  // What the grant routes grant and revoke.
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  const owned = (await mint(app)).receipt_data;
  await verifyPurchase(app.appId, { platform: 'ios', receipt_data: owned, user_id: OWNER });
  // The valid erasure's user is a subscriber: the erasure detaches the subscription and checks it before it ends.
  await seed('active', app, { user_id: 'erased-user' });
  const deadDelivery = async (owner: TestApp) => {
    const created = await createDelivery(statusChange(owner.appId), new Date());
    if (!created) throw new Error('a new event was already recorded');
    await replaceDelivery({ ...created, status: 'dead', attempts: 5, next_attempt_at: null }, 0, true);
    return created.event_id;
  };
  return {
    app,
    other,
    deliveries: { dead: await deadDelivery(app), ofOtherApp: await deadDelivery(other) },
    subscriptions: {
      active: await seed('active'),
      paused: await seed('paused', app, {
        paused_at: new Date(now).toISOString(),
        paused_until: new Date(now + 7 * DAY).toISOString(),
      }),
      expired: await seed('expired', app, { expires_at: new Date(now - DAY).toISOString() }),
      cancelled: await seed('cancelled', app, {
        cancelled_at: new Date(now).toISOString(),
        expires_at: new Date(now).toISOString(),
      }),
      pending: await seed('pending_verification'),
      ofOtherApp: await seed('active', other),
    },
    receipts: {
      verify: await mint(app),
      first: (await mint(app)).receipt_data,
      recover: (await mint(app)).receipt_data,
      owned,
      ofOtherApp: (await mint(other)).receipt_data,
      ofOtherProduct: (await mint(app, { product: 'pro_yearly' })).receipt_data,
      expired: (await mint(app, { expiresIn: -3600 })).receipt_data,
    },
  };
}

export function fuzzEveryRouteOf(
  api: ApiName,
  runsPerRoute: number,
  /** Completes the fixture before the baseline is taken (the notification routes' stores). */
  prepare?: (fixture: Fixture) => Promise<void>,
): void {
  const { send } = useGateway();
  const runs = Number(process.env.FUZZ_RUNS ?? runsPerRoute);
  let cases = 0;
  /** How far fuzzed input got: answers by status and code (printed, so a generator that never passes validation shows). */
  const outcomes = new Map<string, number>();
  let fixture: Fixture;
  let baseline: TableSnapshot;

  /** Sends one case and checks every property; a success is undone so the next case starts from the same table. */
  async function check(c: FuzzCase): Promise<Answer> {
    const answer: Answer = await send(c.method, c.path, { headers: c.headers, body: c.body });
    cases += 1;
    outcomes.set(outcomeOf(answer), (outcomes.get(outcomeOf(answer)) ?? 0) + 1);
    // A path that leaves the route (e.g. /v1/subscriptions/..) is answered by whichever API the normalised path names.
    const pathname = requestUrl(c.path).pathname;
    // A DingYue call that the request reached answers in that SDK's envelope (the gateway's 404 and 405 in ours).
    const reached = matchRoute(COMPILED, c.method, pathname)?.route;
    const dingyue = reached && isDingYuePath(reached.path) ? reached.name : undefined;
    const problems = answerProblems(apiOfPath(pathname), answer, c.method, dingyue);
    // Under /dingyue a refusal the caller can fix is a 200 `fail`: refused all the same.
    const failed = dingyue !== undefined && answer.status === 200 && statusOf(answer) === 'fail';
    if (dingyue) {
      if (c.refuse && !failed)
        problems.push(`expected a 200 "fail" for ${c.description}, got ${answer.status} ${statusOf(answer)}`);
    } else {
      // A notification route refuses a body over its 64 KB unread: a 413, whatever is wrong inside.
      const refusal = api === 'notifications' && (c.body?.length ?? 0) > MAX_NOTIFICATION_BYTES ? 413 : 400;
      if (c.refuse && answer.status !== refusal)
        problems.push(`expected a ${refusal} for ${c.description}, got ${answer.status}`);
    }
    if (prototypeKeys() !== PROTOTYPE_KEYS || ({} as Record<string, unknown>).polluted !== undefined)
      problems.push('Object.prototype was polluted');
    const after = await snapshotTable();
    const diff = diffSnapshots(baseline, after);
    if (!isEmptyDiff(diff)) {
      if (answer.status < 200 || answer.status >= 300 || failed)
        problems.push(`refused with ${outcomeOf(answer)} but wrote ${JSON.stringify(diff)}`);
      await restoreSnapshot(baseline, after);
    }
    if (problems.length > 0)
      throw new Error(`${problems.join('\n')}\nanswer ${answer.status}: ${answer.text.slice(0, 500)}`);
    return answer;
  }

  describe(`hostile input to every endpoint of the ${api} API`, () => {
    beforeAll(async () => {
      await createOwnTable();
      fixture = await buildFixture();
      await prepare?.(fixture);
      baseline = await snapshotTable();
    });

    afterAll(async () => {
      const byCount = [...outcomes].sort(([, a], [, b]) => b - a).map(([outcome, n]) => `${outcome}: ${n}`);
      console.log(
        `hostile input: ${cases} cases against the ${api} API (seed ${SEED}); answers: ${byCount.join(', ')}`,
      );
      await recordTally(api, cases, SEED);
    });

    it('fuzzes every route of lib/routes.ts (a new route needs a valid request here)', () => {
      expect(Object.keys(VALID).sort()).toEqual(ROUTES.map((route) => route.name).sort());
    });

    it.each(
      ROUTES.filter((route) => route.api === api).map((route) => [`${route.method} ${route.path}`, route] as const),
    )(
      '%s: never a 5xx, always the envelope, and a refusal writes nothing',
      async (_name, route) => {
        await fc.assert(
          fc.asyncProperty(casesFor(route, fixture), async (c) => {
            await check(c);
          }),
          { numRuns: runs, seed: SEED },
        );
      },
      120_000,
    );

    it('bodies of 2 MB (and of 1 MB + 1 byte) are refused whole, writing nothing', async () => {
      const route = ROUTES.find(
        (r) => r.api === api && r.method === 'POST' && (api === 'notifications' || !r.path.includes('{')),
      )!;
      const request = VALID[route.name]!(fixture);
      const path = pathOf(route, request.params ?? {});
      const valid = encodeJson(request.body!);
      const size = 2 * 1024 * 1024;
      const bodies = [
        Buffer.concat([valid.subarray(0, -1), Buffer.from(`,"padding":"${'x'.repeat(size)}"}`)]),
        Buffer.alloc(size, '['),
        Buffer.alloc(size, 0xff),
        Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(size, 'é'), Buffer.from('"}')]),
        Buffer.alloc(MAX_BODY_BYTES + 1, ' '),
      ];
      for (const [i, body] of bodies.entries()) {
        const headers = { ...authHeaders(route, fixture), 'content-type': 'application/json' };
        const answer = await check(
          printable({
            method: route.method,
            path,
            headers,
            body,
            description: `large body ${i}`,
            refuse: false,
          }),
        );
        // The mobile API states its limits as parameter rules (400); the subscription and notification APIs say 413.
        expect(answer.status, `large body ${i}`).toBe(api === 'mobile' ? 400 : 413);
      }
    });
  });
}
