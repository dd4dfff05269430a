/**
 * What each function of the stack may do, written out per function, not read from lib/routes.ts:
 * the CDK test asserts the template grants exactly this, and test/e2e/handler-grants.test.ts that
 * every DynamoDB operation a route's handler sends is in it.
 */
import type { TableAction } from '../../lib/routes.js';

export interface Grants {
  table?: readonly TableAction[];
  /** secretsmanager:GetSecretValue on the app_store and google_play secrets under the stack prefix. */
  storeSecrets?: boolean;
  /** events:PutEvents on the stack's bus. */
  putEvents?: boolean;
  /** Reads the table stream (event source). */
  streamRead?: boolean;
  /** sqs:SendMessage on this dead-letter queue (construct id in cdk/constructs/notifications.ts). */
  sendsTo?: string;
}

/** Every route authenticates (GetItem of the key on a cache miss) and counts the request (UpdateItem). */
const AUTH = ['GetItem', 'UpdateItem'] as const;
/** A subscription change: TransactWriteItems of puts and updates, after reading the subscription (Query). */
const CHANGE = [...AUTH, 'Query', 'PutItem'] as const;
/** Purchase verification: one BatchGetItem of app, product, owner and binding, then the transaction. */
const VERIFY = { table: [...AUTH, 'BatchGetItem', 'PutItem'], storeSecrets: true } as const;
/** A mobile report: the history item and the profile in one transaction. */
const REPORT = { table: [...AUTH, 'PutItem'] } as const;
/** A read of the app's data by key or partition. */
const READ = { table: [...AUTH, 'Query'] } as const;
/** Lists query keys-only indexes, then read the page's items by key. */
const LIST = { table: [...AUTH, 'Query', 'BatchGetItem'] } as const;

/**
 * A store notification: no key, so no AUTH. The app with its store settings and the purchase's
 * subscription (GetItem), the purchase with the notification's record (BatchGetItem), then the
 * record alone (PutItem) or one transaction of puts and updates.
 */
const NOTIFY = { table: ['BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem'] } as const;

