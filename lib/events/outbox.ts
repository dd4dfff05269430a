/**
 * The transactional outbox: every status change (and every transfer of a purchase) writes, in the
 * same TransactWriteItems as the new state, one outbox item holding the notification. The table's
 * stream carries its INSERT to the publisher (functions/events/publish-status-changes.ts), which puts it on EventBridge.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { newEventId } from '../core/ids.js';
import { keys } from '../data/keys.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import type { StoreEventKind } from '../domain/store-sync.js';
import type { StatusChange, SubscriptionState } from '../domain/subscription-state.js';
import {
  type BusEventDetail,
  STATUS_CHANGED,
  STORE_EVENTS,
  type StoreEventPayload,
  TRANSFERRED,
  type TransferredPayload,
} from './schemas.js';

/** Outbox items are deleted by TTL once the stream has long carried them (streams keep 24 h). */
export const OUTBOX_TTL_SECONDS = 7 * 86_400;
export const OUTBOX_ITEM_TYPE = 'outbox';

/**
 * Which stream records reach the publisher: inserts of outbox items. The CDK event source filter
 * and the local stream poller both use this one definition.
 */
export const OUTBOX_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: [OUTBOX_ITEM_TYPE] } } },
} as const;

export function isOutboxInsert(record: DynamoDBRecord): boolean {
  return record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === OUTBOX_ITEM_TYPE;
}

export interface Subject {
  app_id: string;
  id: string;
  user_id: string;
}

/** The outbox item carrying one event of an app. */
function outboxEntry(appId: string, payload: BusEventDetail['payload'], now: Date) {
  const detail: BusEventDetail = { app_id: appId, event_id: newEventId(), payload };
  return {
    ...keys.outbox(detail.event_id),
    type: OUTBOX_ITEM_TYPE,
    ...detail,
    ttl: Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS,
  };
}

/** The outbox item announcing one status change of `subject`, now in state `after`. */
export function outboxItem(subject: Subject, after: SubscriptionState, change: StatusChange, now: Date) {
  return outboxEntry(
    subject.app_id,
    {
      event: STATUS_CHANGED,
      timestamp: now.toISOString(),
      data: {
        subscription_id: subject.id,
        user_id: subject.user_id,
        old_status: change.from,
        new_status: change.to,
        expires_at: after.expires_at,
        auto_renew: after.auto_renew,
      },
    },
    now,
  );
}

/** The outbox item announcing that a purchase moved to another user's subscription. */
export function transferOutboxItem(appId: string, transfer: TransferredPayload['data'], now: Date) {
  return outboxEntry(appId, { event: TRANSFERRED, timestamp: now.toISOString(), data: transfer }, now);
}

/** The data of a store-driven event: the subscription as the change left it, and the kind's own fields. */
function storeEventData(
  kind: StoreEventKind,
  before: SubscriptionRecord,
  after: SubscriptionRecord,
  transactionId: string | null,
) {
  const base = {
    subscription_id: after.id,
    user_id: after.user_id,
    product_id: after.product_id,
    price: after.price,
    currency: after.currency,
    store: after.store,
    environment: after.environment,
    status: after.status,
    expires_at: after.expires_at,
    auto_renew: after.auto_renew,
  };
  switch (kind) {
    case 'renewed':
      return { ...base, transaction_id: transactionId };
    case 'billing_issue':
      return {
        ...base,
        billing_issue_at: after.billing_issue_at!,
        grace_period_expires_at: after.grace_period_expires_at,
      };
    case 'refunded':
      return { ...base, refunded_at: after.refunded_at! };
    case 'product_changed':
      return { ...base, previous_product_id: before.product_id };
    case 'auto_renew_changed':
    case 'refund_reversed':
      return base;
  }
}

/** The outbox item announcing one store-driven change of a subscription (renewed, refunded, ...). */
export function storeEventOutboxItem(
  kind: StoreEventKind,
  before: SubscriptionRecord,
  after: SubscriptionRecord,
  transactionId: string | null,
  now: Date,
) {
  const payload = {
    event: STORE_EVENTS[kind],
    timestamp: now.toISOString(),
    data: storeEventData(kind, before, after, transactionId),
  } as StoreEventPayload;
  return outboxEntry(after.app_id, payload, now);
}
