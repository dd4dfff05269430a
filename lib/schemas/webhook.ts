/** Request and response schemas of the webhook deliveries API (`/v1/webhooks`). */
import * as z from 'zod/mini';
import { DELIVERY_STATUSES } from '../domain/webhook-deliveries.js';
import { DELIVERY_ERRORS } from '../domain/webhook-errors.js';
import { EVENT_KINDS } from '../events/schemas.js';
import { define } from './define.js';
import { pageLimitParam } from './subscription.js';

const wholeNumber = /* @__PURE__ */ define(() => z.number().check(z.int()));
const timestamp = /* @__PURE__ */ define(() => z.iso.datetime());

export const deliveryStatusSchema = /* @__PURE__ */ define(() =>
  z.enum(DELIVERY_STATUSES, `status must be one of ${DELIVERY_STATUSES.join(', ')}`),
);

export const listDeliveriesQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: pageLimitParam,
    status: z.optional(deliveryStatusSchema),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  }),
);
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

export const eventIdParams = /* @__PURE__ */ define(() =>
  z.object({ event_id: z.string().check(z.regex(/^evt_[0-9a-f]{24}$/, 'is not an event id')) }),
);

/** One delivery as the API and `admin webhooks deliveries` show it (lib/domain/webhook-deliveries.ts). */
export const deliveryViewSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    event_id: z.string(),
    event: z.enum(EVENT_KINDS),
    subscription_id: z.nullable(z.string()),
    change: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: wholeNumber,
    next_attempt_at: z.nullable(timestamp),
    last_status_code: z.nullable(wholeNumber),
    /** What failed when the last attempt got no answer, as a category (lib/domain/webhook-errors.ts). */
    last_error: z.nullable(z.enum(DELIVERY_ERRORS)),
    redelivered_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const deliveryPaginationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: wholeNumber,
    /** Opaque; pass as `cursor` (with the same `status`) for the next page. Null on the last page. */
    next_cursor: z.nullable(z.string()),
  }),
);
export type DeliveryPagination = z.infer<typeof deliveryPaginationSchema>;
