/** Request and response schemas of the subscription records API; types are inferred from them. */

import * as z from 'zod/mini';
import { STORE_NAMES } from '../domain/store-purchase.js';
import { SUBSCRIPTION_ENVIRONMENTS } from '../domain/store-sync.js';
import { PAUSE_UNITS, type PauseUnit, SUBSCRIPTION_STATUSES } from '../domain/subscription-state.js';
import {
  currencySchema,
  platformSchema,
  priceSchema,
  productIdSchema,
  receiptDataSchema,
  receiptToVerifySchema,
  subscriptionIdSchema,
  timestampSchema,
  transactionIdSchema,
  userIdSchema,
} from './common.js';
import { define } from './define.js';

export const subscriptionStatusSchema = /* @__PURE__ */ define(() => z.enum(SUBSCRIPTION_STATUSES));

/** Status values accepted by the list filter: the stored ones plus the spec's `pending` alias. */
export const listStatusFilterSchema = /* @__PURE__ */ define(() =>
  z.pipe(
    z.enum([...SUBSCRIPTION_STATUSES, 'pending']),
    z.transform((status: SubscriptionStatusFilter) => (status === 'pending' ? 'pending_verification' : status)),
  ),
);
type SubscriptionStatusFilter = (typeof SUBSCRIPTION_STATUSES)[number] | 'pending';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** Query strings arrive as strings: an integer parameter must be all digits, then meet `bounds`. */
const integerParam = (name: string, ...bounds: Parameters<ReturnType<typeof z.number>['check']>) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d{1,9}$/, `${name} must be a positive integer`)), z.transform(Number)),
    z.number().check(...bounds),
  );

