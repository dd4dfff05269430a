import { AppError } from '../../lib/core/errors.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { customerParams } from '../../lib/schemas/entitlement.js';
import { customerInfo } from '../../lib/services/customer-info.js';

/** GET /v1/customers/{user_id}: the user's entitlements and subscriptions; ETag, 304 to a matching If-None-Match. */
export const handler = subscriptionsEndpoint(
  { params: customerParams, conditional: true },
  async ({ caller, params }) => {
    const data = await customerInfo(caller.appId, params.user_id);
    if (!data) throw new AppError('CUSTOMER_NOT_FOUND', `Customer ${params.user_id} not found`);
    return { body: { data } };
  },
);
