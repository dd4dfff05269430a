import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { customPropertiesBody } from '../../lib/schemas/mobile.js';
import { setCustomProperties } from '../../lib/services/reporting.js';

/** POST /users/custom_properties/set: merged into the profile; null deletes a property. */
export const handler = mobileEndpoint({ body: customPropertiesBody }, async ({ caller, body }) => ({
  message: 'Custom properties updated',
  data: await setCustomProperties(caller, body),
}));
