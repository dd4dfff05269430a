import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueAttributionBody } from '../../lib/schemas/dingyue.js';
import { attributionReportBody } from '../../lib/schemas/mobile.js';
import { reportAttribution } from '../../lib/services/reporting.js';

/** POST /attribution/report: first-touch and latest attribution on the user's profile. */
export const endpoint = {
  body: attributionReportBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueAttributionBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await reportAttribution(caller, body);
    return { message: 'Attribution recorded' };
  },
  async ({ caller, body }) => {
    // The ids the app's attribution SDKs gave this device: an attribution whose network is "sdk_ids".
    await reportAttribution(caller, { network: 'sdk_ids', data: body });
    return {};
  },
);
