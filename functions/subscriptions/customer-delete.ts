import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { customerParams } from '../../lib/schemas/entitlement.js';
import { eraseCustomer } from '../../lib/services/erasure.js';

/** DELETE /v1/customers/{user_id}: erases the user's data; 200 when nothing is left, 202 while the job carries on. */
export const endpoint = {
  params: customerParams,
  response: 'ErasureResult',
  statuses: [200, 202],
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, params }) => {
  const data = await eraseCustomer(caller.appId, params.user_id);
  return { status: data.status === 'erased' ? 200 : 202, body: { data } };
});
