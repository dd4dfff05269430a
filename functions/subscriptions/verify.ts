import { type SubscriptionsDeclaration, VERIFY_ERRORS } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { verifyPurchaseBody } from '../../lib/schemas/subscription.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /v1/subscriptions/verify */
export const endpoint = {
  body: verifyPurchaseBody,
  response: 'VerificationResult',
  errors: VERIFY_ERRORS,
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, body }) => ({
  body: { data: await verifyPurchase(caller.appId, body) },
}));
