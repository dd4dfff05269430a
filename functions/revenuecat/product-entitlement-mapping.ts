import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatProductEntitlementMapping } from '../../lib/services/revenuecat-offerings.js';

/**
 * GET /v1/product_entitlement_mapping: each product with the entitlements it unlocks, which the
 * SDKs keep to grant a purchase while this service cannot be reached. About no user (counted by
 * the request's address): the app's entitlements as a warm function keeps them.
 */
export const endpoint = {} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller }) => ({
  body: await revenuecatProductEntitlementMapping(caller.appId),
}));
