/** Webhook endpoints of apps and the record of every delivery (attempts, outcome, next try). */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { webhookConfig } from '../core/config.js';
import { newWebhookSecret } from '../core/ids.js';
import type { DeliveryStatus } from '../domain/webhook-deliveries.js';
import type { EventFilter } from '../domain/webhook-filter.js';
import { type BreakerState, isPaused } from '../domain/webhook-scheduling.js';
import type { BusEventDetail, EventKind } from '../events/schemas.js';
import type { WebhookEndpointView } from '../schemas/app.js';
import { batchGetConsistent } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { type IndexName, withoutKeys } from './table.js';
import { dueAttributes } from './table-keys.js';

export interface WebhookEndpoint {
  app_id: string;
  url: string;
  /** Standard Webhooks signing secret (`whsec_...`); never returned by any API. */
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  /** The event kinds it receives; null (stored as no attribute) for every kind, later ones included. */
  events: EventFilter;
  updated_at: string;
  /** Its circuit breaker (domain/webhook-scheduling.ts): attempts timed out in a row, and the pause they started. */
  breaker: BreakerState;
}

const CLOSED_BREAKER: BreakerState = { consecutive_timeouts: 0, paused_until: null };

/** Sets the app's endpoint with a new signing secret and event filter (and re-enables it). */
export async function setWebhook(appId: string, url: string, events: EventFilter = null): Promise<WebhookEndpoint> {
  const endpoint: WebhookEndpoint = {
    app_id: appId,
    url,
    secret: newWebhookSecret(),
    enabled: true,
    disabled_reason: null,
    events,
    updated_at: new Date().toISOString(),
    // A new URL starts with a closed breaker (the Put drops the old one's).
    breaker: CLOSED_BREAKER,
  };
  const { breaker: _closed, ...stored } = endpoint;
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      // Every kind is the absence of a filter, not today's list of kinds.
      Item: { ...keys.webhook(appId), type: 'webhook', ...stored, events: events ?? undefined },
    }),
  );
  return endpoint;
}

export async function getWebhook(appId: string): Promise<WebhookEndpoint | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.webhook(appId) }));
  if (!Item) return undefined;
  const { events, consecutive_timeouts, paused_until, ...rest } = withoutKeys<
    Omit<WebhookEndpoint, 'events' | 'breaker'> & {
      events?: string[];
      consecutive_timeouts?: number;
      paused_until?: string;
    }
  >(Item);
  return {
    ...rest,
    events: events ?? null,
    breaker: { consecutive_timeouts: consecutive_timeouts ?? 0, paused_until: paused_until ?? null },
  };
}

/**
 * Counts a timed-out attempt to this URL (atomically: attempts in flight together each count) and
 * returns the count. An endpoint set to another URL since is left alone (null).
 */
/** The endpoint as the API and `webhooks show` present it: never its signing secret. */
export function webhookEndpointView(endpoint: WebhookEndpoint, now: Date): WebhookEndpointView {
  const { url, enabled, disabled_reason, events, updated_at, breaker } = endpoint;
  return {
    url,
    enabled,
    disabled_reason,
    // `webhooks set` stores known kinds only (lib/domain/webhook-filter.ts).
    events: events as EventKind[] | null,
    paused_until: isPaused(breaker, now) ? breaker.paused_until : null,
    updated_at,
  };
}

export async function countEndpointTimeout(appId: string, url: string): Promise<number | null> {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(appId),
        UpdateExpression: 'ADD consecutive_timeouts :one',
        ConditionExpression: '#url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':one': 1, ':url': url },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.consecutive_timeouts);
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

/**
 * Pauses the endpoint at this URL until `until`, or closes its breaker again (null). A pause only
 * ever moves later: of two attempts timing out together, the one recorded last may have ended first.
 */
export async function setEndpointPause(appId: string, url: string, until: string | null): Promise<void> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhook(appId),
        UpdateExpression: until === null ? 'REMOVE consecutive_timeouts, paused_until' : 'SET paused_until = :until',
        ConditionExpression:
          until === null
            ? '#url = :url'
            : '#url = :url AND (attribute_not_exists(paused_until) OR paused_until < :until)',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':url': url, ...(until === null ? {} : { ':until': until }) },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function disableWebhook(appId: string, reason: string): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhook(appId),
      UpdateExpression: 'SET enabled = :false, disabled_reason = :reason, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':false': false, ':reason': reason, ':now': new Date().toISOString() },
    }),
  );
}

export type { DeliveryStatus };

