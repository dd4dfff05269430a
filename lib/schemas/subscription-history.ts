/** Request and response schemas of a subscription's history (`GET /v1/subscriptions/{subscription_id}/history`). */
import * as z from 'zod/mini';
import { CHANGE_CAUSES, HISTORY_FIELDS } from '../domain/history-entries.js';
import { define } from './define.js';
import { pageLimitParam } from './subscription.js';

export const subscriptionHistoryQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: pageLimitParam,
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  }),
);
export type SubscriptionHistoryQuery = z.infer<typeof subscriptionHistoryQuery>;

const historyValue = /* @__PURE__ */ define(() => z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** One change of a subscription (lib/domain/history-entries.ts HistoryEntry). */
export const historyEntrySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    at: z.iso.datetime(),
    version: z.number().check(z.int()),
    cause: z.enum([...CHANGE_CAUSES, 'unknown']),
    action: z.nullable(z.string()),
    notification_type: z.nullable(z.string()),
    changes: z.array(z.strictObject({ field: z.enum(HISTORY_FIELDS), from: historyValue, to: historyValue })),
  }),
);

export const historyPaginationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z.number().check(z.int()),
    /** Opaque; pass as `cursor` for the next (older) page. Null on the last page. */
    next_cursor: z.nullable(z.string()),
  }),
);
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
export type HistoryPagination = z.infer<typeof historyPaginationSchema>;
