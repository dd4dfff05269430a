import type { EventBridgeEvent } from 'aws-lambda';
import { busEventDetail, type STATUS_CHANGED } from '../../lib/events/schemas.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';

/** Target of the bus rule for `subscription.status_changed`: records the delivery and makes the first attempt. */
export const handler = async (event: EventBridgeEvent<typeof STATUS_CHANGED, unknown>) => {
  const delivery = await deliverStatusChange(busEventDetail.parse(event.detail));
  return { event_id: delivery.event_id, status: delivery.status, attempts: delivery.attempts };
};
