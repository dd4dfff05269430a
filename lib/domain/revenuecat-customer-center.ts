/**
 * The customer center's configuration (pure), as purchases-ios decodes the answer of
 * `GET /v1/customercenter/{app_user_id}` (CustomerCenterConfigResponse.swift) and purchases-android
 * (CustomerCenterConfigData.kt). RevenueCat's dashboard composes it; this service answers the
 * screens RevenueCat's template starts from, in English, with the app's support email.
 */

import type { Platform } from '../schemas/common.js';

/** What the SDKs do for each path (`HelpPath.PathType`): restore, Apple's refund sheet, the store's subscription page. */
type PathType = 'MISSING_PURCHASE' | 'REFUND_REQUEST' | 'CHANGE_PLANS' | 'CANCEL';

interface HelpPath {
  id: string;
  title: string;
  type: PathType;
}

interface Screen {
  type: 'MANAGEMENT' | 'NO_ACTIVE';
  title: string;
  subtitle?: string;
  paths: HelpPath[];
}

export interface CustomerCenterConfig {
  customer_center: {
    appearance: { light: Record<string, never>; dark: Record<string, never> };
    screens: { MANAGEMENT: Screen; NO_ACTIVE: Screen };
    localization: { locale: string; localized_strings: Record<string, never> };
    support: {
      /**
       * iOS requires a string, and hides "contact support" for an empty one (URLUtilities.swift);
       * Android shows it for any string, so it gets null (InternalCustomerCenter.kt, `email?.let`).
       */
      email: string | null;
      should_warn_customer_to_update: false;
      display_virtual_currencies: false;
    };
    change_plans: [];
  };
  last_published_app_version: null;
  itunes_track_id: null;
}

const path = (id: string, title: string, type: PathType): HelpPath => ({ id, title, type });

/**
 * The configuration every user of the app gets on that platform. The SDKs' own English strings
 * stand for every `localized_strings` key left out, so the locale is theirs (`en_US`) whatever the
 * device prefers; colors left out are the app's own. No virtual currencies are kept, so none are shown.
 */
export function customerCenterConfigOf(supportEmail: string | undefined, platform: Platform): CustomerCenterConfig {
  return {
    customer_center: {
      appearance: { light: {}, dark: {} },
      screens: {
        MANAGEMENT: {
          type: 'MANAGEMENT',
          title: 'How can we help?',
          paths: [
            path('missing_purchase', "Didn't receive purchase", 'MISSING_PURCHASE'),
            path('refund_request', 'Request a refund', 'REFUND_REQUEST'),
            path('change_plans', 'Change plans', 'CHANGE_PLANS'),
            path('cancel', 'Cancel subscription', 'CANCEL'),
          ],
        },
        NO_ACTIVE: {
          type: 'NO_ACTIVE',
          title: 'No subscriptions found',
          subtitle: 'We can try checking your account for any previous purchases',
          paths: [path('check_purchases', 'Check past purchases', 'MISSING_PURCHASE')],
        },
      },
      localization: { locale: 'en_US', localized_strings: {} },
      support: {
        email: supportEmail ?? (platform === 'ios' ? '' : null),
        should_warn_customer_to_update: false,
        display_virtual_currencies: false,
      },
      change_plans: [],
    },
    last_published_app_version: null,
    itunes_track_id: null,
  };
}