/** `limit` of every paged list: 1 to MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when absent. */
export const pageLimitParam = /* @__PURE__ */ define(() =>
  z._default(
    integerParam(
      'limit',
      z.gte(1, 'limit must be at least 1'),
      z.lte(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`),
    ),
    DEFAULT_PAGE_SIZE,
  ),
);

export const listSubscriptionsQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    page: z.optional(integerParam('page', z.gte(1, 'page must be at least 1'))),
    limit: pageLimitParam,
    user_id: z.optional(userIdSchema),
    status: z.optional(listStatusFilterSchema),
    product_id: z.optional(productIdSchema),
    platform: z.optional(platformSchema),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  }),
);
export type ListSubscriptionsQuery = z.infer<typeof listSubscriptionsQuery>;

export const subscriptionIdParams = /* @__PURE__ */ define(() => z.object({ subscription_id: subscriptionIdSchema }));

export const createSubscriptionBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: userIdSchema,
    product_id: productIdSchema,
    platform: platformSchema,
    /** Defaults to the catalogue price of the product. */
    price: z.optional(priceSchema),
    /** Defaults to the catalogue currency of the product. */
    currency: z.optional(currencySchema),
    transaction_id: z.optional(transactionIdSchema),
    receipt_data: z.optional(receiptDataSchema),
    auto_renew: z._default(z.boolean(), true),
    trial_period: z._default(z.boolean(), false),
  }),
);
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

const reasonSchema = /* @__PURE__ */ define(() => z.string().check(z.minLength(1), z.maxLength(500)));

export const updateSubscriptionBody = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      status: z.optional(subscriptionStatusSchema),
      auto_renew: z.optional(z.boolean()),
      cancellation_reason: z.optional(reasonSchema),
      cancellation_date: z.optional(timestampSchema),
    })
    .check(
      z.refine((body) => Object.keys(body).length > 0, {
        message: 'body must set at least one of status, auto_renew, cancellation_reason, cancellation_date',
      }),
    ),
);
export type UpdateSubscriptionBody = z.infer<typeof updateSubscriptionBody>;

export const renewSubscriptionBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    transaction_id: z.optional(transactionIdSchema),
    receipt_data: z.optional(receiptDataSchema),
    /** Defaults to the current expires_at plus one billing period of the product. */
    expires_at: z.optional(timestampSchema),
  }),
);
export type RenewSubscriptionBody = z.infer<typeof renewSubscriptionBody>;

/** Longest pause per unit: about a year whichever unit is used. */
const MAX_PAUSE: Record<PauseUnit, number> = { days: 365, weeks: 52, months: 12 };

export const pauseSubscriptionBody = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      pause_duration: z
        .number()
        .check(z.int('pause_duration must be a whole number'), z.gte(1, 'pause_duration must be at least 1')),
      unit: z._default(z.enum(PAUSE_UNITS), 'days'),
      reason: z.optional(reasonSchema),
    })
    .check(
      z.superRefine((body, ctx) => {
        if (body.pause_duration > MAX_PAUSE[body.unit]) {
          ctx.addIssue({
            code: 'custom',
            path: ['pause_duration'],
            message: `pause_duration must be at most ${MAX_PAUSE[body.unit]} ${body.unit}`,
          });
        }
      }),
    ),
);
export type PauseSubscriptionBody = z.infer<typeof pauseSubscriptionBody>;

export const cancelSubscriptionBody = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      reason: z.optional(reasonSchema),
      /** false (default): cancel at the end of the paid period; true: end access now. */
      immediate: z._default(z.boolean(), false),
      /** Record a refund of the current period; only with immediate: true. */
      refund: z._default(z.boolean(), false),
    })
    .check(
      z.refine((body) => !body.refund || body.immediate, {
        path: ['refund'],
        message: 'refund requires immediate: true',
      }),
    ),
);
export type CancelSubscriptionBody = z.infer<typeof cancelSubscriptionBody>;

/** Resume takes no body; `{}` is accepted too. */
export const resumeSubscriptionBody = /* @__PURE__ */ define(() => z.strictObject({}));

export const verifyPurchaseBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    platform: platformSchema,
    receipt_data: receiptToVerifySchema,
    user_id: userIdSchema,
    /** When given, it must be a transaction of the receipt (its own id or its original's). */
    transaction_id: z.optional(transactionIdSchema),
  }),
);
export type VerifyPurchaseBody = z.infer<typeof verifyPurchaseBody>;

const isoTimestamp = /* @__PURE__ */ define(() => z.iso.datetime());
const wholeNumber = /* @__PURE__ */ define(() => z.number().check(z.int()));

/** Spec: Subscription (list item). */
export const subscriptionListItem = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: subscriptionIdSchema,
    user_id: z.string(),
    product_id: z.string(),
    platform: platformSchema,
    status: subscriptionStatusSchema,
    price: z.number(),
    currency: z.string(),
    started_at: isoTimestamp,
    expires_at: isoTimestamp,
    auto_renew: z.boolean(),
    trial_period: z.boolean(),
    created_at: isoTimestamp,
  }),
);
export type SubscriptionListItem = z.infer<typeof subscriptionListItem>;

/** Spec: Subscription (detail): list item fields plus these. */
export const subscriptionDetail = /* @__PURE__ */ define(() =>
  z.extend(subscriptionListItem, {
    trial_expires_at: z.nullable(isoTimestamp),
    updated_at: isoTimestamp,
    product_info: z.strictObject({ name: z.string(), description: z.string(), features: z.array(z.string()) }),
    payment_info: z.strictObject({
      transaction_id: z.nullable(z.string()),
      receipt_data: z.nullable(z.string()),
      payment_method: z.string(),
      last_payment: z.nullable(isoTimestamp),
      next_billing: z.nullable(isoTimestamp),
    }),
    usage_stats: z.strictObject({
      features_used: wholeNumber,
      last_activity: z.nullable(isoTimestamp),
      total_sessions: wholeNumber,
    }),
    // Ours, beyond the spec: what the lifecycle needs clients to see.
    paused_at: z.nullable(isoTimestamp),
    paused_until: z.nullable(isoTimestamp),
    pause_reason: z.nullable(z.string()),
    cancel_at_period_end: z.boolean(),
    cancelled_at: z.nullable(isoTimestamp),
    cancellation_reason: z.nullable(z.string()),
    refunded_at: z.nullable(isoTimestamp),
    /** The store failed to charge the renewal since then (it retries); null: no billing issue. */
    billing_issue_at: z.nullable(isoTimestamp),
    /** While the store retries, the subscriber keeps access until then (the store's grace period). */
    grace_period_expires_at: z.nullable(isoTimestamp),
    /** Which store sells it (null: recorded through this API, no store behind it). */
    store: z.nullable(z.enum(STORE_NAMES)),
    /** Real money (production), a store's test accounts (sandbox: no revenue), or the test store. */
    environment: z.enum(SUBSCRIPTION_ENVIRONMENTS),
    /**
     * Restores that moved this subscription's purchase to another user (restore policy
     * `transfer`), listed on both subscriptions, oldest first; `event_id` is the
     * subscription.transferred notification's.
     */
    transfers: z.array(
      z.strictObject({
        from_user_id: z.string(),
        to_user_id: z.string(),
        from_subscription_id: subscriptionIdSchema,
        to_subscription_id: subscriptionIdSchema,
        original_transaction_id: z.string(),
        transferred_at: isoTimestamp,
        event_id: z.string(),
      }),
    ),
  }),
);
export type SubscriptionDetail = z.infer<typeof subscriptionDetail>;

/** Spec: Created subscription. */
export const createdSubscription = /* @__PURE__ */ define(() =>
  z.pick(subscriptionListItem, {
    id: true,
    user_id: true,
    product_id: true,
    status: true,
    created_at: true,
  }),
);
export type CreatedSubscription = z.infer<typeof createdSubscription>;

/** Spec: Verification result. */
export const verificationResult = /* @__PURE__ */ define(() =>
  z.strictObject({
    verification_status: z.literal('valid'),
    subscription_id: subscriptionIdSchema,
    product_id: z.string(),
    expires_at: isoTimestamp,
    auto_renew: z.boolean(),
    trial_period: z.boolean(),
    original_transaction_id: z.string(),
    purchase_date: isoTimestamp,
  }),
);
export type VerificationResult = z.infer<typeof verificationResult>;

export const paginationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    page: wholeNumber,
    limit: wholeNumber,
    total: wholeNumber,
    pages: wholeNumber,
    /** Opaque; pass as `cursor` to read the next page at constant cost. Null on the last page. */
    next_cursor: z.nullable(z.string()),
  }),
);
export type Pagination = z.infer<typeof paginationSchema>;

export const revenueQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    start_date: z.string({ message: 'start_date is required (YYYY-MM-DD)' }),
    end_date: z.string({ message: 'end_date is required (YYYY-MM-DD)' }),
    group_by: z._default(z.enum(['day', 'week', 'month'], 'group_by must be day, week or month'), 'day'),
    product_id: z.optional(productIdSchema),
  }),
);
export type RevenueQuery = z.infer<typeof revenueQuery>;

/** Ours: GET /v1/subscriptions/metrics (docs/api.md#subscription-metrics). */
export const metricsQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    start_date: z.string({ message: 'start_date is required (YYYY-MM-DD)' }),
    end_date: z.string({ message: 'end_date is required (YYYY-MM-DD)' }),
    group_by: z._default(z.enum(['day', 'week', 'month'], 'group_by must be day, week or month'), 'day'),
  }),
);
export type MetricsQuery = z.infer<typeof metricsQuery>;
