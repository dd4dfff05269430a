/**
 * Entitlements (`admin entitlements put`): named access levels an app's products unlock, and the
 * customer info both APIs answer with (GET /v1/customers/{user_id}, GET /users/customer_info).
 */
import * as z from 'zod/mini';
import { ERASED_KINDS, type ErasedKind } from '../domain/erasure-scope.js';
import { STORE_NAMES } from '../domain/store-purchase.js';
import { SUBSCRIPTION_ENVIRONMENTS } from '../domain/store-sync.js';
import { productIdSchema, timestampSchema, uniqueIds, userIdSchema } from './common.js';
import { define } from './define.js';
import { subscriptionListItem } from './subscription.js';

export const entitlementIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be 1-64 lower-case letters, digits or _')),
);

/** An app defines at most this many; all of them are one item (under 400 KB with 100 products each). */
export const MAX_ENTITLEMENTS_PER_APP = 100;
export const MAX_PRODUCTS_PER_ENTITLEMENT = 100;

export const entitlementSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: entitlementIdSchema,
    name: z.string().check(z.minLength(1), z.maxLength(200)),
    products: z
      .array(productIdSchema)
      .check(z.minLength(1, 'an entitlement needs at least one product'), z.maxLength(MAX_PRODUCTS_PER_ENTITLEMENT)),
  }),
);
export type Entitlement = z.infer<typeof entitlementSchema>;

/** The file of `entitlements put`: the whole set of the app's entitlements (it replaces the former set). */
export const entitlementCatalogueSchema = /* @__PURE__ */ define(() =>
  z.array(entitlementSchema).check(
    z.minLength(1, 'the file must list at least one entitlement'),
    z.maxLength(MAX_ENTITLEMENTS_PER_APP),
    uniqueIds<Entitlement>('entitlement'),
    z.superRefine((entitlements, ctx) => {
      entitlements.forEach((entitlement, index) => {
        const products = new Set<string>();
        entitlement.products.forEach((product, at) => {
          if (products.has(product))
            ctx.addIssue({ code: 'custom', path: [index, 'products', at], message: `duplicate product id ${product}` });
          products.add(product);
        });
      });
    }),
  ),
);

/** GET /v1/customers/{user_id}: a user id over its bound is a 400, like anywhere else. */
export const customerParams = /* @__PURE__ */ define(() => z.strictObject({ user_id: userIdSchema }));

/**
 * Subscriptions customer info reads per request, newest first: the bound on its work. A user past
 * it (a hundred purchases in one app) is decided on the newest hundred; older ones have long ended.
 */
export const MAX_CUSTOMER_SUBSCRIPTIONS = 100;

/** `grant`: the entitlement is decided by a grant (POST /v1/customers/{user_id}/entitlements/{id}/grant), not a purchase. */
export const PERIOD_TYPES = ['trial', 'normal', 'grant'] as const;

const isoTimestamp = /* @__PURE__ */ define(() => z.iso.datetime());

/** One entitlement of the user; the fields after `active` describe the subscription that decides it (null: none ever). */
export const entitlementStateSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    active: z.boolean(),
    product_id: z.nullable(z.string()),
    expires_at: z.nullable(isoTimestamp),
    will_renew: z.boolean(),
    period_type: z.nullable(z.enum(PERIOD_TYPES)),
    store: z.nullable(z.enum(STORE_NAMES)),
    environment: z.nullable(z.enum(SUBSCRIPTION_ENVIRONMENTS)),
    billing_issue_detected_at: z.nullable(isoTimestamp),
    grace_period_expires_at: z.nullable(isoTimestamp),
  }),
);
export type EntitlementState = z.infer<typeof entitlementStateSchema>;

export const customerInfoSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: z.string(),
    entitlements: z.record(z.string(), entitlementStateSchema),
    subscriptions: z.array(subscriptionListItem),
    first_seen_at: z.nullable(isoTimestamp),
    last_seen_at: z.nullable(isoTimestamp),
  }),
);
export type CustomerInfo = z.infer<typeof customerInfoSchema>;

/**
 * POST /v1/customers/{user_id}/entitlements/{entitlement_id}/grant and /revoke. Any entitlement id
 * is taken here: one the app has not defined is a 404 ENTITLEMENT_NOT_FOUND, not a 400.
 */
export const grantParams = /* @__PURE__ */ define(() =>
  z.strictObject({ user_id: userIdSchema, entitlement_id: z.string() }),
);

/** Exactly one of the two (lib/domain/grant-decisions.ts decideGrant says which is missing or extra, and checks the duration). */
export const grantBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** ISO 8601, whole units: P1M, P7D, PT12H, P1Y2M... Counts from the end of a grant still running. */
    duration: z.optional(z.string().check(z.maxLength(64))),
    /** The end of the grant, in the future. */
    expires_at: z.optional(timestampSchema),
  }),
);
export type GrantBody = z.infer<typeof grantBody>;

export const GRANT_END_REASONS = ['revoked', 'expired'] as const;

/** A user's grant of an entitlement, as the grant and revoke routes answer it. */
export const grantSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: z.string(),
    entitlement_id: z.string(),
    active: z.boolean(),
    granted_at: isoTimestamp,
    expires_at: isoTimestamp,
    ended_at: z.nullable(isoTimestamp),
    end_reason: z.nullable(z.enum(GRANT_END_REASONS)),
  }),
);
export type Grant = z.infer<typeof grantSchema>;

/** The revoke route's answer: whether a running grant was ended (false: none ran), and the grant as it now is (null: never granted). */
export const revokeResultSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ revoked: z.boolean(), grant: z.nullable(grantSchema) }),
);
export type RevokeResult = z.infer<typeof revokeResultSchema>;

/** DELETE /v1/customers/{user_id}: counts of what the erasure removed so far (lib/domain/erasure-scope.ts). */
export const erasureResultSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: z.string(),
    status: z.enum(['erased', 'in_progress']),
    removed: z.strictObject(
      Object.fromEntries(ERASED_KINDS.map((kind) => [kind, z.number().check(z.int(), z.nonnegative())])) as Record<
        ErasedKind,
        z.ZodMiniNumber<number>
      >,
    ),
  }),
);
