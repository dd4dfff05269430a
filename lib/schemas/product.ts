/** Spec: Product. The operator CLI validates catalogue files with it; the API returns it as stored. */

import * as z from 'zod/mini';
import { currencySchema, platformSchema, priceSchema, productIdSchema, uniqueIds } from './common.js';
import { define } from './define.js';

/** monthly and yearly are the spec's; the others are what stores sell too. */
export const BILLING_PERIODS = ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] as const;
export const billingPeriodSchema = /* @__PURE__ */ define(() => z.enum(BILLING_PERIODS));
export type BillingPeriod = z.infer<typeof billingPeriodSchema>;

export const productSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: productIdSchema,
    name: z.string().check(z.minLength(1), z.maxLength(200)),
    description: z._default(z.string().check(z.maxLength(2000)), ''),
    price: priceSchema,
    currency: currencySchema,
    billing_period: billingPeriodSchema,
    trial_period_days: z._default(z.number().check(z.int(), z.gte(0), z.lte(365)), 0),
    features: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.maxLength(100)), []),
    platforms: z.array(platformSchema).check(z.minLength(1), z.maxLength(3)),
    active: z._default(z.boolean(), true),
  }),
);
export type Product = z.infer<typeof productSchema>;
/** What a paywall shows of a product its offering sells (the offerings keep a copy: lib/data/offerings.ts). */
export type OfferedProduct = Pick<Product, 'name' | 'description' | 'price' | 'currency' | 'billing_period'>;

export const MAX_PRODUCTS_PER_APP = 500;

export const productCatalogueSchema = /* @__PURE__ */ define(() =>
  z
    .array(productSchema)
    .check(
      z.minLength(1, 'the catalogue file must list at least one product'),
      z.maxLength(MAX_PRODUCTS_PER_APP),
      uniqueIds<Product>('product'),
    ),
);
