import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { subscriptionHistoryQuery } from '../../lib/schemas/subscription-history.js';
import { getSubscriptionHistory } from '../../lib/services/subscription-history.js';

/** GET /v1/subscriptions/{subscription_id}/history */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  query: subscriptionHistoryQuery,
  response: 'SubscriptionHistory',
  pagination: 'HistoryPagination',
  errors: ['SUBSCRIPTION_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, query }) => ({
  body: await getSubscriptionHistory(caller.appId, params.subscription_id, query),
}));
