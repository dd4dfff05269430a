import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatOffersBody } from '../../lib/schemas/revenuecat.js';
import { signRevenueCatOffers } from '../../lib/services/revenuecat-offers.js';

/**
 * POST /v1/offers: purchases-ios asks a signature for an App Store promotional offer before it
 * buys it (`promotionalOffer(forProductDiscount:product:)`, PostOfferForSigningOperation.swift):
 * `{"offers": [{offer_id, product_id, key_id, signature_data: {signature, nonce, timestamp}}]}`,
 * or a `signature_error` per offer (lib/services/revenuecat-offers.ts).
 */
export const endpoint = {
  body: revenuecatOffersBody,
  user: 'body',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, body }) => ({
  body: await signRevenueCatOffers(caller.appId, body),
}));
