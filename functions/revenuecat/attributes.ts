import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatAttributesErrorResponse } from '../../lib/http/revenuecat.js';
import { revenuecatAttributesBody, revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { setRevenueCatAttributes } from '../../lib/services/revenuecat-attributes.js';

/**
 * POST /v1/subscribers/{app_user_id}/attributes: the SDKs' subscriber attributes into the user's
 * custom properties, answered `{}`; those not kept are a 400 naming each (`attribute_errors`).
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  body: revenuecatAttributesBody,
  user: 'path',
  errors: ['CONCURRENT_MODIFICATION'],
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await setRevenueCatAttributes(caller.appId, caller.userId, body);
    return { body: {} };
  },
  revenuecatAttributesErrorResponse,
);
