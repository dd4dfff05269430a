/**
 * What RevenueCat's SDKs read of what the app shows (lib/domain/revenuecat-offerings.ts): apart
 * from lib/services/revenuecat.ts, so that the bundles of the purchase and customer info calls do
 * not carry the offerings' reads.
 */
import {
  productEntitlementMappingOf,
  type RevenueCatOfferings,
  revenuecatOfferingsOf,
} from '../domain/revenuecat-offerings.js';
import type { Platform } from '../schemas/common.js';
import { entitlementsOf } from './customer-info.js';
import { offeringsForUser } from './offerings.js';

/** GET /v1/subscribers/{app_user_id}/offerings: what the user is shown on the request's platform, as the SDKs decode it. */
export async function revenuecatOfferings(
  appId: string,
  userId: string,
  platform: Platform,
): Promise<RevenueCatOfferings> {
  return revenuecatOfferingsOf(await offeringsForUser(appId, userId, platform), platform);
}

/** GET /v1/product_entitlement_mapping: what each product unlocks, which the SDKs keep for offline entitlements. */
export async function revenuecatProductEntitlementMapping(appId: string) {
  return productEntitlementMappingOf(await entitlementsOf(appId));
}
