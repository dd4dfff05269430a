import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { pauseSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { pauseSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/pause */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND', body: pauseSubscriptionBody },
  async ({ caller, params, body }) => ({
    body: { data: await pauseSubscription(caller.appId, params.subscription_id, body) },
  }),
);
