/**
 * The paywall and guide page a DingYue launch answers (lib/domain/dingyue-paywall.ts), as tables:
 * which offering's paywall, which placement's guide page, each package as the SDK's Subscription.
 */
import { describe, expect, it } from 'vitest';
import {
  DINGYUE_GUIDE_PLACEMENT,
  DINGYUE_PAYWALL_PLACEMENT,
  dingyueCountryOf,
  dingyueShownOf,
  dingyueSubscriptionsOf,
  type OfferedProducts,
} from '../../lib/domain/dingyue-paywall.js';
import type { CustomerOfferings, GuidePage, Offering } from '../../lib/schemas/offering.js';
import type { PaywallAnswer } from '../../lib/schemas/paywall.js';

const products: OfferedProducts = {
  monthly: {
    name: 'Premium monthly',
    description: 'All features',
    price: 9.99,
    currency: 'USD',
    billing_period: 'monthly',
  },
  yearly: { name: 'Premium yearly', description: '', price: 59, currency: 'USD', billing_period: 'yearly' },
  weekly: { name: 'Weekly', description: '', price: 2.5, currency: 'EUR', billing_period: 'weekly' },
};
const offering = (id: string, paywall?: string): Offering => ({
  id,
  description: '',
  metadata: {},
  packages: [
    { id: '$rc_monthly', products: { ios: 'monthly', android: 'monthly' }, metadata: {} },
    { id: '$rc_annual', products: { ios: 'yearly' }, metadata: {} },
    { id: 'web_only', products: { web: 'monthly' }, metadata: {} },
    { id: 'not_described', products: { ios: 'unknown_product' }, metadata: {} },
  ],
  ...(paywall ? { paywall } : {}),
});
const bundle = (
  id: string,
  version: number,
  url: string | null = `https://cdn.example/paywalls/${id}.zip`,
): PaywallAnswer => ({
  id,
  name: `${id} page`,
  version,
  sha256: '0'.repeat(64),
  bytes: 100,
  files: 2,
  uploaded_at: '2026-12-01T00:00:00.000Z',
  download_url: url,
});

describe('dingyueSubscriptionsOf', () => {
  it('answers each package sold on the platform whose product is described, as Subscription.swift', () => {
    expect(dingyueSubscriptionsOf(offering('o'), products, 'ios', 'US')).toEqual([
      {
        subscriptionId: '$rc_monthly',
        subscription: {
          type: 'SUBSCRIPTION',
          name: 'Premium monthly',
          platformProductId: 'monthly',
          subscriptionDescription: 'All features',
          period: 'MONTH',
          price: '9.99',
          currencyCode: 'USD',
          countryCode: 'US',
        },
      },
      {
        subscriptionId: '$rc_annual',
        subscription: {
          type: 'SUBSCRIPTION',
          name: 'Premium yearly',
          platformProductId: 'yearly',
          period: 'YEAR',
          price: '59',
          currencyCode: 'USD',
          countryCode: 'US',
        },
      },
    ]);
    expect(dingyueSubscriptionsOf(offering('o'), products, 'android', '').map((s) => s.subscriptionId)).toEqual([
      '$rc_monthly',
    ]);
  });

  it.each([
    ['weekly', 'WEEK'],
    ['monthly', 'MONTH'],
    ['quarterly', 'QUARTER'],
    ['semiannual', 'HALF_YEAR'],
    ['yearly', 'YEAR'],
  ] as const)('names the %s period %s', (billing_period, period) => {
    const one: Offering = { ...offering('o'), packages: [{ id: 'p', products: { ios: 'x' }, metadata: {} }] };
    const [entry] = dingyueSubscriptionsOf(one, { x: { ...products.weekly!, billing_period } }, 'ios', '');
    expect(entry!.subscription.period).toBe(period);
  });
});

