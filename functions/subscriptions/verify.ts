import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { verifyPurchaseBody } from '../../lib/schemas/subscription.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /v1/subscriptions/verify */
export const handler = subscriptionsEndpoint({ body: verifyPurchaseBody }, async ({ caller, body }) => ({
  body: { data: await verifyPurchase(caller.appId, body) },
}));
