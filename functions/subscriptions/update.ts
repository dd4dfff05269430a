import { CHANGE_ERRORS, type SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { subscriptionIdParams, updateSubscriptionBody } from '../../lib/schemas/subscription.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';

/** PUT /v1/subscriptions/{subscription_id} */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  body: updateSubscriptionBody,
  response: 'SubscriptionDetail',
  errors: CHANGE_ERRORS,
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, body }) => ({
  body: { data: await updateSubscription(caller.appId, params.subscription_id, body) },
}));
