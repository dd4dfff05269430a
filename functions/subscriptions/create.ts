import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { createSubscriptionBody } from '../../lib/schemas/subscription.js';
import { createSubscription } from '../../lib/services/subscriptions.js';

/** POST /v1/subscriptions: 201 when created, 200 when the transaction id was already recorded. */
export const endpoint = {
  body: createSubscriptionBody,
  response: 'CreatedSubscription',
  statuses: [201, 200],
  errors: ['PRODUCT_NOT_FOUND', 'RECEIPT_ALREADY_USED', 'CONCURRENT_MODIFICATION'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, body }) => {
  const { created, subscription } = await createSubscription(caller.appId, body);
  return { status: created ? 201 : 200, body: { data: subscription } };
});
