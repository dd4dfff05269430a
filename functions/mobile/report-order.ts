import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { reportOrderBody } from '../../lib/schemas/mobile.js';
import { reportOrder } from '../../lib/services/reporting.js';

/** POST /order/report and /v2/order/report: idempotent on orderId. */
export const endpoint = { body: reportOrderBody, errors: REPORT_ERRORS } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => {
  const { recorded } = await reportOrder(caller, body);
  return { message: recorded ? 'Order recorded' : 'Order already recorded' };
});
