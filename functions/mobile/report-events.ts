import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { reportEventsBody } from '../../lib/schemas/mobile.js';
import { reportEvents } from '../../lib/services/reporting.js';

/** POST /users/report/events and /v2/users/report/events */
export const handler = mobileEndpoint({ body: reportEventsBody }, async ({ caller, body }) => {
  const { accepted } = await reportEvents(caller, body.events);
  return { message: `${accepted} event(s) recorded`, data: { accepted } };
});
