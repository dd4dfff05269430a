import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { revenueQuery } from '../../lib/schemas/subscription.js';
import { revenueStatistics } from '../../lib/services/revenue.js';

/** GET /v1/subscriptions/revenue */
export const handler = subscriptionsEndpoint({ query: revenueQuery }, async ({ caller, query }) => ({
  body: { data: await revenueStatistics(caller.appId, query) },
}));
