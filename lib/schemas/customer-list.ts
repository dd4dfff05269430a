/** GET /v1/customers: the app's customers by user id, narrowed to a prefix. */
import * as z from 'zod/mini';
import { USER_ID_MAX_BYTES } from './common.js';
import { define } from './define.js';
import { pageLimitParam } from './subscription.js';

export const listCustomersQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** Only user ids that start with it (case-sensitive); absent or empty: every customer. */
    prefix: z.optional(
      z.string().check(
        z.maxLength(256, 'must be at most 256 characters'),
        // As a user id is: a longer prefix would pass the index key's 1,024 bytes (a 500 from DynamoDB).
        z.refine(
          (p) => Buffer.byteLength(p) <= USER_ID_MAX_BYTES,
          `must be at most ${USER_ID_MAX_BYTES} bytes of UTF-8`,
        ),
      ),
    ),
    limit: pageLimitParam,
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  }),
);
export type ListCustomersQuery = z.infer<typeof listCustomersQuery>;

/** A customer of the list: `GET /v1/customers/{user_id}` answers the rest. */
export const customerSummarySchema = /* @__PURE__ */ define(() => z.strictObject({ user_id: z.string() }));

export const customerPaginationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z.number().check(z.int()),
    /** Opaque; pass as `cursor` (with the same `prefix`) for the next page. Null on the last page. */
    next_cursor: z.nullable(z.string()),
  }),
);

export interface CustomerList {
  data: z.infer<typeof customerSummarySchema>[];
  pagination: z.infer<typeof customerPaginationSchema>;
}
