import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { appOfferings } from '../../lib/services/offerings.js';

/** GET /v1/offerings: the app's offerings, placements and remote switches, as stored. */
export const endpoint = { response: 'AppOfferings' } satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller }) => ({
  body: { data: await appOfferings(caller.appId) },
}));
