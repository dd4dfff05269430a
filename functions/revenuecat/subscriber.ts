import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { revenuecatCustomerInfo } from '../../lib/services/revenuecat.js';

/**
 * GET /v1/subscribers/{app_user_id}: RevenueCat's CustomerInfo of the user, recorded if new (the
 * SDKs read it at every launch); X-RevenueCat-ETag in and out, 304 when the SDK holds this answer.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  user: 'path',
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller }) => ({
  customerInfo: await revenuecatCustomerInfo(caller.appId, caller.userId),
}));
