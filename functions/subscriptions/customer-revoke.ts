import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { grantParams } from '../../lib/schemas/entitlement.js';
import { revokeEntitlement } from '../../lib/services/grants.js';

/** POST /v1/customers/{user_id}/entitlements/{entitlement_id}/revoke: ends the running grant; idempotent. */
export const handler = subscriptionsEndpoint({ params: grantParams }, async ({ caller, params }) => ({
  body: { data: await revokeEntitlement(caller.appId, params.user_id, params.entitlement_id) },
}));
