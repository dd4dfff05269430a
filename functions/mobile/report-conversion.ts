import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueConversionBody } from '../../lib/schemas/dingyue.js';
import { reportConversionBody } from '../../lib/schemas/mobile.js';
import { reportConversion } from '../../lib/services/reporting.js';

/** POST /conversion/report and /v2/conversion/report */
export const endpoint = {
  body: reportConversionBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueConversionBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await reportConversion(caller, body);
    return { message: 'Conversion recorded' };
  },
  async ({ caller, body }) => {
    // The SDK's one conversion: the SKAdNetwork value; its coarse value is kept beside it.
    await reportConversion(caller, { conversionType: 'skadnetwork', value: body.conversionValue }, body.coarseValue);
    return {};
  },
);
