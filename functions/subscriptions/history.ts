import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { subscriptionHistoryQuery } from '../../lib/schemas/subscription-history.js';
import { getSubscriptionHistory } from '../../lib/services/subscription-history.js';

/** GET /v1/subscriptions/{subscription_id}/history */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, query: subscriptionHistoryQuery, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND' },
  async ({ caller, params, query }) => ({
    body: await getSubscriptionHistory(caller.appId, params.subscription_id, query),
  }),
);
