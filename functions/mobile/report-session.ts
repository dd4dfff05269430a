import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { reportSessionBody } from '../../lib/schemas/mobile.js';
import { reportSession } from '../../lib/services/reporting.js';

/** POST /sessions/report and /v2/sessions/report: a repeated report of one session counts once. */
export const handler = mobileEndpoint({ body: reportSessionBody }, async ({ caller, body }) => {
  const { counted } = await reportSession(caller, body);
  return { message: counted ? 'Session recorded' : 'Session already recorded' };
});
