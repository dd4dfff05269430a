import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { metricsQuery } from '../../lib/schemas/subscription.js';
import { subscriptionMetrics } from '../../lib/services/metrics.js';

/** GET /v1/subscriptions/metrics */
export const handler = subscriptionsEndpoint({ query: metricsQuery }, async ({ caller, query }) => ({
  body: { data: await subscriptionMetrics(caller.appId, query) },
}));
