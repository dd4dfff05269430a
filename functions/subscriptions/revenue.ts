import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { revenueQuery } from '../../lib/schemas/subscription.js';
import { revenueStatistics } from '../../lib/services/revenue.js';

/** GET /v1/subscriptions/revenue */
export const endpoint = {
  query: revenueQuery,
  response: 'RevenueStatistics',
  errors: ['PRODUCT_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, query }) => ({
  body: { data: await revenueStatistics(caller.appId, query) },
}));
