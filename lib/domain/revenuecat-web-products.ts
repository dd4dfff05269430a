/**
 * The catalogue's web products as purchases-js decodes them (pure): `GET
 * /rcbilling/v1/subscribers/{app_user_id}/products` (its dist/Purchases.es.js `Ju` the request,
 * `qy` and `A_` the subscription product and its purchase option, `Lo` the price in micros). One
 * purchase option per product, its catalogue price and period, a free trial phase when the product
 * has one.
 */
import type { BillingPeriod, Product } from '../schemas/product.js';
import { toMicros } from './revenue-figures.js';

/** The ISO 8601 duration of each billing period (purchases-js parses `period_duration` with it). */
export const PERIOD_DURATIONS: Readonly<Record<BillingPeriod, string>> = {
  weekly: 'P1W',
  monthly: 'P1M',
  quarterly: 'P3M',
  semiannual: 'P6M',
  yearly: 'P1Y',
};

/** The one purchase option of each product: the catalogue has one price per product. */
export const WEB_PURCHASE_OPTION_ID = 'base';

export interface WebPricingPhase {
  period_duration: string;
  price: { amount_micros: number; currency: string } | null;
  /** null: every period after the trial, until cancelled. */
  cycle_count: number | null;
}

export interface WebProduct {
  identifier: string;
  product_type: 'subscription';
  title: string;
  description: string | null;
  default_purchase_option_id: string;
  purchase_options: Record<
    string,
    {
      id: string;
      price_id: string;
      base: WebPricingPhase;
      trial: WebPricingPhase | null;
      intro_price: null;
      discount: null;
    }
  >;
}

/** Whether a catalogue product is sold on the web now: active and listing the web platform. */
export const soldOnWeb = (product: Pick<Product, 'active' | 'platforms'>): boolean =>
  product.active && product.platforms.includes('web');

export function webProductOf(product: Product): WebProduct {
  return {
    identifier: product.id,
    product_type: 'subscription',
    title: product.name,
    description: product.description === '' ? null : product.description,
    default_purchase_option_id: WEB_PURCHASE_OPTION_ID,
    purchase_options: {
      [WEB_PURCHASE_OPTION_ID]: {
        id: WEB_PURCHASE_OPTION_ID,
        price_id: product.id,
        base: {
          period_duration: PERIOD_DURATIONS[product.billing_period],
          price: { amount_micros: toMicros(product.price), currency: product.currency },
          cycle_count: null,
        },
        trial:
          product.trial_period_days > 0
            ? { period_duration: `P${product.trial_period_days}D`, price: null, cycle_count: 1 }
            : null,
        intro_price: null,
        discount: null,
      },
    },
  };
}
