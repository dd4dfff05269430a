/**
 * What an operator sees of a webhook delivery (the API's `GET /v1/webhooks/deliveries` and `admin
 * webhooks deliveries` alike), and the opaque cursor of that list.
 */
import type { EventPayload } from '../events/schemas.js';
import { cursorOfAnotherQuery, decodeCursorFields, encodeCursorFields } from './pagination.js';
import { type DeliveryError, shownDeliveryError } from './webhook-errors.js';

export const DELIVERY_STATUSES = [
  'pending',
  'delivered',
  /** Retries exhausted: handed to the dead-letter queue. */
  'dead',
  /** The endpoint answered 410 Gone, or was disabled earlier. */
  'endpoint_disabled',
  /** The app has no webhook endpoint. */
  'no_endpoint',
  /** The endpoint does not receive this event's kind (its `--events` filter): not sent, not retried. */
  'filtered',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The fields of a delivery record the view reads. */
export interface DeliveryFacts {
  event_id: string;
  payload: EventPayload;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  attempt_log: readonly { status_code: number | null; error: string | null }[];
  redelivered_at?: string;
  created_at: string;
  updated_at: string;
}

export interface DeliveryView {
  event_id: string;
  event: EventPayload['event'];
  /** Null for an event about no subscription (an entitlement grant's). */
  subscription_id: string | null;
  change: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  /** What failed when there was no answer, as a category (never the error's text). */
  last_error: DeliveryError | null;
  redelivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The subscription an event is about, and what happened to it, in a few words. */
export function deliveredChange(payload: EventPayload): { subscription_id: string | null; change: string } {
  switch (payload.event) {
    case 'subscription.transferred':
      return {
        subscription_id: payload.data.to_subscription_id,
        change: `transferred from ${payload.data.from_subscription_id}`,
      };
    case 'subscription.status_changed':
      return {
        subscription_id: payload.data.subscription_id,
        change: `${payload.data.old_status}->${payload.data.new_status}`,
      };
    case 'subscription.renewed':
      return { subscription_id: payload.data.subscription_id, change: `renewed to ${payload.data.expires_at}` };
    case 'subscription.auto_renew_changed':
      return {
        subscription_id: payload.data.subscription_id,
        change: `auto_renew ${payload.data.auto_renew ? 'on' : 'off'}`,
      };
    case 'subscription.billing_issue':
      return { subscription_id: payload.data.subscription_id, change: 'billing issue' };
    case 'subscription.refunded':
      return { subscription_id: payload.data.subscription_id, change: 'refunded' };
    case 'subscription.refund_reversed':
      return { subscription_id: payload.data.subscription_id, change: 'refund reversed' };
    case 'subscription.product_changed':
      return {
        subscription_id: payload.data.subscription_id,
        change: `${payload.data.previous_product_id}->${payload.data.product_id}`,
      };
    // A grant concerns no subscription: the change names the user and the entitlement instead.
    case 'entitlement.granted':
    case 'entitlement.revoked':
    case 'entitlement.expired':
      return {
        subscription_id: null,
        change: `${payload.data.entitlement_id} of ${payload.data.user_id} ${payload.event.slice('entitlement.'.length)}`,
      };
  }
}

export function deliveryView(delivery: DeliveryFacts): DeliveryView {
  const last = delivery.attempt_log.at(-1);
  return {
    event_id: delivery.event_id,
    event: delivery.payload.event,
    ...deliveredChange(delivery.payload),
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.next_attempt_at,
    last_status_code: last?.status_code ?? null,
    last_error: shownDeliveryError(last?.error ?? null),
    redelivered_at: delivery.redelivered_at ?? null,
    created_at: delivery.created_at,
    updated_at: delivery.updated_at,
  };
}

/** Where a page of deliveries ended (the list's sort key, `<created_at>#<event_id>`) and for which filter. */
export interface DeliveryCursor {
  after: string;
  status: DeliveryStatus | null;
}

export const encodeDeliveryCursor = (cursor: DeliveryCursor): string =>
  encodeCursorFields({ a: cursor.after, s: cursor.status });

/** Throws INVALID_PARAMETER for a cursor that is malformed or was issued for another status filter. */
export function decodeDeliveryCursor(cursor: string, status: DeliveryStatus | null): string {
  const decoded = decodeCursorFields<{ a: string; s: unknown }>(
    cursor,
    (c) => typeof c.a === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#evt_[0-9a-f]{24}$/.test(c.a),
  );
  if (decoded.s !== status) {
    throw cursorOfAnotherQuery('another status filter', 'use the cursor with the same status as the page it came from');
  }
  return decoded.a;
}
