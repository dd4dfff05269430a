/**
 * The paywall and guide page a DingYue SDK launch answers (pure): ReportSessionResult's `paywall`
 * and `paywallId`, `guidePage` and `guidePageId` (OpenAPIs/Models/ReportSessionResult.swift,
 * Paywall.swift, DYMGuideObject.swift, PaywallSubscriptions.swift, Subscription.swift at ee4e11c).
 * The SDK has one paywall and one guide page: the paywall of the offering the user is shown at
 * the `paywall` placement (the current offering when the app has none), and the guide page the
 * `onboarding` placement chooses for the user, selling the offering it chooses.
 */
import type { CustomerOfferings, Offering } from '../schemas/offering.js';
import type { PaywallAnswer } from '../schemas/paywall.js';
import type { BillingPeriod, OfferedProduct } from '../schemas/product.js';

export const DINGYUE_PAYWALL_PLACEMENT = 'paywall';
export const DINGYUE_GUIDE_PLACEMENT = 'onboarding';

/** Subscription.swift's Period. */
const PERIODS: Record<BillingPeriod, string> = {
  weekly: 'WEEK',
  monthly: 'MONTH',
  quarterly: 'QUARTER',
  semiannual: 'HALF_YEAR',
  yearly: 'YEAR',
};

/** Subscription.swift: `price` a string, `countryCode` required. */
export interface DingYueSubscription {
  type: 'SUBSCRIPTION';
  name: string;
  platformProductId: string;
  subscriptionDescription?: string;
  period: string;
  price: string;
  currencyCode: string;
  countryCode: string;
}

/** Paywall.swift; DYMGuideObject.swift adds purchaseSwitch and swiperSize. */
export interface DingYuePaywall {
  name: string;
  version: number;
  subscriptions: { subscriptionId: string; subscription: DingYueSubscription }[];
  downloadUrl: string;
  customize: boolean;
}
export interface DingYueGuidePage extends DingYuePaywall {
  purchaseSwitch: boolean;
  swiperSize: number;
}

export type OfferedProducts = Record<string, OfferedProduct>;

/**
 * The offering's packages sold on the platform, as PaywallSubscriptions. The SDK force-unwraps each
 * `subscription` (API/ApiManager.swift:84-87), so a package whose product it cannot describe is left out.
 */
export function dingyueSubscriptionsOf(
  offering: Offering,
  products: OfferedProducts,
  platform: 'ios' | 'android',
  countryCode: string,
): DingYuePaywall['subscriptions'] {
  return offering.packages.flatMap((entry) => {
    const id = entry.products[platform];
    const product = id === undefined ? undefined : products[id];
    if (id === undefined || !product) return [];
    return [
      {
        subscriptionId: entry.id,
        subscription: {
          type: 'SUBSCRIPTION',
          name: product.name,
          platformProductId: id,
          ...(product.description ? { subscriptionDescription: product.description } : {}),
          period: PERIODS[product.billing_period],
          price: String(product.price),
          currencyCode: product.currency,
          countryCode,
        },
      },
    ];
  });
}

/**
 * The bundle as the SDK's model. `customize: true`: the SDK then keeps any bundle that unzips (a
 * template of its own, `customize: false`, is kept only with a config.js: ApiManager.swift:261-268).
 */
const bundleModelOf = (
  bundle: PaywallAnswer & { download_url: string },
  subscriptions: DingYuePaywall['subscriptions'],
): DingYuePaywall => ({
  name: bundle.name,
  version: bundle.version,
  subscriptions,
  downloadUrl: bundle.download_url,
  customize: true,
});

/** Subscription.swift's countryCode: the device's region (UniqueUserObject's `area`, Locale's regionCode), when it names one. */
export const dingyueCountryOf = (area: string | undefined): string =>
  area !== undefined && /^[A-Za-z]{2}$/.test(area) ? area.toUpperCase() : '';

export interface DingYueShown {
  paywall?: DingYuePaywall;
  paywallId?: string;
  guidePage?: DingYueGuidePage;
  guidePageId?: string;
}

/** What the launch answers of the user's paywall and guide page; nothing where the app set none. */
export function dingyueShownOf(
  shown: Pick<CustomerOfferings, 'current_offering_id' | 'offerings' | 'placements' | 'paywalls'>,
  products: OfferedProducts,
  platform: 'ios' | 'android',
  countryCode: string,
): DingYueShown {
  const offeringOf = (id: string | null | undefined) => shown.offerings.find((offering) => offering.id === id);
  const downloadable = (id: string | undefined) => {
    const bundle = shown.paywalls.find((paywall) => paywall.id === id);
    return bundle?.download_url ? { ...bundle, download_url: bundle.download_url } : undefined;
  };
  const result: DingYueShown = {};

  const sold = offeringOf(shown.placements[DINGYUE_PAYWALL_PLACEMENT]?.offering_id ?? shown.current_offering_id);
  const paywall = downloadable(sold?.paywall);
  if (sold && paywall) {
    result.paywall = bundleModelOf(paywall, dingyueSubscriptionsOf(sold, products, platform, countryCode));
    result.paywallId = paywall.id;
  }

  const onboarding = shown.placements[DINGYUE_GUIDE_PLACEMENT];
  const guide = onboarding?.guide_page ?? undefined;
  const guideBundle = downloadable(guide?.id);
  if (guide && guideBundle) {
    const offering = offeringOf(onboarding?.offering_id);
    result.guidePage = {
      ...bundleModelOf(guideBundle, offering ? dingyueSubscriptionsOf(offering, products, platform, countryCode) : []),
      purchaseSwitch: guide.purchase,
      swiperSize: guide.pages,
    };
    result.guidePageId = guideBundle.id;
  }
  return result;
}
