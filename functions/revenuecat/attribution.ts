import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';

/**
 * POST /v1/subscribers/{app_user_id}/adservices_attribution and .../attribution: the AdServices
 * token purchases-ios posts when the app turns attribution collection on, and the older
 * attribution data. Accepted and not kept: `{}`, so the SDK marks them sent instead of posting
 * them again at every launch. Apple Search Ads attribution is the mobile API's `/searchads/report`.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  user: 'path',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async () => ({ body: {} }));
