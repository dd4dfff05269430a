import { AppError } from '../../lib/core/errors.js';
import { conditionalResponse } from '../../lib/http/conditional.js';
import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { customerParams } from '../../lib/schemas/entitlement.js';
import { customerInfo } from '../../lib/services/customer-info.js';

/** GET /v1/customers/{user_id}: the user's entitlements and subscriptions; ETag, 304 to a matching If-None-Match. */
export const endpoint = {
  params: customerParams,
  conditional: conditionalResponse,
  response: 'CustomerInfo',
  errors: ['CUSTOMER_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => {
  const data = await customerInfo(caller.appId, params.user_id);
  if (!data) throw new AppError('CUSTOMER_NOT_FOUND', `Customer ${params.user_id} not found`);
  return { body: { data } };
});
