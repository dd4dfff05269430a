import { AppError } from '../../lib/core/errors.js';
import { conditionalResponse } from '../../lib/http/conditional.js';
import type { MobileDeclaration } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { customerInfo } from '../../lib/services/customer-info.js';

/** GET /users/customer_info (and /v2/...): X-USER-ID's entitlements and subscriptions; ETag, 304 to a matching If-None-Match. */
export const endpoint = {
  conditional: conditionalResponse,
  response: 'CustomerInfo',
  errors: ['USER_NOT_FOUND'],
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller }) => {
  const data = await customerInfo(caller.appId, caller.userId);
  if (!data) throw new AppError('USER_NOT_FOUND');
  return { message: 'Customer info', data };
});
