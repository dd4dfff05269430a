import { CHANGE_ERRORS, type SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { pauseSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { pauseSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/pause */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  body: pauseSubscriptionBody,
  response: 'SubscriptionDetail',
  errors: CHANGE_ERRORS,
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, body }) => ({
  body: { data: await pauseSubscription(caller.appId, params.subscription_id, body) },
}));
