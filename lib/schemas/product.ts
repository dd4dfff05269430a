/** Spec: Product. The operator CLI validates catalogue files with it; the API returns it as stored. */
import * as z from 'zod';
import { currencySchema, platformSchema, priceSchema, productIdSchema } from './common.js';

/** monthly and yearly are the spec's; the others are what stores sell too. */
export const BILLING_PERIODS = ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] as const;
export const billingPeriodSchema = z.enum(BILLING_PERIODS);
export type BillingPeriod = z.infer<typeof billingPeriodSchema>;

export const productSchema = z
  .object({
    id: productIdSchema,
    name: z.string().min(1).max(200),
    description: z.string().max(2000).default(''),
    price: priceSchema,
    currency: currencySchema,
    billing_period: billingPeriodSchema,
    trial_period_days: z.number().int().min(0).max(365).default(0),
    features: z.array(z.string().min(1).max(200)).max(100).default([]),
    platforms: z.array(platformSchema).min(1).max(3),
    active: z.boolean().default(true),
  })
  .strict();
export type Product = z.infer<typeof productSchema>;

export const MAX_PRODUCTS_PER_APP = 500;

export const productCatalogueSchema = z
  .array(productSchema)
  .min(1, 'the catalogue file must list at least one product')
  .max(MAX_PRODUCTS_PER_APP)
  .superRefine((products, ctx) => {
    const seen = new Set<string>();
    products.forEach((product, index) => {
      if (seen.has(product.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate product id ${product.id}` });
      seen.add(product.id);
    });
  });
