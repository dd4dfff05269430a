/**
 * THE route table: every HTTP endpoint, the handler module that serves it, and the DynamoDB
 * actions that handler needs. The CDK api construct creates one API Gateway method per row and one
 * Lambda function per handler module (endpointFunctions: granting exactly `table` on the table),
 * integrated with each of its rows' methods; the local gateway serves the same rows in-process.
 * Only endpoints with a real handler are listed. Everything else about an endpoint (its schemas,
 * answers, error kinds, headers, user token) is the declaration its handler module exports.
 */
import { DINGYUE_BASE } from './http/dingyue.js';
import type { ApiName } from './http/envelopes.js';
import {
  REVENUECAT_CONFIG_PATH,
  REVENUECAT_CUSTOMER_CENTER_PATH,
  REVENUECAT_DIAGNOSTICS_PATH,
  REVENUECAT_EVENTS_PATH,
  REVENUECAT_HEALTH_PATH,
  REVENUECAT_OFFERS_PATH,
  REVENUECAT_PRODUCT_ENTITLEMENT_MAPPING_PATH,
  REVENUECAT_RECEIPTS_PATH,
  REVENUECAT_SUBSCRIBERS_PATH,
  REVENUECAT_WEB_BILLING_PATH,
} from './http/revenuecat.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** DynamoDB actions, as IAM names without the `dynamodb:` prefix. */
export type TableAction =
  | 'GetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem'
  | 'BatchGetItem';

export interface Route {
  /** Unique, stable: the API operation; the first route of a handler module names its function. */
  name: string;
  api: ApiName;
  method: HttpMethod;
  /** API Gateway resource path; `{name}` segments are path parameters. */
  path: string;
  /** Handler module relative to the repository root; it exports `handler` and its declaration, `endpoint`. */
  handler: string;
  table: readonly TableAction[];
  /** Reads the app's store credentials (Secrets Manager in AWS). */
  storeSecrets?: boolean;
}

/**
 * Timeout of every endpoint's function, in seconds: the Lambda setting in AWS, and what the local
 * gateway allows a handler before it answers as API Gateway does for a timed-out function.
 */
export const ENDPOINT_TIMEOUT_SECONDS = 10;

/** Base of the subscription management API (`{subscriptions_base_url}` + `/subscriptions`). */
export const SUBSCRIPTIONS_BASE = '/v1/subscriptions';

/** Base of the customers of the subscription management API (Bearer secret key, like /v1/subscriptions). */
export const CUSTOMERS_BASE = '/v1/customers';

/** Base of the app's webhook deliveries on the subscription management API (Bearer secret key). */
export const WEBHOOKS_BASE = '/v1/webhooks';

/** The app the secret key belongs to, on the subscription management API. */
export const APP_PATH = '/v1/app';

/** What the app shows (offerings, placements, remote switches), on the subscription management API. */
export const OFFERINGS_PATH = '/v1/offerings';

/** Base of the store notification routes: the URLs operators give App Store Connect and Pub/Sub. */
export const NOTIFICATIONS_BASE = '/notifications';
/** Path segment of each store's notification route. */
export const NOTIFICATION_STORES = {
  app_store: 'app-store',
  google_play: 'google-play',
  test_store: 'test-store',
} as const;
/** Where a store posts an app's notifications (relative to the API's base URL). */
export const notificationPath = (store: keyof typeof NOTIFICATION_STORES, appId: string): string =>
  `${NOTIFICATIONS_BASE}/${NOTIFICATION_STORES[store]}/${appId}`;

/**
 * Every route: authentication reads the key item (on a cache miss), and the rate limiter counts
 * the request in the key's window item (lib/data/rate-limits.ts).
 */
const AUTH: readonly TableAction[] = ['GetItem', 'UpdateItem'];
/** Report endpoints write a history item and the profile in one transaction. */
const REPORT: readonly TableAction[] = [...AUTH, 'PutItem'];
/** Every subscription change is a TransactWriteItems of puts and updates. */
const TRANSACT: readonly TableAction[] = ['PutItem', 'UpdateItem'];
/**
 * A store notification reads the app with its store settings and the purchase with the
 * notification's record (BatchGetItem: one request for the App Store, two for Google Play), then its
 * subscription (GetItem); records a notification that changes nothing (PutItem), or writes one
 * transaction. No API key: no rate-limit item.
 */
