import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueGlobalSwitchBody } from '../../lib/schemas/dingyue.js';
import { freeFormReportBody } from '../../lib/schemas/mobile.js';
import { reportGlobalSwitch } from '../../lib/services/reporting.js';

/** POST /report/global_switch and /v2/report/global_switch (a literal path, not a report type) */
export const endpoint = {
  body: freeFormReportBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueGlobalSwitchBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await reportGlobalSwitch(caller, body);
    return { message: 'Global switch state recorded' };
  },
  async ({ caller, body }) => {
    await reportGlobalSwitch(caller, body);
    return {};
  },
);
