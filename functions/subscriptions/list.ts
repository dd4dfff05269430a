import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listSubscriptionsQuery } from '../../lib/schemas/subscription.js';
import { listSubscriptionPage } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions */
export const endpoint = {
  query: listSubscriptionsQuery,
  response: 'SubscriptionList',
  pagination: 'Pagination',
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, query }) => ({
  body: await listSubscriptionPage(caller.appId, query),
}));
