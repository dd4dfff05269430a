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

/** Counts one request in the open window, or fails when no window is open at `nowMs`. */
async function countInOpenWindow(keyId: string, nowMs: number): Promise<WindowCount | undefined> {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateLimitWindow(keyId),
        UpdateExpression: 'ADD request_count :one',
        ConditionExpression: 'window_ends_at > :now',
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { count: Attributes!.request_count as number, windowEndsAt: Attributes!.window_ends_at as number };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Opens a new window with this request as its first, unless another instance just did. */
async function openWindow(keyId: string, nowMs: number): Promise<WindowCount | undefined> {
  const windowEndsAt = nowMs + RATE_LIMIT_WINDOW_SECONDS * 1000;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateLimitWindow(keyId),
        UpdateExpression: 'SET request_count = :one, window_ends_at = :ends, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(window_ends_at) OR window_ends_at <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':ends': windowEndsAt, ':now': nowMs, ':ttl': Math.ceil(windowEndsAt / 1000) + TTL_GRACE_SECONDS },
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
 * open (the common case); at a window's start, two. Two instances racing to open a window both
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
