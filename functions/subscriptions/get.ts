import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { getSubscriptionDetail } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions/{subscription_id} */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  response: 'SubscriptionDetail',
  errors: ['SUBSCRIPTION_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => ({
  body: { data: await getSubscriptionDetail(caller.appId, params.subscription_id) },
}));
