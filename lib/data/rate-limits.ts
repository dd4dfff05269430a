/**
 * The shared request counter behind rate limiting: one item per API key, counted with atomic
 * conditional updates, so the limit holds across every Lambda instance (and the local gateway).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_LIMIT_WINDOW_SECONDS, type WindowCount } from '../domain/rate-limit.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import { keys } from './keys.js';


/** A closed window's item lingers this long before DynamoDB's TTL removes it. */
const TTL_GRACE_SECONDS = 3600;

const windowFrom = (nowMs: number) => {
  const windowEndsAt = nowMs + RATE_LIMIT_WINDOW_SECONDS * 1000;
  return { windowEndsAt, ttl: Math.ceil(windowEndsAt / 1000) + TTL_GRACE_SECONDS };
};

/**
 * Counts one request in the open window, or fails when the key's window has closed at `nowMs`.
 * A key never counted before has no item: its first window opens here, in the same write.
 */
async function countInOpenWindow(keyId: string, nowMs: number): Promise<WindowCount | undefined> {
  const { windowEndsAt, ttl } = windowFrom(nowMs);
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateLimitWindow(keyId),
        UpdateExpression: 'SET window_ends_at = if_not_exists(window_ends_at, :ends), #ttl = if_not_exists(#ttl, :ttl) ADD request_count :one',
        ConditionExpression: 'attribute_not_exists(window_ends_at) OR window_ends_at > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':ends': windowEndsAt, ':ttl': ttl },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { count: Attributes!.request_count as number, windowEndsAt: Attributes!.window_ends_at as number };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Opens a new window, once the last has closed, with this request as its first, unless another instance just did. */
async function openWindow(keyId: string, nowMs: number): Promise<WindowCount | undefined> {
  const { windowEndsAt, ttl } = windowFrom(nowMs);
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateLimitWindow(keyId),
        UpdateExpression: 'SET request_count = :one, window_ends_at = :ends, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(window_ends_at) OR window_ends_at <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':ends': windowEndsAt, ':now': nowMs, ':ttl': ttl },
      }),
    );
    return { count: 1, windowEndsAt };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Counts one request of this key and says where the key stands. One write while a window is
 * open (the common case) and for a key's first request ever; when a closed window is replaced, two. Two instances racing to open a window both
 * end up counted in the one that won.
 */
export async function countRequest(keyId: string, nowMs: number = Date.now()): Promise<WindowCount> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const counted = (await countInOpenWindow(keyId, nowMs)) ?? (await openWindow(keyId, nowMs));
    if (counted) return counted;
  }
  // Only reachable if windows keep opening and closing under us within milliseconds.
  throw new Error(`rate-limit window of ${keyId} kept changing`);
}
