import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { customerParams } from '../../lib/schemas/entitlement.js';
import { customerOfferingsQuery } from '../../lib/schemas/offering.js';
import { offeringsForUser } from '../../lib/services/offerings.js';

/**
 * GET /v1/customers/{user_id}/offerings?platform=: what the user is shown (each placement's
 * offering, each switch's value) and the rule that chose it; a user never seen, what a new user is.
 */
export const endpoint = {
  params: customerParams,
  query: customerOfferingsQuery,
  response: 'CustomerOfferings',
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, query }) => ({
  body: { data: await offeringsForUser(caller.appId, params.user_id, query.platform) },
}));
