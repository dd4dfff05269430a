import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listSubscriptionsQuery } from '../../lib/schemas/subscription.js';
import { listSubscriptionPage } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions */
export const handler = subscriptionsEndpoint({ query: listSubscriptionsQuery }, async ({ caller, query }) => ({
  body: await listSubscriptionPage(caller.appId, query),
}));
