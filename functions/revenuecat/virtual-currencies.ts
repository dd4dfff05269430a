import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';

/**
 * GET /v1/subscribers/{app_user_id}/virtual_currencies: purchases-ios's `virtualCurrencies()`
 * (VirtualCurrenciesResponse.swift). This service keeps no virtual currencies, so every user has
 * none: `{"virtual_currencies": {}}`, which the SDK shows as an empty set, not an error.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  user: 'path',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async () => ({ body: { virtual_currencies: {} } }));
