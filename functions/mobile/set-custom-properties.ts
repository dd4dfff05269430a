import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { customPropertiesBody } from '../../lib/schemas/mobile.js';
import { setCustomProperties } from '../../lib/services/reporting.js';

/** POST /users/custom_properties/set: merged into the profile; null deletes a property. */
export const endpoint = {
  body: customPropertiesBody,
  response: 'CustomPropertiesResult',
  errors: REPORT_ERRORS,
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => ({
  message: 'Custom properties updated',
  data: await setCustomProperties(caller, body),
}));
