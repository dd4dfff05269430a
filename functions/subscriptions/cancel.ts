import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { cancelSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { cancelSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/cancel */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND', body: cancelSubscriptionBody },
  async ({ caller, params, body }) => ({
    body: { data: await cancelSubscription(caller.appId, params.subscription_id, body) },
  }),
);
