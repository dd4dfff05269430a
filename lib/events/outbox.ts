/**
 * The transactional outbox. A subscription's write announces its events on the SUB item it writes
 * (ANNOUNCED_EVENTS_ATTRIBUTE: kinds and ids, a few dozen bytes), in the same request as the new
 * state: the table's stream carries the item's old and new images to the publisher
 * (functions/events/publish-status-changes.ts), which builds each event from them and puts it on
 * EventBridge. Event ids derive from the subscription, its version and the kind, so a record the
 * stream delivers again yields the same ids (the deliverer sends each id once). A transfer of a
 * purchase, which changes two subscriptions, still writes one outbox item of its own.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { newEventId } from '../core/ids.js';
import * as keys from '../data/entity-keys.js';
import {
  ANNOUNCED_EVENTS_ATTRIBUTE,
  type AnnouncedEvents,
  type SubscriptionRecord,
  toRecord,
} from '../data/subscription-items.js';
import { SUBSCRIPTION_SK } from '../data/table-keys.js';
import type { StoreEventKind } from '../domain/store-sync.js';
import { INITIAL_STATUS, type StatusChange, type SubscriptionState } from '../domain/subscription-state.js';
import {
  type BusEventDetail,
  type EventPayload,
  type GrantEventPayload,
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

/**
 * Which stream records carry events a subscription write announced: writes of SUB items with
 * announced events (the publisher keeps those of the write that set them, subscriptionEventsOf).
 */
// Built in a call marked pure: to esbuild a computed key may have side effects, and the filter
// (the CDK's and the local poller's) would be kept in every bundle that writes a subscription.
export const ANNOUNCED_EVENTS_STREAM_FILTER = /* @__PURE__ */ (() =>
  ({
    dynamodb: {
      Keys: { sk: { S: [SUBSCRIPTION_SK] } },
      NewImage: { [ANNOUNCED_EVENTS_ATTRIBUTE]: { M: { version: { N: [{ exists: true }] } } } },
    },
  }) as const)();

/** The publisher's event source filters (either matches): the CDK event source and the local poller use them. */
export const PUBLISHED_STREAM_FILTERS = [OUTBOX_STREAM_FILTER, ANNOUNCED_EVENTS_STREAM_FILTER] as const;

const announcesEvents = (record: DynamoDBRecord): boolean =>
  record.dynamodb?.Keys?.sk?.S === SUBSCRIPTION_SK &&
  record.dynamodb.NewImage?.[ANNOUNCED_EVENTS_ATTRIBUTE]?.M?.version?.N !== undefined;

/** Whether PUBLISHED_STREAM_FILTERS let this record through. */
export const isPublishedRecord = (record: DynamoDBRecord): boolean => isOutboxInsert(record) || announcesEvents(record);

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

/** The notification of one status change of `subject`, now in state `after`. */
export function statusChangedPayloadOf(
  subject: Subject,
  after: SubscriptionState,
  change: StatusChange,
  timestamp: string,
): EventPayload {
  return {
    event: STATUS_CHANGED,
    timestamp,
    data: {
      subscription_id: subject.id,
      user_id: subject.user_id,
      old_status: change.from,
      new_status: change.to,
      expires_at: after.expires_at,
      auto_renew: after.auto_renew,
    },
  };
}

/** The outbox item announcing that a purchase moved to another user's subscription. */
export function transferOutboxItem(appId: string, transfer: TransferredPayload['data'], now: Date) {
  return outboxEntry(appId, { event: TRANSFERRED, timestamp: now.toISOString(), data: transfer }, now);
}

/** The outbox item announcing a change of a grant (written in the grant's own transaction). */
export function grantOutboxItem(appId: string, payload: GrantEventPayload, now: Date) {
  return outboxEntry(appId, payload, now);
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
      // An earlier period's refund leaves the subscription unrefunded: it was refunded when written.
      return { ...base, refunded_at: after.refunded_at ?? after.updated_at };
    case 'product_changed':
      return { ...base, previous_product_id: before.product_id };
    case 'auto_renew_changed':
    case 'refund_reversed':
      return base;
  }
}

/** The notification of one store-driven change of a subscription (renewed, refunded, ...). */
export function storeEventPayloadOf(
  kind: StoreEventKind,
  before: SubscriptionRecord,
  after: SubscriptionRecord,
  transactionId: string | null,
  timestamp: string,
): StoreEventPayload {
  return {
    event: STORE_EVENTS[kind],
    timestamp,
    data: storeEventData(kind, before, after, transactionId),
  } as StoreEventPayload;
}

/** What a write of a subscription (now at `version`) announces, if anything: kept on its SUB item. */
export function announcedEvents(
  version: number,
  statusChange: StatusChange | null | undefined,
  storeEvents?: { kinds: readonly StoreEventKind[]; transactionId: string | null },
): AnnouncedEvents | undefined {
  const kinds: AnnouncedEvents['kinds'] = [
    ...(statusChange ? (['status_changed'] as const) : []),
    ...(storeEvents?.kinds ?? []),
  ];
  if (kinds.length === 0) return undefined;
  return {
    version,
    kinds,
    ...(storeEvents?.transactionId && storeEvents.kinds.includes('renewed')
      ? { transaction_id: storeEvents.transactionId }
      : {}),
  };
}

/** The id of an announced event: the same for the same write, whoever builds it and how often. */
export const announcedEventId = (
  appId: string,
  subscriptionId: string,
  version: number,
  kind: AnnouncedEvents['kinds'][number],
): string =>
  `evt_${createHash('sha256').update(`${appId}#${subscriptionId}#${version}#${kind}`).digest('hex').slice(0, 24)}`;

type StoredSubscription = Record<string, unknown> & { [ANNOUNCED_EVENTS_ATTRIBUTE]?: AnnouncedEvents };

const imageOf = (image: Record<string, AttributeValue> | undefined): StoredSubscription | undefined =>
  image && (unmarshall(image) as StoredSubscription);

/**
 * The events a stream record of a SUB item announces: those the write set (the item's version is
 * theirs), none for a later write that left them on the item or a rewrite of the same version.
 */
export function subscriptionEventsOf(record: DynamoDBRecord): BusEventDetail[] {
  if (!announcesEvents(record)) return [];
  const afterImage = imageOf(record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined);
  const announced = afterImage?.[ANNOUNCED_EVENTS_ATTRIBUTE];
  if (!afterImage || !announced || announced.version !== afterImage.version) return [];
  const beforeImage = imageOf(record.dynamodb?.OldImage as Record<string, AttributeValue> | undefined);
  if (beforeImage?.[ANNOUNCED_EVENTS_ATTRIBUTE]?.version === announced.version) return [];
  const after = toRecord(afterImage);
  const before = beforeImage ? toRecord(beforeImage) : after;
  return announced.kinds.map((kind) => ({
    app_id: after.app_id,
    event_id: announcedEventId(after.app_id, after.id, announced.version, kind),
    payload:
      kind === 'status_changed'
        ? statusChangedPayloadOf(
            after,
            after,
            { from: beforeImage ? before.status : INITIAL_STATUS, to: after.status },
            after.updated_at,
          )
        : storeEventPayloadOf(kind, before, after, announced.transaction_id ?? null, after.updated_at),
  }));
}
