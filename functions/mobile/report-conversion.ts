import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { reportConversionBody } from '../../lib/schemas/mobile.js';
import { reportConversion } from '../../lib/services/reporting.js';

/** POST /conversion/report and /v2/conversion/report */
export const endpoint = { body: reportConversionBody, errors: REPORT_ERRORS } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => {
  await reportConversion(caller, body);
  return { message: 'Conversion recorded' };
});
