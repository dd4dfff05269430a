/**
 * Response bodies of both APIs that lib/schemas/subscription.ts does not already define: the
 * envelopes, revenue statistics and the mobile API's `data` objects. Handlers never parse their
 * own responses, so lib/ imports only the types inferred here (`import type`, erased from the
 * bundles); the OpenAPI generator (openapi/) and the tests import the schemas.
 */
import * as z from 'zod/mini';
import { RECEIVED_OUTCOMES } from '../domain/notification-outcomes.js';
import { define } from './define.js';

const wholeNumber = /* @__PURE__ */ define(() => z.number().check(z.int()));
const calendarDate = /* @__PURE__ */ define(() => z.iso.date());

/** Field-level validation problem: `path` is a dotted field path, e.g. `body.price`. */
export const errorDetailSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ path: z.string(), message: z.string() }),
);

/** Present on a retryable error (429, 503, some 409s): the same request may succeed later. */
const retryableField = /* @__PURE__ */ define(() => z.optional(z.literal(true)));
/** Present on 5xx answers only: the id the logs carry for this request. */
const requestIdField = /* @__PURE__ */ define(() => z.optional(z.string()));

/** Subscription API error: `{error: {code, message, details?}}`. */
export const subscriptionsErrorSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      details: z.optional(z.array(errorDetailSchema)),
      retryable: retryableField,
      request_id: requestIdField,
    }),
  }),
);
export type SubscriptionsErrorBody = z.infer<typeof subscriptionsErrorSchema>;

/** Mobile API error: `{status: "error", code, message}`. */
export const mobileErrorSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    status: z.literal('error'),
    code: z.string(),
    message: z.string(),
    retryable: retryableField,
    request_id: requestIdField,
  }),
);
export type MobileErrorBody = z.infer<typeof mobileErrorSchema>;

/** Mobile API success: `{status: "success", message}`, with `data` on endpoints that return some. */
export const mobileSuccessSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ status: z.literal('success'), message: z.string() }),
);

/** Spec: Revenue statistics, plus `unconverted`. */
export const revenueStatisticsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    total_revenue: z.number(),
    currency: z.string(),
    period: z.strictObject({ start: calendarDate, end: calendarDate }),
    breakdown: z.array(
      z.strictObject({
        /** First day of the bucket (day, week or month). */
        date: calendarDate,
        revenue: z.number(),
        subscriptions: wholeNumber,
        new_subscriptions: wholeNumber,
        renewals: wholeNumber,
      }),
    ),
    products: z.array(z.strictObject({ product_id: z.string(), revenue: z.number(), percentage: z.number() })),
    /** Ours: amounts for which no exchange rate into `currency` was supplied (`admin fx put`). */
    unconverted: z.array(z.strictObject({ currency: z.string(), amount: z.number() })),
  }),
);
export type RevenueStatistics = z.infer<typeof revenueStatisticsSchema>;

const metricFlows = () => ({
  new_subscriptions: wholeNumber,
  churned: wholeNumber,
  trial_conversions: wholeNumber,
  trials_ended: wholeNumber,
  /** trial_conversions / trials_ended in percent, two decimals; null when no trial ended. */
  trial_conversion_rate: z.nullable(z.number()),
  refunds: wholeNumber,
});

/** Ours: GET /v1/subscriptions/metrics (docs/api.md#subscription-metrics). */
export const subscriptionMetricsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    currency: z.string(),
    period: z.strictObject({ start: calendarDate, end: calendarDate }),
    breakdown: z.array(
      z.strictObject({
        /** First day of the bucket (day, week or month). */
        date: calendarDate,
        /** At the end of the bucket: paying subscriptions' prices per month, in `currency`. */
        mrr: z.number(),
        active_subscriptions: wholeNumber,
        active_trials: wholeNumber,
        ...metricFlows(),
        /** MRR in currencies with no exchange rate into `currency` for the bucket's last day. */
        unconverted_mrr: z.array(z.strictObject({ currency: z.string(), amount: z.number() })),
      }),
    ),
    /** The flows of the whole period. */
    totals: z.strictObject(metricFlows()),
  }),
);
export type SubscriptionMetrics = z.infer<typeof subscriptionMetricsSchema>;

/** POST /users/report/events: how many events the batch recorded. */
export const reportedEventsSchema = /* @__PURE__ */ define(() => z.strictObject({ accepted: wholeNumber }));

/** POST /users/custom_properties/set: how many custom properties the user has now. */
export const customPropertiesResultSchema = /* @__PURE__ */ define(() => z.strictObject({ properties: wholeNumber }));

/** GET /segment/info */
export const segmentInfoSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: z.string(),
    segments: z.array(z.strictObject({ id: z.string(), name: z.string(), type: z.enum(['built_in', 'custom']) })),
  }),
);
export type SegmentInfo = z.infer<typeof segmentInfoSchema>;

/** What the profile keeps of an attribution report: first touch (never overwritten) and the latest. */
export const attributionSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    network: z.string(),
    campaign_id: z.nullable(z.string()),
    campaign_name: z.nullable(z.string()),
    attributed: z.boolean(),
    /** The report's `data` as sent (for Search Ads: the version and its entries). */
    data: z.record(z.string(), z.unknown()),
    reported_at: z.iso.datetime(),
  }),
);
export type Attribution = z.infer<typeof attributionSchema>;

/** GET /adsinfo/{platform}/{app_id}/{store_id} */
export const adsInfoSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    platform: z.enum(['ios', 'android']),
    app_id: z.string(),
    store_id: z.string(),
    user: z.strictObject({
      user_id: z.string(),
      attribution: z.strictObject({ first: z.nullable(attributionSchema), latest: z.nullable(attributionSchema) }),
    }),
    /** The app's ad networks for the platform (`admin ads put`). */
    networks: z.array(
      z.strictObject({
        name: z.string(),
        enabled: z.boolean(),
        settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
      }),
    ),
  }),
);
export type AdsInfo = z.infer<typeof adsInfoSchema>;

/**
 * POST /notifications/{store}/{app_id}: what receiving the store's notification did. A store reads
 * only the status; the body tells an operator replaying a notification by hand.
 */
export const receivedNotificationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** The store's id of the notification (notificationUUID, Pub/Sub messageId): a redelivery carries the same. */
    notification_id: z.string(),
    /** The store's type as sent (Apple's notificationType, Google's notification type by name). */
    type: z.string(),
    outcome: z.enum(RECEIVED_OUTCOMES),
  }),
);
export type ReceivedNotification = z.infer<typeof receivedNotificationSchema>;

/** The notification routes answer in the subscription API's way: the payload under `data`. */
export const receivedNotificationResponseSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ data: receivedNotificationSchema }),
);
