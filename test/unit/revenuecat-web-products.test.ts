/**
 * The catalogue's products as purchases-js's getOfferings decodes them (lib/domain/revenuecat-web-products.ts;
 * node_modules/@revenuecat/purchases-js/dist/Purchases.es.js `qy` the subscription product, `A_` its
 * purchase option, `Lo` the price in micros).
 */
import { describe, expect, it } from 'vitest';
import {
  PERIOD_DURATIONS,
  soldOnWeb,
  WEB_PURCHASE_OPTION_ID,
  webProductOf,
} from '../../lib/domain/revenuecat-web-products.js';
import type { Product } from '../../lib/schemas/product.js';
import { PREMIUM_MONTHLY, PRO_YEARLY } from '../support/fixtures.js';

describe('webProductOf', () => {
  it('gives a product one purchase option: its price in micros, its period, a free trial phase when it has one', () => {
    expect(webProductOf(PREMIUM_MONTHLY)).toEqual({
      identifier: 'premium_monthly',
      product_type: 'subscription',
      title: PREMIUM_MONTHLY.name,
      description: 'Every feature, billed monthly',
      default_purchase_option_id: 'base',
      purchase_options: {
        base: {
          id: 'base',
          price_id: 'premium_monthly',
          base: { period_duration: 'P1M', price: { amount_micros: 9_990_000, currency: 'USD' }, cycle_count: null },
          trial: { period_duration: 'P7D', price: null, cycle_count: 1 },
          intro_price: null,
          discount: null,
        },
      },
    });
  });

  it.each([
    [
      'no trial',
      { trial_period_days: 0 },
      (p: ReturnType<typeof webProductOf>) => p.purchase_options.base!.trial,
      null,
    ],
    ['an empty description', { description: '' }, (p: ReturnType<typeof webProductOf>) => p.description, null],
    ['a description', { description: 'All of it' }, (p: ReturnType<typeof webProductOf>) => p.description, 'All of it'],
    [
      'a yearly price in EUR',
      { billing_period: 'yearly', price: 59.99, currency: 'EUR' },
      (p: ReturnType<typeof webProductOf>) => p.purchase_options.base!.base,
      { period_duration: 'P1Y', price: { amount_micros: 59_990_000, currency: 'EUR' }, cycle_count: null },
    ],
  ] as const)('with %s', (_, change, read, expected) => {
    expect(read(webProductOf({ ...PREMIUM_MONTHLY, ...change } as Product))).toEqual(expected);
  });

  it('names every billing period as ISO 8601, as purchases-js parses it', () => {
    expect(PERIOD_DURATIONS).toEqual({
      weekly: 'P1W',
      monthly: 'P1M',
      quarterly: 'P3M',
      semiannual: 'P6M',
      yearly: 'P1Y',
    });
    expect(WEB_PURCHASE_OPTION_ID).toBe('base');
  });
});

describe('soldOnWeb', () => {
  it.each([
    ['active, listing web', PREMIUM_MONTHLY, true],
    ['active, not listing web', PRO_YEARLY, false],
    ['inactive, listing web', { ...PREMIUM_MONTHLY, active: false }, false],
  ] as const)('%s: %s', (_, product, sold) => {
    expect(soldOnWeb(product)).toBe(sold);
  });
});
