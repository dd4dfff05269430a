/** Request and response schemas of the subscription records API; types are inferred from them. */
import * as z from 'zod';
import { PAUSE_UNITS, SUBSCRIPTION_STATUSES, type PauseUnit } from '../domain/subscription-state.js';
import {
  currencySchema,
  platformSchema,
  priceSchema,
  productIdSchema,
  receiptDataSchema,
  subscriptionIdSchema,
  timestampSchema,
  transactionIdSchema,
  userIdSchema,
} from './common.js';

export const subscriptionStatusSchema = z.enum(SUBSCRIPTION_STATUSES);

/** Status values accepted by the list filter: the stored ones plus the spec's `pending` alias. */
export const listStatusFilterSchema = z
  .enum([...SUBSCRIPTION_STATUSES, 'pending'])
  .transform((status) => (status === 'pending' ? 'pending_verification' : status));

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** Query strings arrive as strings: an integer parameter must be all digits. */
const integerParam = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a positive integer`)
    .transform(Number);

export const listSubscriptionsQuery = z
  .object({
    page: integerParam('page').pipe(z.number().min(1, 'page must be at least 1')).optional(),
    limit: integerParam('limit')
      .pipe(
        z
          .number()
          .min(1, 'limit must be at least 1')
          .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`),
      )
      .default(DEFAULT_PAGE_SIZE),
    user_id: userIdSchema.optional(),
    status: listStatusFilterSchema.optional(),
    product_id: productIdSchema.optional(),
    platform: platformSchema.optional(),
    cursor: z.string().min(1).max(2048).optional(),
  })
  .strict();
export type ListSubscriptionsQuery = z.infer<typeof listSubscriptionsQuery>;

export const subscriptionIdParams = z.object({ subscription_id: subscriptionIdSchema });

export const createSubscriptionBody = z
  .object({
    user_id: userIdSchema,
    product_id: productIdSchema,
    platform: platformSchema,
    /** Defaults to the catalogue price of the product. */
    price: priceSchema.optional(),
    /** Defaults to the catalogue currency of the product. */
    currency: currencySchema.optional(),
    transaction_id: transactionIdSchema.optional(),
    receipt_data: receiptDataSchema.optional(),
    auto_renew: z.boolean().default(true),
    trial_period: z.boolean().default(false),
  })
  .strict();
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

export const updateSubscriptionBody = z
  .object({
    status: subscriptionStatusSchema.optional(),
    auto_renew: z.boolean().optional(),
    cancellation_reason: z.string().min(1).max(500).optional(),
    cancellation_date: timestampSchema.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, {
    message: 'body must set at least one of status, auto_renew, cancellation_reason, cancellation_date',
  });
export type UpdateSubscriptionBody = z.infer<typeof updateSubscriptionBody>;

export const renewSubscriptionBody = z
  .object({
    transaction_id: transactionIdSchema.optional(),
    receipt_data: receiptDataSchema.optional(),
    /** Defaults to the current expires_at plus one billing period of the product. */
    expires_at: timestampSchema.optional(),
  })
  .strict();
export type RenewSubscriptionBody = z.infer<typeof renewSubscriptionBody>;

/** Longest pause per unit: about a year whichever unit is used. */
const MAX_PAUSE: Record<PauseUnit, number> = { days: 365, weeks: 52, months: 12 };

export const pauseSubscriptionBody = z
  .object({
    pause_duration: z.number().int('pause_duration must be a whole number').min(1, 'pause_duration must be at least 1'),
    unit: z.enum(PAUSE_UNITS).default('days'),
    reason: z.string().min(1).max(500).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.pause_duration > MAX_PAUSE[body.unit]) {
      ctx.addIssue({ code: 'custom', path: ['pause_duration'], message: `pause_duration must be at most ${MAX_PAUSE[body.unit]} ${body.unit}` });
    }
  });
export type PauseSubscriptionBody = z.infer<typeof pauseSubscriptionBody>;

