import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listAppProducts } from '../../lib/services/subscriptions.js';

/** GET /v1/subscriptions/products */
export const handler = subscriptionsEndpoint({}, async ({ caller }) => ({
  body: { data: await listAppProducts(caller.appId) },
}));
