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

  it("answers RevenueCat's template: four help paths while subscribed, a restore without a subscription, in English", () => {
    expect(customerCenterConfigOf(undefined, 'ios').customer_center).toMatchObject({
      screens: {
        MANAGEMENT: {
          type: 'MANAGEMENT',
          title: 'How can we help?',
          paths: [
            { id: 'missing_purchase', title: "Didn't receive purchase", type: 'MISSING_PURCHASE' },
            { id: 'refund_request', title: 'Request a refund', type: 'REFUND_REQUEST' },
            { id: 'change_plans', title: 'Change plans', type: 'CHANGE_PLANS' },
            { id: 'cancel', title: 'Cancel subscription', type: 'CANCEL' },
          ],
        },
        NO_ACTIVE: {
          type: 'NO_ACTIVE',
          title: 'No subscriptions found',
          subtitle: 'We can try checking your account for any previous purchases',
          paths: [{ id: 'check_purchases', title: 'Check past purchases', type: 'MISSING_PURCHASE' }],
        },
      },
      localization: { locale: 'en_US', localized_strings: {} },
    });
    expect(customerCenterConfigOf(undefined, 'ios').customer_center.screens.MANAGEMENT).not.toHaveProperty('subtitle');
  });
});
