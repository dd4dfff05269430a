import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { userAttributesBody } from '../../lib/schemas/mobile.js';
import { updateUserAttributes } from '../../lib/services/reporting.js';

/** PUT /users/attribute/update and /v2/users/attribute/update: standard attributes; null clears one. */
export const handler = mobileEndpoint({ body: userAttributesBody }, async ({ caller, body }) => {
  await updateUserAttributes(caller, body);
  return { message: 'Attributes updated' };
});
