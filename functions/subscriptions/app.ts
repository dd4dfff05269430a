import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { appOverview } from '../../lib/services/app-overview.js';

/** GET /v1/app: the app the secret key belongs to (name, stores, webhook endpoint), never a secret. */
export const endpoint = { response: 'AppOverview' } satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller }) => ({
  body: { data: await appOverview(caller.appId) },
}));
