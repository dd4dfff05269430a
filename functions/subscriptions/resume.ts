import { CHANGE_ERRORS, type SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { resumeSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { resumeSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/resume */
export const endpoint = {
  params: subscriptionIdParams,
  paramsNotFound: 'SUBSCRIPTION_NOT_FOUND',
  body: resumeSubscriptionBody,
  response: 'SubscriptionDetail',
  errors: CHANGE_ERRORS,
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => ({
  body: { data: await resumeSubscription(caller.appId, params.subscription_id) },
}));
