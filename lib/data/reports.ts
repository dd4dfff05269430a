/**
 * What mobile SDKs report: events (idempotent by key), sessions (counted once per session id), and
 * the user profile they keep current (first/last seen, sessions, distinct features used).
 */

import { randomBytes } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { reportConfig } from '../core/config.js';
import type { NormalizedEvent } from '../domain/events.js';
import { batchWriteAll, putRequest } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { profileTouch } from './profiles.js';
import { reportKeys } from './table-keys.js';
import { cancellationReasonsOf } from './unavailable.js';
import { type Condition, updateExpression } from './update-expression.js';

function expiry(now: Date) {
  return Math.floor(now.getTime() / 1000) + reportConfig.eventRetentionDays * 86_400;
}

export interface ReportContext {
  appId: string;
  platform: string | undefined;
  sdkVersion: string | undefined;
}

/** The name of the suggested event whose `feature_name` counts towards usage_stats.features_used. */
export const FEATURE_USED = 'feature_used';

/**
 * The stored event: what the key does not already hold (the app, the user and the event's key are
 * in it), so that an event of 1 KB as sent takes one write unit. The time is stored when the client
 * sent one; without it the event happened when it was received. Times are epoch milliseconds.
 */
function eventItem(context: ReportContext, userId: string, event: NormalizedEvent, now: Date): Record<string, unknown> {
  const timestamp = Date.parse(event.timestamp);
  return {
    ...reportKeys.reportedEvent(context.appId, userId, event.key),
    name: event.name,
    ...(event.session_id !== null ? { session_id: event.session_id } : {}),
    ...(timestamp !== now.getTime() ? { timestamp } : {}),
    ...(Object.keys(event.extra).length > 0 ? { extra: event.extra } : {}),
    platform: context.platform,
    sdk_version: context.sdkVersion,
    received_at: now.getTime(),
    ttl: expiry(now),
  };
}

/**
 * Stores every event of the user (BatchWriteItem of plain puts, unprocessed items retried until
 * stored: a resent batch overwrites the same items, so nothing is stored twice), then records the
 * user's activity. One user per call: a request never writes another user's history or profile.
 * A failure throws before the request is acknowledged; the client's retry is safe.
 */
export async function storeEvents(
  context: ReportContext,
  userId: string,
  events: NormalizedEvent[],
  now: Date,
): Promise<void> {
  await batchWriteAll(events.map((event) => putRequest(eventItem(context, userId, event, now))));
  const features = new Set<string>();
  for (const event of events) {
    const feature = event.name === FEATURE_USED ? event.extra.feature_name : undefined;
    if (typeof feature === 'string' && feature.length > 0 && feature.length <= 200) features.add(feature);
  }
  await recordActivity(context.appId, userId, now, features);
}

/**
 * Distinct feature names kept per user (usage_stats.features_used): a bound that keeps the features
 * item far below DynamoDB's 400 KB (500 names of at most 200 characters), and far above the
 * features of any app. Names beyond it are not added; the events themselves are all stored.
 */
export const MAX_FEATURES_PER_USER = 500;

/**
 * first_seen once and last_seen now on the user's activity item, and newly used features added to
 * the features item (a set: adding one again changes nothing). Each is an item of its own, so the
 * activity costs one write unit whatever the profile holds, and the features item (billed at its
 * own size) is written only for batches with feature_used events.
 */
async function recordActivity(appId: string, userId: string, now: Date, features: Set<string>): Promise<void> {
  await Promise.all([
    ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.userActivity(appId, userId),
        ...updateExpression({ set: { last_seen: now.toISOString() }, setIfAbsent: { first_seen: now.toISOString() } }),
      }),
    ),
    features.size > 0 && addFeatures(appId, userId, features),
  ]);
}

async function addFeatures(appId: string, userId: string, features: Set<string>): Promise<void> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.userFeatures(appId, userId),
        ...updateExpression({
          add: { features },
          condition: {
            expression: 'attribute_not_exists(#features) OR size(#features) < :bound',
            names: { '#features': 'features' },
            values: { ':bound': MAX_FEATURES_PER_USER },
          },
        }),
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The set is full.
  }
}

/** first_seen once, last_seen now: a repeated report still means the user was active. */
async function touchProfile(appId: string, userId: string, now: Date): Promise<void> {
  await ddb.send(new UpdateCommand(profileUpdate(appId, userId, now, {})));
}

export interface ReportedSession {
  sessionId: string;
  startTime: number;
  duration: number;
}

/** Stores a session once: the first report of a session id counts it on the profile, repeats change nothing. */
export async function storeSession(
  context: ReportContext,
  userId: string,
  session: ReportedSession,
  now: Date,
  /** Profile fields the session sets too (the DingYue SDK's device). */
  profileSet: Record<string, unknown> = {},
): Promise<{ counted: boolean }> {
  const counted = await putOnce(
    {
      ...reportKeys.reportedSession(context.appId, userId, session.sessionId),
      type: 'reported_session',
      session_id: session.sessionId,
      start_time: new Date(session.startTime).toISOString(),
      duration: session.duration,
      platform: context.platform,
      received_at: now.toISOString(),
      ttl: expiry(now),
    },
    profileUpdate(context.appId, userId, now, { add: { total_sessions: 1 }, set: profileSet }),
  );
  // A repeated report still means the user was active.
  if (!counted) await touchProfile(context.appId, userId, now);
  return { counted };
}

