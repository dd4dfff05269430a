import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { renewSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { renewSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/renew */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND', body: renewSubscriptionBody },
  async ({ caller, params, body }) => ({
    body: { data: await renewSubscription(caller.appId, params.subscription_id, body) },
  }),
);
