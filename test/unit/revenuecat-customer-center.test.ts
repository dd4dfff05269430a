import { describe, expect, it } from 'vitest';
import { customerCenterConfigOf } from '../../lib/domain/revenuecat-customer-center.js';

describe('customerCenterConfigOf', () => {
  it.each([
    ['an app with a support email offers it on iOS', 'help@example.com', 'ios', 'help@example.com'],
    ['and on Android', 'help@example.com', 'android', 'help@example.com'],
    ['an app without one: the empty string iOS requires, which hides "contact support"', undefined, 'ios', ''],
    ['and on Android null, as Android shows "contact support" for any string', undefined, 'android', null],
  ] as const)('%s', (_, email, platform, expected) => {
    expect(customerCenterConfigOf(email, platform).customer_center.support).toEqual({
      email: expected,
      should_warn_customer_to_update: false,
      display_virtual_currencies: false,
    });
  });

  it("answers RevenueCat's template: four help paths while subscribed, a restore without a subscription", () => {
    const { screens } = customerCenterConfigOf(undefined, 'ios').customer_center;
    expect(
      Object.fromEntries(Object.entries(screens).map(([key, screen]) => [key, screen.paths.map((p) => p.type)])),
    ).toEqual({
      MANAGEMENT: ['MISSING_PURCHASE', 'REFUND_REQUEST', 'CHANGE_PLANS', 'CANCEL'],
      NO_ACTIVE: ['MISSING_PURCHASE'],
    });
    // Each path has an id of its own.
    const ids = Object.values(screens).flatMap((screen) => screen.paths.map((p) => p.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(screens.NO_ACTIVE.subtitle).toBe('We can try checking your account for any previous purchases');
    expect(screens.MANAGEMENT).not.toHaveProperty('subtitle');
  });
});
