import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { reportConversionBody } from '../../lib/schemas/mobile.js';
import { reportConversion } from '../../lib/services/reporting.js';

/** POST /conversion/report and /v2/conversion/report */
export const handler = mobileEndpoint({ body: reportConversionBody }, async ({ caller, body }) => {
  await reportConversion(caller, body);
  return { message: 'Conversion recorded' };
});
