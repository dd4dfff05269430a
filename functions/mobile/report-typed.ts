import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueReportValueBody } from '../../lib/schemas/dingyue.js';
import { freeFormReportBody, reportTypeParams } from '../../lib/schemas/mobile.js';
import { reportTyped } from '../../lib/services/reporting.js';

/** POST /report/{type} and /v2/report/{type} (device_info, app_info, ...) */
export const endpoint = {
  params: reportTypeParams,
  body: freeFormReportBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueReportValueBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, params, body }) => {
    await reportTyped(caller, params.type, body);
    return { message: `${params.type} report recorded` };
  },
  async ({ caller, params, body }) => {
    // /report/idfa and /report/device_token send the value alone, a JSON string.
    await reportTyped(caller, params.type, { value: body });
    return {};
  },
);