export interface AttemptLog {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRecord extends BusEventDetail {
  status: DeliveryStatus;
  /** Set by `webhooks redeliver`: the operator asked for this event, so it is sent whatever the endpoint's filter. */
  redelivered_at?: string;
  attempts: number;
  next_attempt_at: string | null;
  attempt_log: AttemptLog[];
  created_at: string;
  updated_at: string;
}

/** At most this many attempts are kept in a delivery's log (newest). */
const MAX_LOGGED_ATTEMPTS = 20;

function deliveryItem(record: DeliveryRecord) {
  return {
    ...keys.delivery(record.event_id),
    type: 'webhook_delivery',
    ...record,
    deliveries_pk: record.app_id,
    deliveries_status_pk: deliveriesStatusPartition(record.app_id, record.status),
    deliveries_sk: deliverySortKey(record),
    // In the due index while it has a next attempt, which only a pending delivery has (services/webhook-delivery.ts).
    ...(record.next_attempt_at ? dueAttributes('DLV', record.next_attempt_at, record.updated_at, record.event_id) : {}),
    ttl: deliveryExpiry(record),
  };
}

/**
 * Epoch seconds at which TTL deletes the record: the retention after its next try, or after its
 * last change once it has none, so a delivery still being retried is never deleted before its try.
 */
function deliveryExpiry(record: Pick<DeliveryRecord, 'next_attempt_at' | 'updated_at'>): number {
  const from = Date.parse(record.next_attempt_at ?? record.updated_at);
  return Math.floor(from / 1000) + webhookConfig.webhookDeliveryRetentionDays * 86_400;
}

/** DynamoDB deletes an expired item within days, not at once: until then no read shows it. */
const expired = (item: Record<string, unknown>, now: Date) =>
  typeof item.ttl === 'number' && item.ttl * 1000 <= now.getTime();

function deliveriesStatusPartition(appId: string, status: DeliveryStatus) {
  return `${appId}#${status}`;
}

function deliverySortKey(record: Pick<DeliveryRecord, 'created_at' | 'event_id'>) {
  return `${record.created_at}#${record.event_id}`;
}

function toDelivery(item: Record<string, unknown>): DeliveryRecord {
  const { ttl: _ttl, ...record } = withoutKeys<DeliveryRecord & { ttl?: number }>(item);
  return record;
}

/** Records a new event to deliver; returns false when it is already recorded (a duplicate from the bus). */
export async function createDelivery(detail: BusEventDetail, now: Date): Promise<DeliveryRecord | false> {
  const record: DeliveryRecord = {
    ...detail,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now.toISOString(),
    attempt_log: [],
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: deliveryItem(record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return record;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDelivery(eventId: string): Promise<DeliveryRecord | undefined> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.delivery(eventId), ConsistentRead: true }),
  );
  return Item ? toDelivery(Item) : undefined;
}

/**
 * Replaces a delivery record if it is still at `expectedAttempts` with status pending (or, with
 * `force`, whatever its status): the claim that makes one worker, not two, send an attempt.
 */
export async function replaceDelivery(next: DeliveryRecord, expectedAttempts: number, force = false): Promise<boolean> {
  const trimmed = { ...next, attempt_log: next.attempt_log.slice(-MAX_LOGGED_ATTEMPTS) };
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: deliveryItem(trimmed),
        ConditionExpression: force ? 'attribute_exists(pk)' : 'attempts = :attempts AND #status = :pending',
        ...(force
          ? {}
          : {
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':attempts': expectedAttempts, ':pending': 'pending' },
            }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  /** Sort key of the page's last delivery when more may follow, else null. */
  lastSortKey: string | null;
}

/**
 * The app's deliveries, newest first, from just after `after` (a sort key of the list), all or of
 * one status. The status index holds keys only: the page's deliveries are then read by key, and
 * one that has moved to another status since its entry was written is left out.
 */
export async function listDeliveries(
  appId: string,
  options: { limit: number; status?: DeliveryStatus; after?: string },
): Promise<DeliveryPage> {
  const { limit, status, after } = options;
  const { Items: found = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: (status ? 'deliveriesByStatus' : 'deliveriesByApp') satisfies IndexName,
      KeyConditionExpression: `${status ? 'deliveries_status_pk' : 'deliveries_pk'} = :partition${after ? ' AND deliveries_sk < :after' : ''}`,
      ExpressionAttributeValues: {
        ':partition': status ? deliveriesStatusPartition(appId, status) : appId,
        ...(after ? { ':after': after } : {}),
      },
      ScanIndexForward: false,
      // One more than the page: whether another page follows is then known without reading it.
      Limit: limit + 1,
    }),
  );
  const Items = found.slice(0, limit);
  const lastSortKey = found.length > limit ? String(Items.at(-1)!.deliveries_sk) : null;
  const now = new Date();
  if (!status) return { deliveries: Items.filter((item) => !expired(item, now)).map(toDelivery), lastSortKey };
  const read = await batchGetConsistent(Items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) })));
  return {
    deliveries: read.flatMap((item) =>
      item && item.status === status && !expired(item, now) ? [toDelivery(item)] : [],
    ),
    lastSortKey,
  };
}
