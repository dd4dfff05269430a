import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { getSubscriptionDetail } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions/{subscription_id} */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND' },
  async ({ caller, params }) => ({ body: { data: await getSubscriptionDetail(caller.appId, params.subscription_id) } }),
);
