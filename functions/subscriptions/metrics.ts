import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { metricsQuery } from '../../lib/schemas/subscription.js';
import { subscriptionMetrics } from '../../lib/services/metrics.js';

/** GET /v1/subscriptions/metrics */
export const endpoint = { query: metricsQuery, response: 'SubscriptionMetrics' } satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, query }) => ({
  body: { data: await subscriptionMetrics(caller.appId, query) },
}));
