import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { grantParams } from '../../lib/schemas/entitlement.js';
import { revokeEntitlement } from '../../lib/services/grants.js';

/** POST /v1/customers/{user_id}/entitlements/{entitlement_id}/revoke: ends the running grant; idempotent. */
export const endpoint = {
  params: grantParams,
  response: 'RevokeResult',
  errors: ['ENTITLEMENT_NOT_FOUND'],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => ({
  body: { data: await revokeEntitlement(caller.appId, params.user_id, params.entitlement_id) },
}));
