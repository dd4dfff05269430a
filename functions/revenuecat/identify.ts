import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatLogInBody } from '../../lib/schemas/revenuecat.js';
import { logInRevenueCatUser } from '../../lib/services/revenuecat.js';

/**
 * POST /v1/subscribers/identify: the SDKs' logIn. The new id's CustomerInfo, 201 when the app had
 * not seen it; an anonymous id's purchases move to it. The new id is the user proven and counted.
 */
export const endpoint = {
  body: revenuecatLogInBody,
  user: 'body.new_app_user_id',
  statuses: [200, 201],
  errors: ['CONCURRENT_MODIFICATION'],
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, body }) => {
  const { customerInfo, created } = await logInRevenueCatUser(caller.appId, body);
  return { customerInfo, status: created ? 201 : 200 };
});
