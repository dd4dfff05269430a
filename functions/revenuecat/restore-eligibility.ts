import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatRestoreEligibilityBody, revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { revenuecatRestoreEligibility } from '../../lib/services/revenuecat-restore-eligibility.js';

/**
 * POST /v1/subscribers/{app_user_id}/restore/eligibility: purchases-ios's
 * `isPurchaseAllowedByRestoreBehavior()` (StoreKit 2), asked with the device's oldest transaction
 * before the app offers a purchase: `{"is_purchase_allowed_by_restore_behavior": false}` when that
 * purchase is another user's and the app's restore policy (`admin apps update --restore-policy`)
 * is `block`. The transaction is verified as a purchase is, and nothing is written.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  body: revenuecatRestoreEligibilityBody,
  user: 'path',
  platform: true,
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, body }) => ({
  body: await revenuecatRestoreEligibility(caller.appId, caller.userId, caller.platform, body.fetch_token),
}));
