import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listDeliveriesQuery } from '../../lib/schemas/webhook.js';
import { listDeliveryPage } from '../../lib/services/webhook-delivery.js';

/** GET /v1/webhooks/deliveries */
export const endpoint = {
  query: listDeliveriesQuery,
  response: 'WebhookDeliveries',
  pagination: 'DeliveryPagination',
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, query }) => ({
  body: await listDeliveryPage(caller.appId, query),
}));
