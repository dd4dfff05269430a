import { describe, expect, it } from 'vitest';
import { productEntitlementMappingOf, revenuecatOfferingsOf } from '../../lib/domain/revenuecat-offerings.js';
import type { CustomerOfferings } from '../../lib/schemas/offering.js';

const shown = (overrides: Partial<CustomerOfferings> = {}): CustomerOfferings => ({
  user_id: 'u',
  platform: 'ios',
  segments: [],
  current_offering_id: 'standard',
  offerings: [
    {
      id: 'standard',
      description: 'Monthly and yearly',
      metadata: { headline: 'Go' },
      packages: [
        { id: '$rc_monthly', products: { ios: 'premium_monthly', android: 'premium_monthly_play' }, metadata: {} },
        { id: '$rc_annual', products: { ios: 'pro_yearly' }, metadata: {} },
      ],
    },
    { id: 'ios_only', description: '', metadata: {}, packages: [{ id: 'p', products: { ios: 'x' }, metadata: {} }] },
  ],
  placements: {
    onboarding: { offering_id: 'ios_only', guide_page: null, chosen_by: 'default' },
    settings: { offering_id: 'standard', guide_page: null, chosen_by: 'default' },
  },
  switches: {},
  paywalls: [],
  ...overrides,
});

describe("offerings in RevenueCat's shape", () => {
  it('iOS: every offering with its iOS products, the current one, each placement', () => {
    expect(revenuecatOfferingsOf(shown(), 'ios')).toEqual({
      current_offering_id: 'standard',
      offerings: [
        {
          identifier: 'standard',
          description: 'Monthly and yearly',
          metadata: { headline: 'Go' },
          packages: [
            { identifier: '$rc_monthly', platform_product_identifier: 'premium_monthly' },
            { identifier: '$rc_annual', platform_product_identifier: 'pro_yearly' },
          ],
        },
        {
          identifier: 'ios_only',
          description: '',
          metadata: {},
          packages: [{ identifier: 'p', platform_product_identifier: 'x' }],
        },
      ],
      placements: {
        fallback_offering_id: 'standard',
        offering_ids_by_placement: { onboarding: 'ios_only', settings: 'standard' },
      },
    });
  });

  it('Android: a package without an Android product is left out, an offering left empty too, and a placement naming it', () => {
    const answer = revenuecatOfferingsOf(shown(), 'android');
    expect(answer.offerings).toEqual([
      {
        identifier: 'standard',
        description: 'Monthly and yearly',
        metadata: { headline: 'Go' },
        packages: [{ identifier: '$rc_monthly', platform_product_identifier: 'premium_monthly_play' }],
      },
    ]);
    expect(answer.placements.offering_ids_by_placement).toEqual({ settings: 'standard' });
  });

  it.each([
    ['the current offering has nothing on the platform', shown({ current_offering_id: 'ios_only' }), 'android'],
    ['the app has no offerings', shown({ current_offering_id: null, offerings: [], placements: {} }), 'ios'],
  ] as const)('no current offering when %s', (_case, offerings, platform) => {
    const answer = revenuecatOfferingsOf(offerings, platform);
    expect(answer.current_offering_id).toBeNull();
    expect(answer.placements.fallback_offering_id).toBeNull();
  });
});

describe('the product entitlement mapping', () => {
  it('lists each product an entitlement names with every entitlement it unlocks, in order', () => {
    expect(
      productEntitlementMappingOf([
        { id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] },
        { id: 'extras', name: 'Extras', products: ['pro_yearly'] },
      ]),
    ).toEqual({
      product_entitlement_mapping: {
        premium_monthly: { product_identifier: 'premium_monthly', entitlements: ['pro'] },
        pro_yearly: { product_identifier: 'pro_yearly', entitlements: ['pro', 'extras'] },
      },
    });
  });

  it('an app without entitlements maps nothing (an empty object, which both SDKs decode)', () => {
    expect(productEntitlementMappingOf([])).toEqual({ product_entitlement_mapping: {} });
  });
});
