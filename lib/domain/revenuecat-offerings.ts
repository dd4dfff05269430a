/**
 * What the app shows and what unlocks what, in RevenueCat's shapes (pure): the offerings the SDKs
 * decode (purchases-ios OfferingsResponse.swift, purchases-android OfferingParser.kt) and the
 * product-entitlement mapping they keep for offline entitlements (ProductEntitlementMappingResponse.swift,
 * ProductEntitlementMapping.kt).
 */
import type { Platform } from '../schemas/common.js';
import type { Entitlement } from '../schemas/entitlement.js';
import type { CustomerOfferings } from '../schemas/offering.js';

export interface RevenueCatPackage {
  identifier: string;
  platform_product_identifier: string;
}

export interface RevenueCatOffering {
  identifier: string;
  description: string;
  metadata: Record<string, unknown>;
  packages: RevenueCatPackage[];
}

export interface RevenueCatOfferings {
  current_offering_id: string | null;
  offerings: RevenueCatOffering[];
  placements: { fallback_offering_id: string | null; offering_ids_by_placement: Record<string, string> };
}

/**
 * The offerings shown to the user on one platform: each package as the product it sells there,
 * a package without one left out, and an offering left with no package left out (the SDKs find
 * nothing to sell in it). The current offering and each placement's are the user's, as on every
 * API; one left out is no current offering (null), and a placement naming it is left out too.
 */
export function revenuecatOfferingsOf(shown: CustomerOfferings, platform: Platform): RevenueCatOfferings {
  const offerings = shown.offerings.flatMap((offering): RevenueCatOffering[] => {
    const packages = offering.packages.flatMap((entry) => {
      const product = entry.products[platform];
      return product ? [{ identifier: entry.id, platform_product_identifier: product }] : [];
    });
    if (packages.length === 0) return [];
    return [{ identifier: offering.id, description: offering.description, metadata: offering.metadata, packages }];
  });
  const offered = new Set(offerings.map((offering) => offering.identifier));
  const current =
    shown.current_offering_id !== null && offered.has(shown.current_offering_id) ? shown.current_offering_id : null;
  return {
    current_offering_id: current,
    offerings,
    placements: {
      fallback_offering_id: current,
      offering_ids_by_placement: Object.fromEntries(
        Object.entries(shown.placements).flatMap(([id, placement]) =>
          offered.has(placement.offering_id) ? [[id, placement.offering_id]] : [],
        ),
      ),
    },
  };
}

export interface RevenueCatProductMapping {
  product_identifier: string;
  entitlements: string[];
}

/** Each product an entitlement names, with the entitlements it unlocks (in the app's order). */
export function productEntitlementMappingOf(entitlements: readonly Entitlement[]): {
  product_entitlement_mapping: Record<string, RevenueCatProductMapping>;
} {
  const mapping = new Map<string, RevenueCatProductMapping>();
  for (const entitlement of entitlements) {
    for (const product of entitlement.products) {
      const entry = mapping.get(product) ?? { product_identifier: product, entitlements: [] };
      entry.entitlements.push(entitlement.id);
      mapping.set(product, entry);
    }
  }
  return { product_entitlement_mapping: Object.fromEntries(mapping) };
}
