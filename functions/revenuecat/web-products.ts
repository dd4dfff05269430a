import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams, revenuecatWebProductsQuery } from '../../lib/schemas/revenuecat.js';
import { revenuecatWebProducts } from '../../lib/services/revenuecat-web-products.js';

/**
 * GET /rcbilling/v1/subscribers/{app_user_id}/products: purchases-js's getOfferings asks for the
 * products of the offerings' web packages, and shows a package only with its product. They are the
 * catalogue's (`admin products put`), in its one currency: `currency` converts nothing, and no
 * `discount_code` applies.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  query: revenuecatWebProductsQuery,
  queryLists: ['id'],
  user: 'path',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, query }) => ({
  body: { ...(await revenuecatWebProducts(caller.appId, query.id)) },
}));