export const cancelSubscriptionBody = z
  .object({
    reason: z.string().min(1).max(500).optional(),
    /** false (default): cancel at the end of the paid period; true: end access now. */
    immediate: z.boolean().default(false),
    /** Record a refund of the current period; only with immediate: true. */
    refund: z.boolean().default(false),
  })
  .strict()
  .refine((body) => !body.refund || body.immediate, { path: ['refund'], message: 'refund requires immediate: true' });
export type CancelSubscriptionBody = z.infer<typeof cancelSubscriptionBody>;

/** Resume takes no body; `{}` is accepted too. */
export const resumeSubscriptionBody = z.object({}).strict();

export const verifyPurchaseBody = z
  .object({
    platform: platformSchema,
    receipt_data: receiptDataSchema,
    user_id: userIdSchema,
    /** When given, it must be a transaction of the receipt (its own id or its original's). */
    transaction_id: transactionIdSchema.optional(),
  })
  .strict();
export type VerifyPurchaseBody = z.infer<typeof verifyPurchaseBody>;

const isoTimestamp = z.iso.datetime();

/** Spec: Subscription (list item). */
export const subscriptionListItem = z
  .object({
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
  })
  .strict();
export type SubscriptionListItem = z.infer<typeof subscriptionListItem>;

/** Spec: Subscription (detail): list item fields plus these. */
export const subscriptionDetail = subscriptionListItem
  .extend({
    trial_expires_at: isoTimestamp.nullable(),
    updated_at: isoTimestamp,
    product_info: z.object({ name: z.string(), description: z.string(), features: z.array(z.string()) }).strict(),
    payment_info: z
      .object({
        transaction_id: z.string().nullable(),
        receipt_data: z.string().nullable(),
        payment_method: z.string(),
        last_payment: isoTimestamp.nullable(),
        next_billing: isoTimestamp.nullable(),
      })
      .strict(),
    usage_stats: z
      .object({
        features_used: z.number().int(),
        last_activity: isoTimestamp.nullable(),
        total_sessions: z.number().int(),
      })
      .strict(),
    // Ours, beyond the spec: what the lifecycle needs clients to see.
    paused_at: isoTimestamp.nullable(),
    paused_until: isoTimestamp.nullable(),
    pause_reason: z.string().nullable(),
    cancel_at_period_end: z.boolean(),
    cancelled_at: isoTimestamp.nullable(),
    cancellation_reason: z.string().nullable(),
    refunded_at: isoTimestamp.nullable(),
  })
  .strict();
export type SubscriptionDetail = z.infer<typeof subscriptionDetail>;

/** Spec: Created subscription. */
export const createdSubscription = subscriptionListItem.pick({
  id: true,
  user_id: true,
  product_id: true,
  status: true,
  created_at: true,
});
export type CreatedSubscription = z.infer<typeof createdSubscription>;

/** Spec: Verification result. */
export const verificationResult = z
  .object({
    verification_status: z.literal('valid'),
    subscription_id: subscriptionIdSchema,
    product_id: z.string(),
    expires_at: isoTimestamp,
    auto_renew: z.boolean(),
    trial_period: z.boolean(),
    original_transaction_id: z.string(),
    purchase_date: isoTimestamp,
  })
  .strict();
export type VerificationResult = z.infer<typeof verificationResult>;

export const paginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    pages: z.number().int(),
    /** Opaque; pass as `cursor` to read the next page at constant cost. Null on the last page. */
    next_cursor: z.string().nullable(),
  })
  .strict();
export type Pagination = z.infer<typeof paginationSchema>;


export const revenueQuery = z
  .object({
    start_date: z.string({ message: 'start_date is required (YYYY-MM-DD)' }),
    end_date: z.string({ message: 'end_date is required (YYYY-MM-DD)' }),
    group_by: z.enum(['day', 'week', 'month'], 'group_by must be day, week or month').default('day'),
    product_id: productIdSchema.optional(),
  })
  .strict();
export type RevenueQuery = z.infer<typeof revenueQuery>;
