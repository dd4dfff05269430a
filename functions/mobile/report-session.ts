import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueDeviceBody } from '../../lib/schemas/dingyue.js';
import { reportSessionBody } from '../../lib/schemas/mobile.js';
import { dingyueLaunch } from '../../lib/services/dingyue-launch.js';
import { reportSession } from '../../lib/services/reporting.js';

/** POST /sessions/report and /v2/sessions/report: a repeated report of one session counts once. */
export const endpoint = {
  body: reportSessionBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueDeviceBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    const { counted } = await reportSession(caller, body);
    return { message: counted ? 'Session recorded' : 'Session already recorded' };
  },
  async ({ caller, body, requestId }) => dingyueLaunch(caller, body, requestId),
);
