import { specEventsOf } from '../../lib/domain/dingyue-dialect.js';
import type { MobileDeclaration } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueEventsBody } from '../../lib/schemas/dingyue.js';
import { reportEventsBody } from '../../lib/schemas/mobile.js';
import { reportEvents } from '../../lib/services/reporting.js';

/** POST /users/report/events and /v2/users/report/events */
export const endpoint = {
  body: reportEventsBody,
  documentedBody: 'EventBatch',
  response: 'ReportedEvents',
  errors: ['EVENT_NAME_REQUIRED', 'USER_REQUIRED', 'SESSION_ID_REQUIRED', 'CONCURRENT_MODIFICATION'],
  dingyue: { body: dingyueEventsBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    const { accepted } = await reportEvents(caller, body.events);
    return { message: `${accepted} event(s) recorded`, data: { accepted } };
  },
  async ({ caller, body, requestId }) => {
    await reportEvents(caller, specEventsOf(body.events, requestId));
    return {};
  },
);
