/**
 * The words and examples of the OpenAPI document, by route name (lib/routes.ts; a V2 route shares
 * its V1 route's): what each operation is for, what each of its success statuses means, and
 * examples. Build time only. Everything else about an endpoint (schemas, answers, error kinds,
 * header rule) is its declaration, beside its handler in functions/.
 */
import { MAX_NOTIFICATION_BYTES } from '../lib/domain/store-purchase.js';
import { MAX_CUSTOMER_SUBSCRIPTIONS } from '../lib/schemas/entitlement.js';
import * as ex from './examples.js';

export interface SuccessText {
  description: string;
  /** The whole body. */
  example: unknown;
}

export interface OperationText {
  summary: string;
  description?: string;
  bodyExample?: unknown;
  /** One entry per success status the declaration names (default: 200). */
  success: Partial<Record<number, SuccessText>>;
}

const detail = (description: string): OperationText['success'] => ({
  200: { description, example: { data: ex.subscriptionDetail } },
});

const recorded = (message: string): OperationText['success'] => ({
  200: { description: 'Recorded.', example: { status: 'success', message } },
});

const NOTIFICATION_OUTCOMES_TEXT =
  '`outcome`: `applied` (a subscription changed, or started), `kept` (kept on a purchase no user has verified ' +
  'yet: the subscription starts from it when the app verifies the purchase), `stale` (the purchase already ' +
  'reflects a later state of the store: it arrived out of order), `recorded` (nothing to change: a test, a ' +
  'consumption request, a type this version does not know), `duplicate` (received before: nothing changes, ' +
  'no second event).';
const receivedNotification = (example: unknown): OperationText['success'] => ({
  200: { description: `Received. ${NOTIFICATION_OUTCOMES_TEXT}`, example },
});
const NOTIFICATION_BOUNDS =
  'The body is read as JSON whatever its Content-Type (or none) says. ' +
  `A body over ${MAX_NOTIFICATION_BYTES / 1024} KB is a 413 PAYLOAD_TOO_LARGE; a notification that is not ` +
  "genuine, not this app's or malformed is a 400 INVALID_NOTIFICATION and changes nothing; what may succeed " +
  "later (the table, the store's API) is a 5xx, so the store delivers it again. A redelivery changes nothing.";
const exampleJws =
  'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0JnZ3Foa2pPUFFRREF6QjFNVVF3UWdZRFZRUUQiXX0' +
  '.eyJub3RpZmljYXRpb25UeXBlIjoiRElEX1JFTkVXIiwibm90aWZpY2F0aW9uVVVJRCI6IjAwMmUxNGQ1LTUxZjUtNDUwMy1iNWE4LWMzYTFhZjY4ZWIyMCJ9' +
  '.MEUCIQDTw1BOqM3xlqXKBTQpVnBnsRxWsYJ2SyDfkIYDvb0wTAIgMsDyp2SAMKoJZRoWrd1gWxKfoGXWvn5HmgDJKwGpsgk';
const examplePush = {
  message: {
    data: Buffer.from(
      JSON.stringify({
        version: '1.0',
        packageName: 'com.example.subs',
        eventTimeMillis: '1764410400000',
        subscriptionNotification: {
          version: '1.0',
          notificationType: 2,
          purchaseToken: 'kmhbjhjhbnblmjakcbfkgpjl.AO-J1OwXaQ3oRCaBd8yq',
        },
      }),
    ).toString('base64'),
    messageId: '13672493945827361',
    message_id: '13672493945827361',
    publishTime: '2026-11-29T10:00:00.412Z',
    publish_time: '2026-11-29T10:00:00.412Z',
  },
  subscription: 'projects/my-project/subscriptions/play-rtdn-push',
};

const CUSTOMER_INFO_TEXT =
  'Every entitlement of the app, by id: `active` while a subscription to one of its products gives access (active, ' +
  "in its trial, or in the store's grace period after a failed renewal) or a grant of it runs; the other fields " +
  'describe the subscription or grant (`period_type: grant`) that decides it (null for an entitlement the user ' +
  "never had). `subscriptions`: the user's newest " +
  `${MAX_CUSTOMER_SUBSCRIPTIONS} subscriptions, newest first. Read it at every app launch with the ETag of the last answer in ` +
  'If-None-Match: a 304 without a body means nothing changed.';

