import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { resumeSubscriptionBody, subscriptionIdParams } from '../../lib/schemas/subscription.js';
import { resumeSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions/{subscription_id}/resume */
export const handler = subscriptionsEndpoint(
  { params: subscriptionIdParams, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND', body: resumeSubscriptionBody },
  async ({ caller, params }) => ({ body: { data: await resumeSubscription(caller.appId, params.subscription_id) } }),
);
