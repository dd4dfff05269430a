import { CHANGE_ERRORS, type SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { renewSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { renewSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/renew */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  body: renewSubscriptionBody,
  response: 'SubscriptionDetail',
  errors: [...CHANGE_ERRORS, 'RECEIPT_ALREADY_USED', 'PRODUCT_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, body }) => ({
  body: { data: await renewSubscription(caller.appId, params.subscription_id, body) },
}));
