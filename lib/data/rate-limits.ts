/**
 * The shared request counter behind rate limiting: kept on the API key's own item and counted
 * with atomic conditional updates, so the limit holds across every Lambda instance (and the local
 * gateway), and one write both counts a request and returns the key it was made with: no
 * separate lookup of the key (a DynamoDB call fewer at every cold start), and a revocation
 * counts from the next request.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_LIMIT_WINDOW_SECONDS, type WindowCount } from '../domain/rate-limit.js';
import type { ApiKeyRecord } from './apps.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import { keys } from './keys.js';

/** What counting writes on an API key's item; nothing else of it changes with a request. */
export const REQUEST_COUNTER_ATTRIBUTES = ['request_count', 'window_ends_at'] as const;

export interface CountedKey {
  key: ApiKeyRecord;
  window: WindowCount;
}

const counted = (attributes: Record<string, unknown>): CountedKey => ({
  key: attributes as unknown as ApiKeyRecord,
  window: { count: attributes.request_count as number, windowEndsAt: attributes.window_ends_at as number },
});

type Attempt = { outcome: 'counted'; counted: CountedKey } | { outcome: 'no_such_key' } | { outcome: 'window_closed' };

/**
 * One conditional write of the counter on the key's item. When the condition fails, the item it
 * failed on tells which way: no item, no such key (and nothing was written); else the window.
 */
async function countIf(
  keyHash: string,
  nowMs: number,
  write: { UpdateExpression: string; ConditionExpression: string },
): Promise<Attempt> {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.apiKey(keyHash),
        ...write,
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':ends': nowMs + RATE_LIMIT_WINDOW_SECONDS * 1000 },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'counted', counted: counted(Attributes!) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return (error as { Item?: unknown }).Item ? { outcome: 'window_closed' } : { outcome: 'no_such_key' };
  }
}

/** Counts one request in the key's open window; a key never counted before opens its first window in the same write. */
const countInOpenWindow = (keyHash: string, nowMs: number) =>
  countIf(keyHash, nowMs, {
    UpdateExpression: 'SET window_ends_at = if_not_exists(window_ends_at, :ends) ADD request_count :one',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(window_ends_at) OR window_ends_at > :now)',
  });

/** Opens a new window, once the last has closed, with this request as its first, unless another instance just did. */
const openWindow = (keyHash: string, nowMs: number) =>
  countIf(keyHash, nowMs, {
    UpdateExpression: 'SET request_count = :one, window_ends_at = :ends',
    ConditionExpression: 'attribute_exists(pk) AND window_ends_at <= :now',
  });

/**
 * Counts one request made with the key of this hash and returns the key as stored, with where
 * its window stands; undefined when there is no such key (nothing is written then). One write
 * while a window is open (the common case) and for a key's first request; when a closed window
 * is replaced, two. Two instances racing to open a window both end up counted in the one that won.
 */
export async function countKeyRequest(keyHash: string, nowMs: number = Date.now()): Promise<CountedKey | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let result = await countInOpenWindow(keyHash, nowMs);
    if (result.outcome === 'window_closed') result = await openWindow(keyHash, nowMs);
    if (result.outcome === 'counted') return result.counted;
    if (result.outcome === 'no_such_key') return undefined;
  }
  // Only reachable if windows keep opening and closing under us within milliseconds.
  throw new Error('rate-limit window of an API key kept changing');
}
