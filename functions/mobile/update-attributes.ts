import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { userAttributesBody } from '../../lib/schemas/mobile.js';
import { updateUserAttributes } from '../../lib/services/reporting.js';

/** PUT /users/attribute/update and /v2/users/attribute/update: standard attributes; null clears one. */
export const endpoint = { body: userAttributesBody, errors: REPORT_ERRORS } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => {
  await updateUserAttributes(caller, body);
  return { message: 'Attributes updated' };
});
