import { specPropertiesOf } from '../../lib/domain/dingyue-dialect.js';
import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { parsePart } from '../../lib/http/parse.js';
import { customPropertiesBody, freeFormReportBody } from '../../lib/schemas/mobile.js';
import { setCustomProperties } from '../../lib/services/reporting.js';

/** POST /users/custom_properties/set: merged into the profile; null deletes a property. */
export const endpoint = {
  body: customPropertiesBody,
  response: 'CustomPropertiesResult',
  errors: REPORT_ERRORS,
  dingyue: { body: freeFormReportBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => ({
    message: 'Custom properties updated',
    data: await setCustomProperties(caller, body),
  }),
  async ({ caller, body }) => {
    // The SDK sends the app's dictionary itself; the spec's rules for names and values apply to it.
    await setCustomProperties(caller, parsePart('body', customPropertiesBody, { properties: specPropertiesOf(body) }));
    return {};
  },
);
