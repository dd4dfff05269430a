/**
 * Schemas of the API that no function runs, by the names endpoint declarations give them
 * (functions/<api>/<name>.ts): the success payloads (a handler never parses its own answer) and
 * the request bodies a handler reads beyond zod. A declaration names them rather than imports
 * them, so a function's bundle carries a name, not a schema it never runs; lib/http/endpoint.ts
 * types each handler's answer by the name (`import type`), and openapi/ and the tests read them
 * here.
 */
import * as z from 'zod/mini';
import { EVENT_LIMITS } from '../domain/events.js';
import { JWS_PATTERN } from '../domain/store-purchase.js';
import { appOverviewSchema } from './app.js';
import { customerPaginationSchema, customerSummarySchema } from './customer-list.js';
import { define } from './define.js';
import { customerInfoSchema, erasureResultSchema, grantSchema, revokeResultSchema } from './entitlement.js';
import { appOfferingsSchema, customerOfferingsSchema } from './offering.js';
import { productSchema } from './product.js';
import {
  adsInfoSchema,
  customPropertiesResultSchema,
  reportedEventsSchema,
  revenueStatisticsSchema,
  segmentInfoSchema,
  subscriptionMetricsSchema,
} from './responses.js';
import {
  createdSubscription,
  paginationSchema,
  subscriptionDetail,
  subscriptionListItem,
  verificationResult,
} from './subscription.js';
import { historyEntrySchema, historyPaginationSchema } from './subscription-history.js';
import { deliveryPaginationSchema, deliveryViewSchema } from './webhook.js';

/**
 * What an endpoint answers under `data` (`response` of its declaration), and what a page of a
 * list answers beside it (`pagination`).
 */
export const RESPONSES = /* @__PURE__ */ define(() => ({
  SubscriptionList: z.array(subscriptionListItem),
  Pagination: paginationSchema,
  SubscriptionDetail: subscriptionDetail,
  CreatedSubscription: createdSubscription,
  VerificationResult: verificationResult,
  RevenueStatistics: revenueStatisticsSchema,
  SubscriptionMetrics: subscriptionMetricsSchema,
  Products: z.array(productSchema),
  SubscriptionHistory: z.array(historyEntrySchema),
  HistoryPagination: historyPaginationSchema,
  CustomerInfo: customerInfoSchema,
  AppOfferings: appOfferingsSchema,
  CustomerOfferings: customerOfferingsSchema,
  ErasureResult: erasureResultSchema,
  Grant: grantSchema,
  RevokeResult: revokeResultSchema,
  WebhookDeliveries: z.array(deliveryViewSchema),
  DeliveryPagination: deliveryPaginationSchema,
  WebhookDelivery: deliveryViewSchema,
  ReportedEvents: reportedEventsSchema,
  SegmentInfo: segmentInfoSchema,
  AdsInfo: adsInfoSchema,
  CustomPropertiesResult: customPropertiesResultSchema,
  AppOverview: appOverviewSchema,
  CustomerList: z.array(customerSummarySchema),
  CustomerPagination: customerPaginationSchema,
}));
export type Responses = typeof RESPONSES;
export type ResponseName = keyof Responses;
/** What a handler answers for a declared payload. */
export type ResponseOf<N extends ResponseName> = z.output<Responses[N]>;

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const eventCommon = () => ({
  /** The client's id of the event: a resent batch stores it once (`insert_id` is accepted too). */
  eventId: z.optional(text(EVENT_LIMITS.maxIdLength)),
  /** Epoch milliseconds (or seconds), or ISO 8601, between 2000 and now; default: when received. */
  timestamp: z.optional(z.union([z.number(), z.string()])),
});

/**
 * Request bodies as the document shows them (`documentedBody` of a declaration), where the
 * handler checks more than its zod schema says, or reads the body without one.
 */
export const DOCUMENTED_BODIES = /* @__PURE__ */ define(() => ({
  /** lib/domain/events.ts checks events one by one (not with zod): this is what it accepts. Other fields are ignored. */
  EventBatch: z.strictObject({
    events: z
      .array(
        z.union([
          z.object({
            name: text(EVENT_LIMITS.maxNameLength),
            user: text(EVENT_LIMITS.maxIdLength),
            sessionId: text(EVENT_LIMITS.maxIdLength),
            extra: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
            ...eventCommon(),
          }),
          z.object({
            eventName: text(EVENT_LIMITS.maxNameLength),
            /** Default: X-USER-ID. */
            user: z.optional(text(EVENT_LIMITS.maxIdLength)),
            sessionId: z.optional(text(EVENT_LIMITS.maxIdLength)),
            properties: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
            ...eventCommon(),
          }),
        ]),
      )
      .check(z.minLength(1), z.maxLength(EVENT_LIMITS.maxEvents)),
  }),
  /**
   * App Store Server Notifications V2 (and the test store's, shaped like them): the whole
   * notification is the JWS. Each store's decoder (lib/stores/*-notifications.ts) reads and
   * verifies the body itself, and ignores fields it does not know.
   */
  SignedNotification: z.object({ signedPayload: z.string().check(z.regex(JWS_PATTERN)) }),
  /** A Pub/Sub push (Pub/Sub spells the message's ids both ways; one of each pair is enough). */
  PubSubPush: z.object({
    message: z.object({
      /** Base64 of the DeveloperNotification (subscriptionNotification, voidedPurchaseNotification, testNotification). */
      data: z.base64(),
      messageId: z.optional(z.string()),
      message_id: z.optional(z.string()),
      publishTime: z.optional(z.iso.datetime()),
      publish_time: z.optional(z.iso.datetime()),
      attributes: z.optional(z.record(z.string(), z.string())),
    }),
    subscription: z.string(),
  }),
}));
export type DocumentedBodyName = keyof typeof DOCUMENTED_BODIES;