/**
 * Puts an item that must be new together with its profile update, in one transaction; false (and
 * nothing written) when the item already exists: a repeated report is applied once.
 */
async function putOnce(item: Record<string, unknown>, profile: ReturnType<typeof profileUpdate>): Promise<boolean> {
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Update: profile },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (cancellationReasonsOf(error)[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** The profile update every report makes: seen now, plus the report's own counters and fields. */
export interface ProfileChange {
  add?: Record<string, number | Set<string>>;
  set?: Record<string, unknown>;
  /** Set only if the profile has no value yet (first-touch attribution). */
  setIfAbsent?: Record<string, unknown>;
}

function profileUpdate(appId: string, userId: string, now: Date, change: ProfileChange, condition?: Condition) {
  const touch = profileTouch(appId, userId, now);
  return {
    TableName: tableName,
    Key: keys.userProfile(appId, userId),
    ...updateExpression({
      set: { ...touch.set, ...change.set },
      setIfAbsent: { ...touch.setIfAbsent, ...change.setIfAbsent },
      add: change.add,
      condition,
    }),
  };
}

/** The report types a user has reported, on the profile: the cap counts them. */
const REPORT_TYPES = 'report_types';

/** Adds the type to the user's report types if it is one of them already or they have fewer than the cap. */
function reportTypeChange(type: string, cap: number): { add: ProfileChange['add']; condition: Condition } {
  return {
    add: { [REPORT_TYPES]: new Set([type]) },
    condition: {
      expression: 'attribute_not_exists(#types) OR contains(#types, :type) OR size(#types) < :cap',
      names: { '#types': REPORT_TYPES },
      values: { ':type': type, ':cap': cap },
    },
  };
}

/**
 * Appends one report to the user's history and applies its profile change, in one transaction.
 * `kind` is conversion, report:<type> or global_switch. With `keepLatestOfType`, the body is also
 * the user's latest of that type (expiring with the history), unless the user already reports
 * `typesPerUser` other types: then nothing is written ('too_many_types').
 */
export async function appendReport(
  context: ReportContext,
  userId: string,
  kind: string,
  payload: Record<string, unknown>,
  change: ProfileChange,
  now: Date,
  options: { keepLatestOfType?: { type: string; typesPerUser: number } } = {},
): Promise<'recorded' | 'too_many_types'> {
  const receivedAt = now.toISOString();
  const report = { kind, payload, platform: context.platform, received_at: receivedAt };
  const latest = options.keepLatestOfType;
  const typeChange = latest && reportTypeChange(latest.type, latest.typesPerUser);
  const profile = profileUpdate(
    context.appId,
    userId,
    now,
    typeChange ? { ...change, add: { ...change.add, ...typeChange.add } } : change,
    typeChange?.condition,
  );
  const items = [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...reportKeys.reportHistory(context.appId, userId, kind, receivedAt, randomBytes(6).toString('hex')),
          type: 'report',
          ...report,
          ttl: expiry(now),
        },
      },
    },
    // The latest of a kind is an item of its own, not a profile attribute: an app may report
    // several kinds, and the profile item must stay within 400 KB.
    ...(latest !== undefined
      ? [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...reportKeys.latestReport(context.appId, userId, latest.type),
                type: 'latest_report',
                app_id: context.appId,
                user_id: userId,
                ...report,
                ttl: expiry(now),
              },
            },
          },
        ]
      : []),
    { Update: profile },
  ];
  try {
    await ddb.send(new TransactWriteCommand({ TransactItems: items }));
    return 'recorded';
  } catch (error) {
    if (typeChange && cancellationReasonsOf(error).at(-1) === 'ConditionalCheckFailed') return 'too_many_types';
    throw error;
  }
}

export interface ReportedOrder {
  orderId: string;
  productId: string;
  price: number;
  currency: string;
}

/** Stores an order once per buyer and order id (a repeat changes nothing) and counts it on the buyer's profile. */
export async function storeOrder(
  context: ReportContext,
  userId: string,
  order: ReportedOrder,
  now: Date,
): Promise<{ recorded: boolean }> {
  const recorded = await putOnce(
    {
      ...reportKeys.reportedOrder(context.appId, userId, order.orderId),
      type: 'reported_order',
      order_id: order.orderId,
      product_id: order.productId,
      price: order.price,
      currency: order.currency,
      user_id: userId,
      platform: context.platform,
      received_at: now.toISOString(),
      ttl: expiry(now),
    },
    profileUpdate(context.appId, userId, now, { add: { order_count: 1 } }),
  );
  return { recorded };
}
