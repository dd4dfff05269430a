/**
 * The events whose payload names a user (a status change's or a grant's user, either user of a
 * transfer), one pointer item per user and event (userEventKey): outbox items and delivery records
 * are keyed by the event alone, and this is how the erasure of a user finds them.
 */
import { webhookConfig } from '../core/config.js';
import { ANONYMOUS_ID_PATTERN, usersNamedBy } from '../domain/erasure-scope.js';
import type { BusEventDetail } from '../events/schemas.js';
import { batchGetConsistent, batchWriteAll, putRequest } from './batch.js';
import * as keys from './entity-keys.js';
import { userEventKey } from './table-keys.js';

/**
 * Epoch seconds at which TTL deletes a pointer: twice the delivery records' retention, so it
 * outlives the delivery it leads to (kept the retention after its last attempt, the retries take
 * under two days); a redelivery writes it again. The erasure deletes it sooner.
 */
const pointerExpiry = (now: number): number =>
  Math.floor(now / 1000) + 2 * webhookConfig.webhookDeliveryRetentionDays * 86_400;

/**
 * Records which users the event names, before its delivery record is written (and again before
 * a redelivery): a delivery record then never exists that the erasure of one of them cannot find.
 */
export async function recordEventOfUsers(detail: BusEventDetail, now: number = Date.now()): Promise<void> {
  await batchWriteAll(
    // An anonymous id names nobody: there is no one left to erase.
    usersNamedBy(detail.payload)
      .filter((userId) => !ANONYMOUS_ID_PATTERN.test(userId))
      .map((userId) =>
        putRequest({
          ...userEventKey(detail.app_id, userId, detail.event_id),
          type: 'user_event',
          event_id: detail.event_id,
          ttl: pointerExpiry(now),
        }),
      ),
  );
}

/**
 * Whether the event names a user who has been erased since: a subscription it is about is kept
 * under an anonymous id now, while the event names a user by their id. For the events an erasure
 * did not find (recorded before their pointers were, or after the erasure): they are not sent again.
 */
export async function namesAnErasedUser(detail: BusEventDetail): Promise<boolean> {
  const named = usersNamedBy(detail.payload).filter((userId) => !ANONYMOUS_ID_PATTERN.test(userId));
  if (named.length === 0) return false;
  const data = (detail.payload.data ?? {}) as Record<string, unknown>;
  const subscriptionIds = ['subscription_id', 'from_subscription_id', 'to_subscription_id']
    .map((field) => data[field])
    .filter((id): id is string => typeof id === 'string');
  if (subscriptionIds.length === 0) return false;
  const subscriptions = await batchGetConsistent(subscriptionIds.map((id) => keys.subscription(detail.app_id, id)));
  return subscriptions.some((item) => typeof item?.user_id === 'string' && ANONYMOUS_ID_PATTERN.test(item.user_id));
}
