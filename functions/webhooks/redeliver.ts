import { AppError } from '../../lib/core/errors.js';
import { deliveryView } from '../../lib/domain/webhook-deliveries.js';
import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { ENDPOINT_TIMEOUT_SECONDS } from '../../lib/routes.js';
import { eventIdParams } from '../../lib/schemas/webhook.js';
import { redeliver } from '../../lib/services/webhook-delivery.js';

/** The attempt gets half the request's time; recording its outcome may use the rest but a second. */
const ATTEMPT_TIMEOUT_MS = (ENDPOINT_TIMEOUT_SECONDS * 1000) / 2;

/** POST /v1/webhooks/deliveries/{event_id}/redeliver */
export const endpoint = {
  params: eventIdParams,
  paramsNotFound: 'DELIVERY_NOT_FOUND',
  response: 'WebhookDelivery',
  errors: ['DELIVERY_NOT_FOUND', 'EVENT_OF_ERASED_USER'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => {
  const delivery = await redeliver(params.event_id, {
    appId: caller.appId,
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    recordUntil: Date.now() + ENDPOINT_TIMEOUT_SECONDS * 1000 - 1000,
  });
  if (!delivery) throw new AppError('DELIVERY_NOT_FOUND');
  return { body: { data: deliveryView(delivery) } };
});