const shown = (
  overrides: Partial<Pick<CustomerOfferings, 'current_offering_id' | 'offerings' | 'placements' | 'paywalls'>> = {},
) => ({
  current_offering_id: 'standard',
  offerings: [offering('standard', 'main'), offering('winback', 'discount'), offering('plain')],
  placements: {},
  paywalls: [bundle('main', 3), bundle('discount', 1), bundle('intro', 2)],
  ...overrides,
});
const chosen = (offering_id: string, guide_page: GuidePage | null = null) => ({
  offering_id,
  guide_page,
  chosen_by: 'default' as const,
});

describe('dingyueCountryOf', () => {
  it.each([
    ['US', 'US'],
    ['de', 'DE'],
    [undefined, ''],
    ['', ''],
    ['419', ''],
    ['USA', ''],
    ['U1', ''],
  ])('area %j: countryCode %j', (area, country) => {
    expect(dingyueCountryOf(area)).toBe(country);
  });
});

describe('dingyueShownOf', () => {
  it.each([
    ['the current offering when the app has no paywall placement', shown(), 'main', 3],
    [
      `the offering the ${DINGYUE_PAYWALL_PLACEMENT} placement chose for the user`,
      shown({ placements: { [DINGYUE_PAYWALL_PLACEMENT]: chosen('winback') } }),
      'discount',
      1,
    ],
  ])('answers the paywall of %s', (_, view, paywallId, version) => {
    const answer = dingyueShownOf(view, products, 'ios', 'DE');
    expect(answer.paywallId).toBe(paywallId);
    expect(answer.paywall).toMatchObject({
      name: `${paywallId} page`,
      version,
      downloadUrl: `https://cdn.example/paywalls/${paywallId}.zip`,
      customize: true,
    });
    expect(answer.paywall!.subscriptions.map((s) => s.subscription.countryCode)).toEqual(['DE', 'DE']);
    expect(answer.guidePage).toBeUndefined();
  });

  it.each([
    ['the offering names no paywall', shown({ current_offering_id: 'plain' })],
    ['no offering is current', shown({ current_offering_id: null })],
    ['the bundle has no download URL (PAYWALLS_BASE_URL unset)', shown({ paywalls: [bundle('main', 1, null)] })],
    ['the named bundle is not among the answered ones', shown({ paywalls: [] })],
  ])('answers no paywall when %s', (_, view) => {
    expect(dingyueShownOf(view, products, 'ios', '')).toEqual({});
  });

  it(`answers the guide page the ${DINGYUE_GUIDE_PLACEMENT} placement chose, selling the offering it chose`, () => {
    const view = shown({
      placements: { [DINGYUE_GUIDE_PLACEMENT]: chosen('winback', { id: 'intro', pages: 4, purchase: true }) },
    });
    const answer = dingyueShownOf(view, products, 'ios', '');
    expect(answer.guidePageId).toBe('intro');
    expect(answer.guidePage).toMatchObject({
      name: 'intro page',
      version: 2,
      downloadUrl: 'https://cdn.example/paywalls/intro.zip',
      customize: true,
      purchaseSwitch: true,
      swiperSize: 4,
    });
    expect(answer.guidePage!.subscriptions.map((s) => s.subscriptionId)).toEqual(['$rc_monthly', '$rc_annual']);
  });

  it('answers no guide page without one chosen at that placement, or for one chosen at another placement', () => {
    const none = shown({ placements: { [DINGYUE_GUIDE_PLACEMENT]: chosen('winback') } });
    expect(dingyueShownOf(none, products, 'ios', '').guidePage).toBeUndefined();
    const elsewhere = shown({
      placements: { settings: chosen('winback', { id: 'intro', pages: 1, purchase: false }) },
    });
    expect(dingyueShownOf(elsewhere, products, 'ios', '').guidePage).toBeUndefined();
    const unreachable = shown({
      paywalls: [bundle('intro', 1, null)],
      placements: { [DINGYUE_GUIDE_PLACEMENT]: chosen('winback', { id: 'intro', pages: 1, purchase: false }) },
    });
    expect(dingyueShownOf(unreachable, products, 'ios', '').guidePage).toBeUndefined();
  });
});
