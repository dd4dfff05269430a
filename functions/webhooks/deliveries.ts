import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listDeliveriesQuery } from '../../lib/schemas/webhook.js';
import { listDeliveryPage } from '../../lib/services/webhook-delivery.js';

/** GET /v1/webhooks/deliveries */
export const handler = subscriptionsEndpoint({ query: listDeliveriesQuery }, async ({ caller, query }) => ({
  body: await listDeliveryPage(caller.appId, query),
}));
