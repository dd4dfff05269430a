import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams, updateSubscriptionBody } from '../../lib/schemas/subscription.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';

/** PUT /v1/subscriptions/{subscription_id} */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND', body: updateSubscriptionBody },
  async ({ caller, params, body }) => ({
    body: { data: await updateSubscription(caller.appId, params.subscription_id, body) },
  }),
);
