/**
 * Requests of RevenueCat's SDKs (purchases-ios, purchases-android, purchases-js) as they build
 * them; docs/sdk-revenuecat.md cites the file and line of each. Bodies are open objects: the SDKs
 * add fields release by release (prices, offers, paywall context), and what this service does not
 * read must not refuse a purchase.
 */
import * as z from 'zod/mini';
import { productIdSchema, receiptToVerifySchema, userIdSchema } from './common.js';
import { define } from './define.js';

/** `/v1/subscribers/{app_user_id}`: decoded once by the gateway, as each SDK escapes it. */
export const revenuecatSubscriberParams = /* @__PURE__ */ define(() => z.strictObject({ app_user_id: userIdSchema }));

/**
 * POST /v1/receipts. `fetch_token` is the purchase: a StoreKit 2 transaction's JWS or a StoreKit 1
 * app receipt (iOS), a Play purchase token (Android), a test-store receipt. iOS may send none, with
 * only its `app_transaction` (a sync of a device without purchases): nothing to verify then.
 */
export const revenuecatReceiptBody = /* @__PURE__ */ define(() =>
  z.object({
    app_user_id: userIdSchema,
    fetch_token: z.optional(receiptToVerifySchema),
    is_restore: z.optional(z.boolean()),
    /** iOS: the product bought (absent from a restore or sync). */
    product_id: z.optional(productIdSchema),
    /** Android: the products of the purchase. */
    product_ids: z.optional(z.array(productIdSchema).check(z.maxLength(50))),
    /**
     * The attributes not yet synced, `{key: {value, updated_at_ms}}`, checked by
     * lib/services/revenuecat.ts rather than here: a refused receipt is a lost purchase.
     */
    attributes: z.optional(z.unknown()),
  }),
);
export type RevenueCatReceiptBody = z.infer<typeof revenuecatReceiptBody>;

/** POST /v1/subscribers/identify (logIn): the id the SDK used so far, and the one it logs in as. */
export const revenuecatLogInBody = /* @__PURE__ */ define(() =>
  z.object({
    app_user_id: userIdSchema,
    new_app_user_id: userIdSchema,
  }),
);
export type RevenueCatLogInBody = z.infer<typeof revenuecatLogInBody>;

/** Where a refusal's details name an attribute the SDK posted: they answer as RevenueCat's `attribute_errors`. */
export const ATTRIBUTE_PATH = 'body.attributes.';

/** The most attributes one request may post: as many as a user may keep (CUSTOM_PROPERTY_LIMITS.perUser). */
export const MAX_ATTRIBUTES_PER_REQUEST = 100;

/**
 * POST /v1/subscribers/{app_user_id}/attributes: `{key: {value, updated_at_ms}}`, a null value
 * unsetting the key. Which keys and values are kept is lib/domain/revenuecat-attributes.ts's.
 */
export const revenuecatAttributesBody = /* @__PURE__ */ define(() =>
  z.object({
    attributes: z
      // Each value is checked by lib/domain/revenuecat-attributes.ts, so that one the SDK cannot
      // have meant is refused by its key (attribute_errors), not with the whole request.
      .record(z.string(), z.object({ value: z.optional(z.unknown()), updated_at_ms: z.optional(z.number()) }))
      .check(
        z.refine(
          (attributes) => Object.keys(attributes).length <= MAX_ATTRIBUTES_PER_REQUEST,
          `at most ${MAX_ATTRIBUTES_PER_REQUEST} attributes per request`,
        ),
      ),
  }),
);
export type RevenueCatAttributesBody = z.infer<typeof revenuecatAttributesBody>;

/** The most products one request names (web products: purchases-js splits its ids by URL length; intro eligibility). */
export const MAX_PRODUCT_IDS_PER_REQUEST = 100;

/**
 * GET /rcbilling/v1/subscribers/{app_user_id}/products: `?id=…&id=…` (each product of the
 * offerings), and the `currency` and `discount_code` an app may pass to getOfferings.
 */
export const revenuecatWebProductsQuery = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: z.array(productIdSchema).check(z.minLength(1), z.maxLength(MAX_PRODUCT_IDS_PER_REQUEST)),
    currency: z.optional(z.string().check(z.regex(/^[A-Za-z]{3}$/, 'is not an ISO 4217 currency code'))),
    discount_code: z.optional(z.string().check(z.maxLength(200))),
  }),
);
export type RevenueCatWebProductsQuery = z.infer<typeof revenuecatWebProductsQuery>;

/**
 * POST /v1/subscribers/{app_user_id}/intro_eligibility: the products StoreKit 1 asks about, and the
 * app receipt (`fetch_token`, not read: the user's subscriptions decide).
 */
export const revenuecatIntroEligibilityBody = /* @__PURE__ */ define(() =>
  z.object({
    product_identifiers: z.array(productIdSchema).check(z.maxLength(MAX_PRODUCT_IDS_PER_REQUEST)),
    fetch_token: z.optional(z.string()),
  }),
);
export type RevenueCatIntroEligibilityBody = z.infer<typeof revenuecatIntroEligibilityBody>;

/**
 * POST /v1/subscribers/{app_user_id}/restore/eligibility: the oldest verified StoreKit 2 transaction
 * of the device's Apple account (purchases-ios PostIsPurchaseAllowedByRestoreBehaviorOperation.swift).
 */
export const revenuecatRestoreEligibilityBody = /* @__PURE__ */ define(() =>
  z.object({ fetch_token: receiptToVerifySchema }),
);

/** The most offers one request asks to sign: purchases-ios asks one at a time. */
export const MAX_OFFERS_PER_REQUEST = 10;

/**
 * POST /v1/offers: the App Store promotional offers purchases-ios wants signed before it buys one
 * (PostOfferForSigningOperation.swift), with the device's receipt.
 */
export const revenuecatOffersBody = /* @__PURE__ */ define(() =>
  z.object({
    app_user_id: userIdSchema,
    fetch_token: z.optional(z.string()),
    generate_offers: z
      .array(
        z.object({
          offer_id: z.string().check(z.minLength(1), z.maxLength(100)),
          product_id: productIdSchema,
          subscription_group: z.optional(z.string().check(z.maxLength(100))),
        }),
      )
      .check(z.minLength(1), z.maxLength(MAX_OFFERS_PER_REQUEST)),
  }),
);
export type RevenueCatOffersBody = z.infer<typeof revenuecatOffersBody>;

/** `/v1/config/{domain}`: the SDKs' remote-config domain (a name of theirs). */
export const revenuecatConfigParams = /* @__PURE__ */ define(() =>
  z.strictObject({ domain: z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'is not a config domain')) }),
);