const NOTIFY: readonly TableAction[] = ['BatchGetItem', 'GetItem', ...TRANSACT];
/** Lists of subscriptions query keys-only indexes, then read the page's items (BatchGetItem). */
const LIST: readonly TableAction[] = [...AUTH, 'Query', 'BatchGetItem'];
/** Purchase verification reads the product, the purchase's owner and the transaction's binding in one BatchGetItem. */
const VERIFY: readonly TableAction[] = [...AUTH, 'BatchGetItem', ...TRANSACT];

const SPEC_ROUTES: readonly Route[] = [
  {
    name: 'ListSubscriptions',
    api: 'subscriptions',
    method: 'GET',
    path: SUBSCRIPTIONS_BASE,
    handler: 'functions/subscriptions/list.ts',
    table: LIST,
  },
  {
    name: 'CreateSubscription',
    api: 'subscriptions',
    method: 'POST',
    path: SUBSCRIPTIONS_BASE,
    handler: 'functions/subscriptions/create.ts',
    table: [...AUTH, ...TRANSACT],
  },
  {
    name: 'VerifyPurchase',
    api: 'subscriptions',
    method: 'POST',
    path: `${SUBSCRIPTIONS_BASE}/verify`,
    handler: 'functions/subscriptions/verify.ts',
    table: VERIFY,
    storeSecrets: true,
  },
  {
    name: 'RevenueStatistics',
    api: 'subscriptions',
    method: 'GET',
    path: `${SUBSCRIPTIONS_BASE}/revenue`,
    handler: 'functions/subscriptions/revenue.ts',
    table: [...AUTH, 'Query'],
  },
  {
    name: 'SubscriptionMetrics',
    api: 'subscriptions',
    method: 'GET',
    path: `${SUBSCRIPTIONS_BASE}/metrics`,
    handler: 'functions/subscriptions/metrics.ts',
    table: [...AUTH, 'Query'],
  },
  {
    name: 'ListProducts',
    api: 'subscriptions',
    method: 'GET',
    path: `${SUBSCRIPTIONS_BASE}/products`,
    handler: 'functions/subscriptions/products.ts',
    table: [...AUTH, 'Query'],
  },
  {
    name: 'GetSubscription',
    api: 'subscriptions',
    method: 'GET',
    path: `${SUBSCRIPTIONS_BASE}/{subscription_id}`,
    handler: 'functions/subscriptions/get.ts',
    table: [...AUTH, 'Query'],
  },
  {
    name: 'GetSubscriptionHistory',
    api: 'subscriptions',
    method: 'GET',
    path: `${SUBSCRIPTIONS_BASE}/{subscription_id}/history`,
    handler: 'functions/subscriptions/history.ts',
    // The history's partition (Query); the state item's key when the page is empty (GetItem).
    table: [...AUTH, 'Query'],
  },
  {
    name: 'UpdateSubscription',
    api: 'subscriptions',
    method: 'PUT',
    path: `${SUBSCRIPTIONS_BASE}/{subscription_id}`,
    handler: 'functions/subscriptions/update.ts',
    table: [...AUTH, 'Query', ...TRANSACT],
  },
  {
    name: 'ListCustomers',
    api: 'subscriptions',
    method: 'GET',
    path: CUSTOMERS_BASE,
    handler: 'functions/subscriptions/customers.ts',
    // The customers index (Query).
    table: [...AUTH, 'Query'],
  },
  {
    name: 'GetCustomer',
    api: 'subscriptions',
    method: 'GET',
    path: `${CUSTOMERS_BASE}/{user_id}`,
    handler: 'functions/subscriptions/customer.ts',
    // The profile (Query), the user's index (Query) and their subscriptions (BatchGetItem); the app's entitlements (GetItem).
    table: LIST,
  },
  {
    name: 'ListOfferings',
    api: 'subscriptions',
    method: 'GET',
    path: OFFERINGS_PATH,
    handler: 'functions/subscriptions/offerings.ts',
    // The app's offerings, switches and segments (BatchGetItem).
    table: [...AUTH, 'BatchGetItem'],
  },
  {
    name: 'GetCustomerOfferings',
    api: 'subscriptions',
    method: 'GET',
    path: `${CUSTOMERS_BASE}/{user_id}/offerings`,
    handler: 'functions/subscriptions/customer-offerings.ts',
    // The app's offerings, switches and segments (BatchGetItem), the profile (Query), the user's
    // index (Query) and their subscriptions (BatchGetItem).
    table: LIST,
  },
  {
    name: 'ListWebhookDeliveries',
    api: 'subscriptions',
    method: 'GET',
    path: `${WEBHOOKS_BASE}/deliveries`,
    handler: 'functions/webhooks/deliveries.ts',
    // A status's page is read from a keys-only index, then by key (BatchGetItem).
    table: LIST,
  },
  {
    name: 'RedeliverWebhook',
    api: 'subscriptions',
    method: 'POST',
    path: `${WEBHOOKS_BASE}/deliveries/{event_id}/redeliver`,
    handler: 'functions/webhooks/redeliver.ts',
    // The delivery and the endpoint (GetItem), the reset and the attempt's record (PutItem); a 410
    // disables the endpoint (UpdateItem). A first attempt is never the last: no dead-letter queue.
    // Whether the event names an erased user (its subscriptions: BatchGetItem), and the pointers
    // that let an erasure find the delivery, written again (BatchWriteItem).
    table: [...AUTH, 'PutItem', 'BatchGetItem', 'BatchWriteItem'],
  },
  {
    name: 'GetApp',
    api: 'subscriptions',
    method: 'GET',
    path: APP_PATH,
    handler: 'functions/subscriptions/app.ts',
    // The app and its webhook endpoint (GetItem), whether each store's settings are stored (BatchGetItem).
    table: [...AUTH, 'BatchGetItem'],
  },
  {
    name: 'DeleteCustomer',
    api: 'subscriptions',
    method: 'DELETE',
    path: `${CUSTOMERS_BASE}/{user_id}`,
    handler: 'functions/subscriptions/customer-delete.ts',
    // The erasure marker (UpdateItem, GetItem; when done, DeleteItem in a transaction with a
    // ConditionCheckItem of each subscription it detached), the user's partitions and index (Query),
    // their deletion (BatchWriteItem), and each subscription's detachment: one transaction of its
    // state's new version (PutItem), its purchase and transfers (UpdateItem), its receipt (DeleteItem).
    table: [...AUTH, 'Query', 'PutItem', 'BatchWriteItem', 'DeleteItem', 'ConditionCheckItem'],
  },
  ...(['grant', 'revoke'] as const).map(
    (operation): Route => ({
      name: operation === 'grant' ? 'GrantEntitlement' : 'RevokeEntitlement',
      api: 'subscriptions',
      method: 'POST',
      path: `${CUSTOMERS_BASE}/{user_id}/entitlements/{entitlement_id}/${operation}`,
      handler: `functions/subscriptions/customer-${operation}.ts`,
      // The app's entitlements and the grant (GetItem), then the grant, the profile and the outbox item in one transaction.
      table: [...AUTH, ...TRANSACT],
    }),
  ),
  // Mobile reporting API (X-API-KEY sdk key, common headers).
  {
    name: 'VerifyFirstReceipt',
    api: 'mobile',
    method: 'POST',
    path: '/receipt/verify/first',
    handler: 'functions/mobile/receipt-verify-first.ts',
    table: VERIFY,
    storeSecrets: true,
  },
  {
    name: 'RecoverReceipt',
    api: 'mobile',
    method: 'POST',
    path: '/receipt/verify/recover',
    handler: 'functions/mobile/receipt-verify-recover.ts',
    table: VERIFY,
    storeSecrets: true,
  },
  // V1 and V2 paths of a mobile endpoint share one handler, so one function (named by the V1 route).
  ...(['', '/v2'] as const).flatMap((version): Route[] => [
    {
      name: `ReportEvents${version ? 'V2' : ''}`,
      api: 'mobile',
      method: 'POST',
      path: `${version}/users/report/events`,
      handler: 'functions/mobile/report-events.ts',
      table: [...AUTH, 'BatchWriteItem'],
    },
    {
      name: `CustomerInfo${version ? 'V2' : ''}`,
      api: 'mobile',
      method: 'GET',
      path: `${version}/users/customer_info`,
      handler: 'functions/mobile/customer-info.ts',
      table: LIST,
    },
    {
      name: `UserOfferings${version ? 'V2' : ''}`,
      api: 'mobile',
      method: 'GET',
      path: `${version}/offerings`,
      handler: 'functions/mobile/offerings.ts',
      table: LIST,
    },
    {
      name: `ReportSession${version ? 'V2' : ''}`,
      api: 'mobile',
      method: 'POST',
      path: `${version}/sessions/report`,
      handler: 'functions/mobile/report-session.ts',
      // Its DingYue call also reads what the app shows the user (as UserOfferings does).
      table: [...REPORT, 'Query', 'BatchGetItem'],
    },
    ...(
      [
        ['ReportOrder', 'POST', '/order/report', 'report-order'],
        ['ReportConversion', 'POST', '/conversion/report', 'report-conversion'],
        ['ReportGlobalSwitch', 'POST', '/report/global_switch', 'report-global-switch'],
        ['ReportTyped', 'POST', '/report/{type}', 'report-typed'],
        ['UpdateUserAttributes', 'PUT', '/users/attribute/update', 'update-attributes'],
      ] as const
    ).map(
      ([name, method, path, handler]): Route => ({
        name: `${name}${version ? 'V2' : ''}`,
        api: 'mobile',
        method,
        path: `${version}${path}`,
        handler: `functions/mobile/${handler}.ts`,
        table: REPORT,
      }),
    ),
  ]),
  {
    name: 'ReportAttribution',
    api: 'mobile',
    method: 'POST',
    path: '/attribution/report',
    handler: 'functions/mobile/report-attribution.ts',
    table: REPORT,
  },
  {
    name: 'ReportSearchAds',
    api: 'mobile',
    method: 'POST',
    path: '/searchads/report',
    handler: 'functions/mobile/report-search-ads.ts',
    table: REPORT,
  },
  {
    name: 'SegmentInfo',
    api: 'mobile',
    method: 'GET',
    path: '/segment/info',
    handler: 'functions/mobile/segment-info.ts',
    table: LIST,
  },
  {
    name: 'AdsInfo',
    api: 'mobile',
    method: 'GET',
    path: '/adsinfo/{platform}/{app_id}/{store_id}',
    handler: 'functions/mobile/ads-info.ts',
    table: LIST,
  },
  {
    name: 'SetCustomProperties',
    api: 'mobile',
    method: 'POST',
    path: '/users/custom_properties/set',
    handler: 'functions/mobile/set-custom-properties.ts',
    table: REPORT,
  },
  ...(['cancel', 'renew', 'pause', 'resume'] as const).map(
    (operation): Route => ({
      name: `${operation[0]!.toUpperCase()}${operation.slice(1)}Subscription`,
      api: 'subscriptions',
      method: 'POST',
      path: `${SUBSCRIPTIONS_BASE}/{subscription_id}/${operation}`,
      handler: `functions/subscriptions/${operation}.ts`,
      // renew also reads the product (default period) and the transaction binding.
      table: [...AUTH, 'Query', ...TRANSACT],
    }),
  ),
  ...(
    [
      ['AppStoreNotification', 'app_store', 'app-store'],
      ['GooglePlayNotification', 'google_play', 'google-play'],
      ['TestStoreNotification', 'test_store', 'test-store'],
    ] as const
  ).map(
    ([name, store, module]): Route => ({
      name,
      api: 'notifications',
      method: 'POST',
      path: notificationPath(store, '{app_id}'),
      handler: `functions/notifications/${module}.ts`,
      table: NOTIFY,
      // Google's notification says only that something changed: the handler asks Google.
      ...(store === 'google_play' ? { storeSecrets: true } : {}),
    }),
  ),
  // RevenueCat's SDK dialect (lib/http/revenuecat.ts): Bearer sdk key, at the API's root.
  {
    name: 'RevenueCatCustomerInfo',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}`,
    handler: 'functions/revenuecat/subscriber.ts',
    // As CustomerInfo; a new user's profile is created (GetItem, UpdateItem).
    table: LIST,
  },
  {
    name: 'RevenueCatLogIn',
    api: 'revenuecat',
    method: 'POST',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/identify`,
    handler: 'functions/revenuecat/identify.ts',
    // Both users' customer info (Query, BatchGetItem), the anonymous user's purchases moved: each
    // subscription read (Query) with its transactions (BatchGetItem), and one transaction of its
    // new version (PutItem), its transfer and notification (PutItem), its transactions (UpdateItem).
    table: [...LIST, 'PutItem'],
  },
  {
    name: 'RevenueCatPostAttributes',
    api: 'revenuecat',
    method: 'POST',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/attributes`,
    handler: 'functions/revenuecat/attributes.ts',
    // The profile read and written back on its version (GetItem, UpdateItem).
    table: AUTH,
  },
  {
    name: 'RevenueCatOfferings',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/offerings`,
    handler: 'functions/revenuecat/offerings.ts',
    // As GetCustomerOfferings: the app's settings (BatchGetItem), the user's profile (Query) and subscriptions.
    table: LIST,
  },
  {
    name: 'RevenueCatIntroEligibility',
    api: 'revenuecat',
    method: 'POST',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/intro_eligibility`,
    handler: 'functions/revenuecat/intro-eligibility.ts',
    // The key, the user's count, and the user's subscriptions (Query, BatchGetItem).
    table: LIST,
  },
  {
    name: 'RevenueCatRestoreEligibility',
    api: 'revenuecat',
    method: 'POST',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/restore/eligibility`,
    handler: 'functions/revenuecat/restore-eligibility.ts',
    // The key, the user's count, then the app with its App Store settings and the purchase's
    // owner and binding (BatchGetItem): a signed transaction is checked without asking a store.
    table: [...AUTH, 'BatchGetItem'],
  },
  {
    name: 'RevenueCatVirtualCurrencies',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/virtual_currencies`,
    handler: 'functions/revenuecat/virtual-currencies.ts',
    // The key and the user's count: no virtual currencies are kept.
    table: AUTH,
  },
  {
    name: 'RevenueCatHealthReportAvailability',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/health_report_availability`,
    handler: 'functions/revenuecat/health-report-availability.ts',
    // Sent without a key: reads nothing.
    table: [],
  },
  {
    name: 'RevenueCatCustomerCenter',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_CUSTOMER_CENTER_PATH}/{app_user_id}`,
    handler: 'functions/revenuecat/customer-center.ts',
    // The key, the user's count, and the app's support email (GetItem).
    table: AUTH,
  },
  {
    name: 'RevenueCatHealth',
    api: 'revenuecat',
    method: 'GET',
    path: REVENUECAT_HEALTH_PATH,
    handler: 'functions/revenuecat/health.ts',
    // Sent without a key: reads nothing.
    table: [],
  },
  // Attribution the SDK posts, accepted and not kept: one function for both.
  ...(
    [
      ['RevenueCatPostAdServicesToken', 'adservices_attribution'],
      ['RevenueCatPostAttribution', 'attribution'],
    ] as const
  ).map(
    ([name, leaf]): Route => ({
      name,
      api: 'revenuecat',
      method: 'POST',
      path: `${REVENUECAT_SUBSCRIBERS_PATH}/{app_user_id}/${leaf}`,
      handler: 'functions/revenuecat/attribution.ts',
      // The key and the user's count: nothing is read or kept.
      table: AUTH,
    }),
  ),
  {
    name: 'RevenueCatWebProducts',
    api: 'revenuecat',
    method: 'GET',
    path: `${REVENUECAT_WEB_BILLING_PATH}/subscribers/{app_user_id}/products`,
    handler: 'functions/revenuecat/web-products.ts',
    // The key, the user's count, and the catalogue's products asked for (BatchGetItem).
    table: [...AUTH, 'BatchGetItem'],
  },
  {
    name: 'RevenueCatProductEntitlementMapping',
    api: 'revenuecat',
    method: 'GET',
    path: REVENUECAT_PRODUCT_ENTITLEMENT_MAPPING_PATH,
    handler: 'functions/revenuecat/product-entitlement-mapping.ts',
    // The key and the app's entitlements; about no user, counted by its address (UpdateItem).
    table: AUTH,
  },
  {
    name: 'RevenueCatRemoteConfig',
    api: 'revenuecat',
    method: 'POST',
    path: `${REVENUECAT_CONFIG_PATH}/{domain}`,
    handler: 'functions/revenuecat/remote-config.ts',
    // The key, and the count by the address (no remote config is kept: nothing else to read).
    table: AUTH,
  },
  // What the SDKs only report, accepted and not kept: one function for both.
  ...(
    [
      ['RevenueCatPostEvents', REVENUECAT_EVENTS_PATH],
      ['RevenueCatPostDiagnostics', REVENUECAT_DIAGNOSTICS_PATH],
    ] as const
  ).map(
    ([name, path]): Route => ({
      name,
      api: 'revenuecat',
      method: 'POST',
      path,
      handler: 'functions/revenuecat/events.ts',
      // The key, and the count by the address: nothing is read or kept.
      table: AUTH,
    }),
  ),
  {
    name: 'RevenueCatPostOffers',
    api: 'revenuecat',
    method: 'POST',
    path: REVENUECAT_OFFERS_PATH,
    handler: 'functions/revenuecat/offers.ts',
    // The key, the user's count, and the app with its App Store settings, the signing key among
    // them (BatchGetItem; Secrets Manager in AWS).
    table: [...AUTH, 'BatchGetItem'],
    storeSecrets: true,
  },
  {
    name: 'RevenueCatPostReceipt',
    api: 'revenuecat',
    method: 'POST',
    path: REVENUECAT_RECEIPTS_PATH,
    handler: 'functions/revenuecat/receipts.ts',
    // A verification, then the user's customer info (Query).
    table: [...VERIFY, 'Query'],
    storeSecrets: true,
  },
];

/**
 * The DingYue SDK's calls (its Classes/OpenAPIs/APIs/*.swift), each beside the handler of the spec
 * route it mirrors: the same function, grants and surface as that route.
 */
const DINGYUE_CALLS: readonly (readonly [name: string, method: HttpMethod, path: string, handler: string])[] = [
  ['DingYueReportSession', 'POST', '/sessions/report', 'report-session'],
  ['DingYueVerifyFirstReceipt', 'POST', '/receipt/verify/first', 'receipt-verify-first'],
  ['DingYueRecoverReceipt', 'POST', '/receipt/verify/recover', 'receipt-verify-recover'],
  ['DingYueReportEvents', 'POST', '/users/report/events', 'report-events'],
  ['DingYueReportTyped', 'POST', '/report/{type}', 'report-typed'],
  ['DingYueUpdateUserAttributes', 'PUT', '/users/attribute/update', 'update-attributes'],
  ['DingYueSetCustomProperties', 'POST', '/users/custom_properties/set', 'set-custom-properties'],
  ['DingYueReportConversion', 'POST', '/conversion/report', 'report-conversion'],
  ['DingYueReportAttribution', 'POST', '/attribution/report', 'report-attribution'],
  ['DingYueReportSearchAds', 'POST', '/searchads/report', 'report-search-ads'],
  ['DingYueSegmentInfo', 'GET', '/segment/info', 'segment-info'],
  ['DingYueReportGlobalSwitch', 'POST', '/report/global_switch', 'report-global-switch'],
];

export const ROUTES: readonly Route[] = [
  ...SPEC_ROUTES,
  ...DINGYUE_CALLS.map(([name, method, path, module]): Route => {
    const handler = `functions/mobile/${module}.ts`;
    const mirrored = SPEC_ROUTES.find((route) => route.handler === handler)!;
    return { ...mirrored, name, method, path: `${DINGYUE_BASE}${path}` };
  }),
];

/**
 * A deployed Lambda function: one per handler module, serving every route that names the module
 * (the V1 and V2 paths of a mobile endpoint), so both paths share its warm instances.
 */
export interface EndpointFunction {
  /** Construct id in CDK and function name: the name of the module's first route. */
  name: string;
  handler: string;
  routes: readonly Route[];
}

/**
 * The functions of these routes, in route table order. One role serves all of a function's routes,
 * so they must need the same grants: table actions and store secrets; a mismatch throws.
 */
export function endpointFunctions(routes: readonly Route[] = ROUTES): EndpointFunction[] {
  const byHandler = new Map<string, Route[]>();
  for (const route of routes) byHandler.set(route.handler, [...(byHandler.get(route.handler) ?? []), route]);
  const needs = (route: Route) => JSON.stringify([[...new Set(route.table)].sort(), route.storeSecrets ?? false]);
  return [...byHandler].map(([handler, served]) => {
    const first = served[0]!;
    const other = served.find((route) => needs(route) !== needs(first));
    if (other) throw new Error(`${first.name} and ${other.name} share ${handler} but not their grants`);
    return { name: first.name, handler, routes: served };
  });
}