/** By route name (lib/routes.ts `name`); the routes of one function (V1 and V2 paths) must agree. */
export const ROUTE_GRANTS: Record<string, Grants> = {
  ListSubscriptions: LIST,
  CreateSubscription: { table: [...AUTH, 'PutItem'] },
  VerifyPurchase: VERIFY,
  RevenueStatistics: READ,
  SubscriptionMetrics: READ,
  ListProducts: READ,
  // The app and its webhook endpoint (GetItem), whether each store's settings are stored (BatchGetItem).
  GetApp: { table: [...AUTH, 'BatchGetItem'] },
  GetSubscription: READ,
  // The history's partition (Query); the state item's key when the page is empty (GetItem).
  GetSubscriptionHistory: READ,
  // Customer info: the profile and the user index (Query), the subscriptions (BatchGetItem), the entitlements (GetItem).
  // The customers index (Query).
  ListCustomers: READ,
  GetCustomer: LIST,
  CustomerInfo: LIST,
  CustomerInfoV2: LIST,
  // A status's page: the keys-only index (Query), then the deliveries by key (BatchGetItem).
  ListWebhookDeliveries: LIST,
  // The delivery and the endpoint, the reset and the attempt's record; a 410 disables the endpoint.
  // ... and whether the event names an erased user (BatchGetItem), its pointers written again (BatchWriteItem).
  RedeliverWebhook: { table: [...AUTH, 'PutItem', 'BatchGetItem', 'BatchWriteItem'] },
  // The app's entitlements and the grant (GetItem), then one transaction: the grant (Put or Update), the profile (Update), the outbox item (Put).
  GrantEntitlement: { table: [...AUTH, 'PutItem'] },
  // Erasure: the marker (UpdateItem, GetItem, DeleteItem), the user's partitions and index (Query), their deletion
  // (BatchWriteItem); a subscription's detachment, one transaction with its state's new version (PutItem); the
  // marker's delete in one transaction with a check of each detached subscription (ConditionCheckItem).
  DeleteCustomer: { table: [...AUTH, 'Query', 'PutItem', 'BatchWriteItem', 'DeleteItem', 'ConditionCheckItem'] },
  // What the app shows: its offerings, switches and segments (BatchGetItem).
  ListOfferings: { table: [...AUTH, 'BatchGetItem'] },
  // ... and what one user is shown: their profile and index (Query), subscriptions (BatchGetItem).
  GetCustomerOfferings: LIST,
  UserOfferings: LIST,
  UserOfferingsV2: LIST,
  RevokeEntitlement: { table: [...AUTH, 'PutItem'] },
  UpdateSubscription: { table: CHANGE },
  CancelSubscription: { table: CHANGE },
  RenewSubscription: { table: CHANGE },
  PauseSubscription: { table: CHANGE },
  ResumeSubscription: { table: CHANGE },
  VerifyFirstReceipt: VERIFY,
  RecoverReceipt: VERIFY,
  // RevenueCat's SDKs: the customer info (creating a new user's profile), and a verification followed by it.
  RevenueCatCustomerInfo: LIST,
  RevenueCatPostReceipt: { table: [...VERIFY.table, 'Query'], storeSecrets: true },
  // A logIn: both users' customer info, and each moved purchase's transaction (PutItem, UpdateItem).
  RevenueCatLogIn: { table: [...LIST.table, 'PutItem'] },
  // The profile read and written back on its version.
  RevenueCatPostAttributes: { table: AUTH },
  // What the user is shown, as GetCustomerOfferings reads it.
  RevenueCatOfferings: LIST,
  // The key, the user's count, and the user's subscriptions.
  RevenueCatIntroEligibility: LIST,
  // The key and the user's count: nothing is kept.
  // The key, the user's count, then the app with its store settings and the purchase (no secrets: no store is asked).
  RevenueCatRestoreEligibility: { table: [...AUTH, 'BatchGetItem'] },
  RevenueCatVirtualCurrencies: { table: AUTH },
  // The key, the user's count, and the app with its App Store settings and signing key.
  RevenueCatPostOffers: { table: [...AUTH, 'BatchGetItem'], storeSecrets: true },
  RevenueCatPostAdServicesToken: { table: AUTH },
  RevenueCatPostAttribution: { table: AUTH },
  // The key, the user's count, and the app's support email.
  RevenueCatCustomerCenter: { table: AUTH },
  // Sent without a key: read nothing.
  RevenueCatHealthReportAvailability: { table: [] },
  RevenueCatHealth: { table: [] },
  // The key, the user's count, and the catalogue's products asked for.
  RevenueCatWebProducts: { table: [...AUTH, 'BatchGetItem'] },
  // The key and the app's entitlements, about no user: counted by the request's address.
  RevenueCatProductEntitlementMapping: { table: AUTH },
  RevenueCatRemoteConfig: { table: AUTH },
  RevenueCatPostEvents: { table: AUTH },
  RevenueCatPostDiagnostics: { table: AUTH },
  // A batch of events is written with BatchWriteItem.
  ReportEvents: { table: [...AUTH, 'BatchWriteItem'] },
  ReportEventsV2: { table: [...AUTH, 'BatchWriteItem'] },
  // A session, and under /dingyue the launch: what the app shows the user read as UserOfferings does.
  ReportSession: { table: [...AUTH, 'PutItem', 'Query', 'BatchGetItem'] },
  ReportSessionV2: { table: [...AUTH, 'PutItem', 'Query', 'BatchGetItem'] },
  ReportOrder: REPORT,
  ReportOrderV2: REPORT,
  ReportConversion: REPORT,
  ReportConversionV2: REPORT,
  ReportGlobalSwitch: REPORT,
  ReportGlobalSwitchV2: REPORT,
  ReportTyped: REPORT,
  ReportTypedV2: REPORT,
  UpdateUserAttributes: REPORT,
  UpdateUserAttributesV2: REPORT,
  SetCustomProperties: REPORT,
  ReportAttribution: REPORT,
  ReportSearchAds: REPORT,
  SegmentInfo: LIST,
  AdsInfo: LIST,
  // The DingYue SDK's calls: each served by the function of the route it mirrors, with its grants.
  DingYueReportSession: { table: [...AUTH, 'PutItem', 'Query', 'BatchGetItem'] },
  DingYueVerifyFirstReceipt: VERIFY,
  DingYueRecoverReceipt: VERIFY,
  DingYueReportEvents: { table: [...AUTH, 'BatchWriteItem'] },
  DingYueReportTyped: REPORT,
  DingYueUpdateUserAttributes: REPORT,
  DingYueSetCustomProperties: REPORT,
  DingYueReportConversion: REPORT,
  DingYueReportAttribution: REPORT,
  DingYueReportSearchAds: REPORT,
  DingYueSegmentInfo: LIST,
  DingYueReportGlobalSwitch: REPORT,
  AppStoreNotification: NOTIFY,
  // Google's push says only that a purchase changed: the handler reads it from Google with the app's credentials.
  GooglePlayNotification: { ...NOTIFY, storeSecrets: true },
  TestStoreNotification: NOTIFY,
};

/** The functions of cdk/constructs/notifications.ts, by description. */
export const WORKER_GRANTS: Record<string, Grants> = {
  'table stream (announced events) -> EventBridge': { streamRead: true, putEvents: true, sendsTo: 'StreamFailures' },
  // Reads a counter item only when its marker says a batch was retried.
  'table stream (subscription writes) -> list counts, revenue counters, history': {
    // History entries are put in batches (BatchWriteItem).
    table: ['GetItem', 'UpdateItem', 'BatchWriteItem'],
    streamRead: true,
    sendsTo: 'AggregatorFailures',
  },
  'EventBridge rule target: Standard Webhooks delivery': {
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    sendsTo: 'WebhookDeadLetters',
  },
  'every minute: webhook deliveries whose next try is due': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    sendsTo: 'WebhookDeadLetters',
  },
  // Before expiring a store subscription that renews by itself it asks the store (credentials) and
  // applies the answer as a notification would (purchase read with BatchGetItem).
  // It also carries on erasures under way (BatchWriteItem of the user's items, DeleteItem of the marker).
  'every minute: expiries and pause ends that are due': {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem', 'DeleteItem'],
    storeSecrets: true,
  },
};
