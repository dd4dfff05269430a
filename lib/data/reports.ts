/**
 * What mobile SDKs report: events (idempotent by key), sessions (counted once per session id), and
 * the user profile they keep current (first/last seen, sessions, distinct features used).
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import type { NormalizedEvent } from '../domain/events.js';
import { batchWriteAll, putRequest } from './batch.js';
import { ddb, tableName } from './client.js';
import { keys } from './keys.js';

const expiry = (now: Date) => Math.floor(now.getTime() / 1000) + config.eventRetentionDays * 86_400;

export interface ReportContext {
  appId: string;
  platform: string | undefined;
  sdkVersion: string | undefined;
}

/** The name of the suggested event whose `feature_name` counts towards usage_stats.features_used. */
export const FEATURE_USED = 'feature_used';

/**
 * Stores every event (BatchWriteItem, unprocessed items retried until stored: a resent batch
 * overwrites the same items, so nothing is stored twice), then brings each user's profile up to date.
 * A failure throws before the request is acknowledged; the client's retry is safe.
 */
export async function storeEvents(context: ReportContext, events: NormalizedEvent[], now: Date): Promise<void> {
  const receivedAt = now.toISOString();
  await batchWriteAll(
    events.map((event) =>
      putRequest({
        ...keys.reportedEvent(context.appId, event.user, event.key),
        type: 'reported_event',
        ...event,
        platform: context.platform,
        sdk_version: context.sdkVersion,
        received_at: receivedAt,
        ttl: expiry(now),
      }),
    ),
  );
  const byUser = new Map<string, { count: number; features: Set<string> }>();
  for (const event of events) {
    const entry = byUser.get(event.user) ?? { count: 0, features: new Set<string>() };
    entry.count += 1;
    const feature = event.name === FEATURE_USED ? event.extra.feature_name : undefined;
    if (typeof feature === 'string' && feature.length > 0 && feature.length <= 200) entry.features.add(feature);
    byUser.set(event.user, entry);
  }
  await Promise.all([...byUser].map(([user, { features }]) => touchProfile(context.appId, user, now, features)));
}

/** first_seen once, last_seen now, and any newly used features (a set: adding one again changes nothing). */
async function touchProfile(appId: string, userId: string, now: Date, features: Set<string> = new Set()): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.userProfile(appId, userId),
      UpdateExpression: `SET #type = :type, app_id = :app, user_id = :user, first_seen = if_not_exists(first_seen, :now), last_seen = :now${features.size > 0 ? ' ADD features :features' : ''}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'user_profile', ':app': appId, ':user': userId, ':now': now.toISOString(), ...(features.size > 0 ? { ':features': features } : {}) },
    }),
  );
}

export interface ReportedSession {
  sessionId: string;
  startTime: number;
  duration: number;
}

/** Stores a session once: the first report of a session id counts it on the profile, repeats change nothing. */
export async function storeSession(context: ReportContext, userId: string, session: ReportedSession, now: Date): Promise<{ counted: boolean }> {
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.reportedSession(context.appId, userId, session.sessionId),
                type: 'reported_session',
                session_id: session.sessionId,
                start_time: new Date(session.startTime).toISOString(),
                duration: session.duration,
                platform: context.platform,
                received_at: now.toISOString(),
                ttl: expiry(now),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keys.userProfile(context.appId, userId),
              UpdateExpression: 'SET #type = :type, app_id = :app, user_id = :user, first_seen = if_not_exists(first_seen, :now), last_seen = :now ADD total_sessions :one',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':type': 'user_profile', ':app': context.appId, ':user': userId, ':now': now.toISOString(), ':one': 1 },
            },
          },
        ],
      }),
    );
    return { counted: true };
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (reasons?.[0]?.Code === 'ConditionalCheckFailed') {
      await touchProfile(context.appId, userId, now);
      return { counted: false };
    }
    throw error;
  }
}
