import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { revenuecatOfferings } from '../../lib/services/revenuecat-offerings.js';

/**
 * GET /v1/subscribers/{app_user_id}/offerings: the offerings and placements the user is shown
 * (`admin offerings put`, chosen as on every API), each package as the product it sells on the
 * platform of X-Platform.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  user: 'path',
  platform: true,
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller }) => ({
  body: { ...(await revenuecatOfferings(caller.appId, caller.userId, caller.platform)) },
}));
