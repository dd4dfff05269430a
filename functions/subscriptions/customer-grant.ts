import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { grantBody, grantParams } from '../../lib/schemas/entitlement.js';
import { grantEntitlement } from '../../lib/services/grants.js';

/** POST /v1/customers/{user_id}/entitlements/{entitlement_id}/grant: `{duration}` or `{expires_at}`; extends a running grant. */
export const endpoint = {
  params: grantParams,
  body: grantBody,
  response: 'Grant',
  errors: ['ENTITLEMENT_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params, body }) => ({
  body: { data: await grantEntitlement(caller.appId, params.user_id, params.entitlement_id, body) },
}));
