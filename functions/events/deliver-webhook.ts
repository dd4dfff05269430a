import type { Context, EventBridgeEvent } from 'aws-lambda';
import { busEventDetail, type EventKind } from '../../lib/events/schemas.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';

/** Time kept back from the function's timeout for answering after the last recording attempt. */
const TIMEOUT_MARGIN_MS = 1000;

/** Target of the bus rule for every event kind (EVENT_KINDS): records the delivery and makes the first attempt. */
export const handler = async (event: EventBridgeEvent<EventKind, unknown>, context: Context) => {
  const delivery = await deliverStatusChange(busEventDetail.parse(event.detail), {
    // A sent webhook whose outcome is not recorded would be sent again: record it while the function may run.
    recordUntil: Date.now() + context.getRemainingTimeInMillis() - TIMEOUT_MARGIN_MS,
  });
  return { event_id: delivery.event_id, status: delivery.status, attempts: delivery.attempts };
};
