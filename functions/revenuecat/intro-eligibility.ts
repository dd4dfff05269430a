import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatIntroEligibilityBody, revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { revenuecatIntroEligibility } from '../../lib/services/revenuecat-intro-eligibility.js';

/**
 * POST /v1/subscribers/{app_user_id}/intro_eligibility: purchases-ios under StoreKit 1 asks whether
 * the user may still get each product's introductory offer (StoreKit 2 decides on the device).
 * `{"<product>": false}` where the user has had a free trial of it, `null` (unknown) otherwise
 * (lib/domain/revenuecat-intro-eligibility.ts).
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  body: revenuecatIntroEligibilityBody,
  user: 'path',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, body }) => ({
  body: await revenuecatIntroEligibility(caller.appId, caller.userId, body.product_identifiers),
}));