/** Keyed by route name (lib/routes.ts); V2 routes share their V1 route's entry. */
export const OPERATIONS: Record<string, OperationText> = {
  ListSubscriptions: {
    summary: 'List subscriptions',
    description:
      'Subscriptions of the app, newest first, filtered by any of the query parameters. `page` numbers pages; ' +
      '`cursor` (from `pagination.next_cursor`) reads the next page at constant cost.',
    success: {
      200: {
        description: 'One page of subscriptions.',
        example: { data: [ex.subscriptionListItem], pagination: ex.pagination },
      },
    },
  },
  CreateSubscription: {
    summary: 'Create a subscription record',
    description:
      'Records a subscription in `pending_verification`. With a `transaction_id` already recorded for the same ' +
      'user, answers 200 with that record instead of creating another.',
    bodyExample: ex.createRequest,
    success: {
      201: {
        description: 'Created.',
        example: { data: ex.createdSubscription },
      },
      200: {
        description: 'The transaction was already recorded: the existing record.',
        example: { data: ex.createdSubscription },
      },
    },
  },
  VerifyPurchase: {
    summary: 'Verify a store purchase',
    description:
      "Verifies the receipt with the platform's store and activates (or renews) the user's subscription to the " +
      'purchased product.',
    bodyExample: ex.verifyRequest,
    success: {
      200: {
        description: 'The purchase is valid.',
        example: { data: ex.verificationResult },
      },
    },
  },
  RevenueStatistics: {
    summary: 'Revenue statistics',
    description:
      "Revenue, active subscriptions, new subscriptions and renewals per day, week or month, in the app's " +
      'reporting currency.',
    success: {
      200: {
        description: 'Statistics of the period.',
        example: { data: ex.revenueStatistics },
      },
    },
  },
  SubscriptionMetrics: {
    summary: 'Subscription metrics',
    description:
      'Per day, week or month: MRR, active subscriptions and active trials at the end of the bucket; new ' +
      'subscriptions, churned subscriptions, trial conversions (and the rate) and refunds in it. Store sandbox ' +
      "purchases are left out; MRR is in the app's reporting currency. Computed from counters kept as " +
      'subscriptions change, so its cost does not grow with the number of subscriptions. Definitions: ' +
      'docs/api.md#subscription-metrics.',
    success: {
      200: {
        description: 'Metrics of the period.',
        example: { data: ex.subscriptionMetrics },
      },
    },
  },
  ListProducts: {
    summary: 'List products',
    success: {
      200: {
        description: "The app's product catalogue.",
        example: { data: [ex.product] },
      },
    },
  },
  GetApp: {
    summary: 'The app of this key',
    description:
      'The app the secret key belongs to: its name and reporting currency, whether the test store is on, which ' +
      "stores' settings are stored, and its webhook endpoint (null while none is set). Never a secret: not the " +
      "webhook's signing secret, the store credentials or the test store's key (the operator CLI's `apps`, " +
      '`stores show` and `webhooks show` say the rest).',
    success: {
      200: { description: 'The app.', example: { data: ex.appOverview } },
    },
  },
  ListOfferings: {
    summary: 'What the app shows',
    description:
      "The app's offerings (packages of products per platform), which one is current, its placements, its " +
      'remote switches and its paywall and guide page bundles (each at its current version, with its download ' +
      'URL), as `admin offerings put`, `admin switches put` and `admin paywalls upload` stored them, read fresh. ' +
      'An app that has put nothing has `current_offering_id: null` and empty lists.',
    success: {
      200: { description: "The app's offerings, placements and switches.", example: { data: ex.appOfferings } },
    },
  },
  GetCustomerOfferings: {
    summary: 'What one customer is shown',
    description:
      "Each placement's offering (and guide page) and each remote switch's value for this user, with the rule that chose it " +
      '(`chosen_by`: its place in the list and its audience, or `default`), and the segments the rules were matched ' +
      'against. `platform` is the platform to match rules for; without it, rules naming a platform do not match. ' +
      'A user the app has never seen is shown what a new user would be.',
    success: {
      200: { description: 'What the user is shown.', example: { data: ex.customerOfferings } },
    },
  },
  ListWebhookDeliveries: {
    summary: "List the app's webhook deliveries",
    description:
      'Every event the app was sent (or was to be sent) as a webhook, newest first: its status, attempts and the ' +
      "last attempt's HTTP status or error. `status` keeps one status only; `cursor` (from " +
      '`pagination.next_cursor`, with the same `status`) reads the next page. A delivery shows here as soon as it ' +
      'is recorded; with `status`, within about a second of changing status.',
    success: {
      200: {
        description: 'One page of deliveries.',
        example: { data: [ex.webhookDelivery], pagination: { limit: 20, next_cursor: null } },
      },
    },
  },
  RedeliverWebhook: {
    summary: 'Send an event to the webhook endpoint again',
    description:
      'A fresh round of attempts for one event, whatever its status (a dead or filtered one too: it is sent even ' +
      "if the endpoint's event filter leaves its kind out), with the same `webhook-id`. The first attempt is made " +
      'before answering (at most 5 s); the answer is the delivery after it: `delivered`, or `pending` with the ' +
      'next try scheduled.',
    success: {
      200: {
        description: 'The delivery after its first new attempt.',
        example: {
          data: {
            ...ex.webhookDelivery,
            status: 'delivered',
            attempts: 1,
            last_status_code: 200,
            redelivered_at: '2026-11-22T10:00:00.000Z',
            updated_at: '2026-11-22T10:00:00.120Z',
          },
        },
      },
    },
  },
  ListCustomers: {
    summary: "Find the app's customers by user id",
    description:
      'The users the app has a profile or a subscription of, in user id order (by UTF-8 bytes), each once: with ' +
      '`prefix`, those whose id starts with it (case-sensitive). `cursor` (from `pagination.next_cursor`, with the ' +
      'same `prefix`) reads the next page. A request reads the index at most five times, so a page can hold fewer ' +
      'than `limit` customers while `next_cursor` says more follow. An erased customer is not listed; a new one ' +
      'is, within about a second. `GET /v1/customers/{user_id}` answers the rest of a customer.',
    success: {
      200: {
        description: 'One page of customers.',
        example: {
          data: [{ user_id: 'user_1f2e' }, { user_id: 'user_1f9a' }],
          pagination: { limit: 2, next_cursor: 'eyJhIjoidXNlcl8xZjlhIiwicCI6InVzZXJfMWYifQ' },
        },
      },
    },
  },
  GetCustomer: {
    summary: "Get a customer's entitlements and subscriptions",
    description: `${CUSTOMER_INFO_TEXT} A user this app has never seen (no profile, no subscription, no grant) is a 404.`,
    success: {
      200: {
        description: 'The customer info.',
        example: { data: ex.customerInfo },
      },
    },
  },
  DeleteCustomer: {
    summary: "Erase a customer's data",
    description:
      "GDPR/CCPA erasure: deletes the user's profile (attributes and custom properties included), activity, " +
      'events, sessions, orders, reports and grants; their subscriptions are kept for revenue under an anonymous id ' +
      '(`subscriptions_detached`). A request does at most 1,000 items: 200 `erased` when nothing is left, else 202 ' +
      '`in_progress` and a job carries on every minute (DELETE again for the counts so far). Idempotent: a user ' +
      'with nothing left is a 200 with zero counts.',
    success: {
      200: {
        description: 'Nothing of the user is left; the counts of what was removed.',
        example: { data: ex.erasure },
      },
      202: {
        description: 'Under way: what was removed so far; a job carries on.',
        example: { data: { ...ex.erasure, status: 'in_progress' } },
      },
    },
  },
  GrantEntitlement: {
    summary: 'Grant an entitlement',
    description:
      'Gives the user the entitlement until `expires_at`, or for `duration` (ISO 8601, whole units: `P1M`, `P7D`, ' +
      '`PT12H`), without a purchase; it shows in customer info at once (`period_type: grant`), ends by itself and ' +
      'is never revenue. Exactly one of the two. A user the app has never seen becomes a customer. While a grant ' +
      'runs, `duration` extends it from its end and `expires_at` sets its end. Sends `entitlement.granted`.',
    bodyExample: { duration: 'P1M' },
    success: { 200: { description: 'The grant.', example: { data: ex.grant } } },
  },
  RevokeEntitlement: {
    summary: 'Revoke a grant',
    description:
      'Ends the running grant of the entitlement now (`entitlement.revoked`). Idempotent: with no grant running, ' +
      "a 200 with `revoked: false` and the user's last grant, if any. Access from purchases is not affected.",
    success: {
      200: {
        description: 'Whether a running grant was ended, and the grant as it now is.',
        example: { data: ex.revokeResult },
      },
    },
  },
  GetSubscription: {
    summary: 'Get a subscription',
    success: detail('The subscription.'),
  },
  GetSubscriptionHistory: {
    summary: "List a subscription's changes",
    description:
      'Every change of the subscription, newest first: when, what caused it (`api`, `verification`, ' +
      "`store_notification` with the store's notification type, `sweeper`), the operation, and each field it " +
      "changed with its value before and after. Kept for the subscription's life. A change shows here within " +
      "about a second of being made (it is written from the table's stream). `cursor` (from " +
      '`pagination.next_cursor`) reads the next, older page.',
    success: {
      200: {
        description: 'One page of the history.',
        example: { data: ex.subscriptionHistory, pagination: { limit: 20, next_cursor: null } },
      },
    },
  },
  UpdateSubscription: {
    summary: 'Update status or configuration',
    bodyExample: { auto_renew: false },
    success: detail('The subscription as updated.'),
  },
  CancelSubscription: {
    summary: 'Cancel',
    description:
      'At the end of the paid period (default), or now with `immediate: true` (and a refund of the current ' +
      'period with `refund: true`).',
    bodyExample: { reason: 'too_expensive', immediate: false },
    success: detail('The subscription as cancelled.'),
  },
  RenewSubscription: {
    summary: 'Renew',
    description: 'Extends the period to `expires_at`, by default one billing period of the product.',
    bodyExample: { transaction_id: '2000000123456790' },
    success: detail('The subscription as renewed.'),
  },
  PauseSubscription: {
    summary: 'Pause',
    bodyExample: { pause_duration: 14, unit: 'days', reason: 'travelling' },
    success: detail('The subscription as paused.'),
  },
  ResumeSubscription: {
    summary: 'Resume',
    description: 'Takes no body (`{}` is accepted too).',
    success: detail('The subscription as resumed.'),
  },
  VerifyFirstReceipt: {
    summary: 'Verify the first purchase',
    description: 'Verifies the receipt in the store X-PLATFORM names, for the X-USER-ID user.',
    bodyExample: { receipt: ex.RECEIPT, productId: 'pro_monthly' },
    success: {
      200: {
        description: 'Verified.',
        example: { status: 'success', message: 'Receipt verified', data: ex.verificationResult },
      },
    },
  },
  RecoverReceipt: {
    summary: 'Restore purchases',
    description:
      "Restores the receipt's purchases onto X-USER-ID; the app's restore policy decides about other users'.",
    bodyExample: { receipt: ex.RECEIPT },
    success: {
      200: {
        description: 'Restored.',
        example: { status: 'success', message: 'Purchases restored', data: ex.verificationResult },
      },
    },
  },
  ReportEvents: {
    summary: 'Report events',
    description:
      'A batch of up to 1,000 events, each `{name, user, sessionId, extra?}` or `{eventName, timestamp?, ' +
      'properties?}` (at most 32 KB each). The batch is stored whole or not at all; the first invalid event ' +
      'names the code: EVENT_NAME_REQUIRED, USER_REQUIRED, SESSION_ID_REQUIRED or INVALID_PARAMETER.',
    bodyExample: ex.eventsRequest,
    success: {
      200: {
        description: 'Recorded.',
        example: { status: 'success', message: '2 event(s) recorded', data: { accepted: 2 } },
      },
    },
  },
  ReportSession: {
    summary: 'Report a session',
    description: 'A repeated report of one session counts once.',
    bodyExample: { sessionId: 'sess_8c1f', startTime: 1767225600000, duration: 320 },
    success: recorded('Session recorded'),
  },
  ReportOrder: {
    summary: 'Report an order',
    description: 'Idempotent on `orderId`.',
    bodyExample: { orderId: 'GPA.3301-1122', productId: 'pro_monthly', price: 9.99, currency: 'USD' },
    success: recorded('Order recorded'),
  },
  ReportConversion: {
    summary: 'Report a conversion',
    bodyExample: { conversionType: 'trial_started', value: 1 },
    success: recorded('Conversion recorded'),
  },
  ReportGlobalSwitch: {
    summary: 'Report the global switch state',
    description: 'Any JSON object up to 32 KB.',
    bodyExample: { enabled: false, reason: 'maintenance' },
    success: recorded('Global switch state recorded'),
  },
  ReportTyped: {
    summary: 'Report typed data',
    description: 'Any JSON object up to 32 KB, stored under its type (device_info, app_info, ...).',
    bodyExample: { model: 'iPhone16,1', os: '18.1' },
    success: recorded('device_info report recorded'),
  },
  UpdateUserAttributes: {
    summary: 'Update standard attributes',
    description: '`null` clears an attribute.',
    bodyExample: { email: 'ada@example.com', name: 'Ada', language: 'en' },
    success: recorded('Attributes updated'),
  },
  ReportAttribution: {
    summary: 'Report attribution',
    bodyExample: { network: 'appsflyer', data: { campaign_id: 'cmp_42', campaign_name: 'spring' } },
    success: recorded('Attribution recorded'),
  },
  ReportSearchAds: {
    summary: 'Report Apple Search Ads attribution',
    description: 'iOS apps only (X-PLATFORM: iOS).',
    bodyExample: {
      attribution: {
        'Version3.1': { 'iad-campaign-id': '1234567', 'iad-campaign-name': 'spring', 'iad-attribution': 'true' },
      },
    },
    success: recorded('Search Ads attribution recorded'),
  },
  CustomerInfo: {
    summary: "The user's entitlements and subscriptions",
    description: `${CUSTOMER_INFO_TEXT} A user this app has never seen is a 404 USER_NOT_FOUND.`,
    success: {
      200: {
        description: 'The customer info of X-USER-ID.',
        example: { status: 'success', message: 'Customer info', data: ex.customerInfo },
      },
    },
  },
  UserOfferings: {
    summary: 'What the user is shown',
    description:
      "Each placement's offering and each remote switch's value for X-USER-ID on X-PLATFORM, with the rule that " +
      'chose it, and every offering of the app. Any user id is answered: one never seen is shown what a new user is.',
    success: {
      200: {
        description: 'What X-USER-ID is shown.',
        example: { status: 'success', message: 'Offerings of the user', data: ex.customerOfferings },
      },
    },
  },
  SegmentInfo: {
    summary: "The user's segments",
    success: {
      200: {
        description: 'Built-in and rule segments the user is in.',
        example: { status: 'success', message: 'Segments of the user', data: ex.segmentInfo },
      },
    },
  },
  AdsInfo: {
    summary: 'Ad-network information',
    description: "The user's attribution and the app's ad networks for the platform; `app_id` must be the key's app.",
    success: {
      200: {
        description: 'Ad-network information.',
        example: { status: 'success', message: 'Ad-network information', data: ex.adsInfo },
      },
    },
  },
  SetCustomProperties: {
    summary: 'Set custom properties',
    description: 'Merged into the profile; `null` deletes a property. A user holds at most 100.',
    bodyExample: { properties: { level: 4, beta: true, nickname: null } },
    success: {
      200: {
        description: 'Updated: how many custom properties the user has now.',
        example: { status: 'success', message: 'Custom properties updated', data: { properties: 2 } },
      },
    },
  },
  AppStoreNotification: {
    summary: 'Receive an App Store notification',
    description:
      'App Store Server Notifications V2 for the app, Production and Sandbox: the URL to give App Store Connect. ' +
      "Authenticated by the signed payload (no key): its x5c chain must lead to Apple Root CA G3 with Apple's " +
      "OIDs, its bundle id (and app Apple id, when configured) must be the app's (`admin stores apple set`), and " +
      'so must its signedTransactionInfo and signedRenewalInfo. ' +
      NOTIFICATION_BOUNDS,
    bodyExample: { signedPayload: exampleJws },
    success: receivedNotification({
      data: { notification_id: '002e14d5-51f5-4503-b5a8-c3a1af68eb20', type: 'DID_RENEW', outcome: 'applied' },
    }),
  },
  GooglePlayNotification: {
    summary: 'Receive a Google Play notification',
    description:
      "A Pub/Sub push of the app's Real-Time Developer Notifications topic. Authenticated by the OIDC token Pub/Sub " +
      'attaches (`Authorization: Bearer <JWT>`, no key): signed by Google (keys from its published JWKS), for the ' +
      'audience configured for the app (`admin stores google set --push-audience`). The push only says that a ' +
      'purchase changed: its state is then read from Google (purchases.subscriptionsv2.get), never taken from the ' +
      'push; a voided subscription purchase is a refund. ' +
      NOTIFICATION_BOUNDS,
    bodyExample: examplePush,
    success: receivedNotification({
      data: { notification_id: '13672493945827361', type: 'SUBSCRIPTION_RENEWED', outcome: 'applied' },
    }),
  },
  TestStoreNotification: {
    summary: 'Receive a test-store notification',
    description:
      "The test store's notification, shaped like an App Store one: what `admin notifications mint` prints. " +
      "Authenticated by the signed payload (no key): signed with the app's test-store key, for this app; only an " +
      'app with the test store on takes it. ' +
      NOTIFICATION_BOUNDS,
    bodyExample: { signedPayload: exampleJws },
    success: receivedNotification({
      data: { notification_id: '6b0f6a4e-8f0e-4c55-9d1e-3a1f2b7c9d10', type: 'DID_RENEW', outcome: 'applied' },
    }),
  },
};

/** The entry of a route (a V2 route shares its V1 route's). */
export const operationTextOf = (routeName: string): OperationText | undefined =>
  OPERATIONS[routeName.replace(/V2$/, '')];
