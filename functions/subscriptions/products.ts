import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listAppProducts } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions/products */
export const endpoint = { response: 'Products' } satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller }) => ({
  body: { data: await listAppProducts(caller.appId) },
}));
