import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { freeFormReportBody, reportTypeParams } from '../../lib/schemas/mobile.js';
import { reportTyped } from '../../lib/services/reporting.js';

/** POST /report/{type} and /v2/report/{type} (device_info, app_info, ...) */
export const handler = mobileEndpoint(
  { params: reportTypeParams, body: freeFormReportBody },
  async ({ caller, params, body }) => {
    await reportTyped(caller, params.type, body);
    return { message: `${params.type} report recorded` };
  },
);
