import { specAttributesOf } from '../../lib/domain/dingyue-dialect.js';
import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { parsePart } from '../../lib/http/parse.js';
import { dingyueAttributesBody } from '../../lib/schemas/dingyue.js';
import { customPropertiesBody, userAttributesBody } from '../../lib/schemas/mobile.js';
import { setCustomProperties, updateUserAttributes } from '../../lib/services/reporting.js';

/** PUT /users/attribute/update and /v2/users/attribute/update: standard attributes; null clears one. */
export const endpoint = {
  body: userAttributesBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueAttributesBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await updateUserAttributes(caller, body);
    return { message: 'Attributes updated' };
  },
  async ({ caller, body }) => {
    // Standard attributes by the spec's rules; the SDK's other keys (its purchase source) as custom properties.
    const { attributes, properties } = specAttributesOf(body);
    if (Object.keys(attributes).length > 0)
      await updateUserAttributes(caller, parsePart('body', userAttributesBody, attributes));
    if (Object.keys(properties).length > 0)
      await setCustomProperties(caller, parsePart('body', customPropertiesBody, { properties }));
    return {};
  },
);
