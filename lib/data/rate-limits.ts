/**
 * The shared request counters behind rate limiting, each updated by atomic conditional writes so
 * a limit holds across every Lambda instance (and the local gateway):
 * - subscription API: on the secret key's own item, where one write both counts a request and
 *   returns the key it was made with (no separate lookup; a revocation counts from the next request);
 * - mobile API: on a window item per (app, user) (`keys.rateLimitWindow`, expired by TTL), since
 *   the sdk key is shared by every install of an app; the key itself is only read (`readApiKey`).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  firstWindowWrite,
  RATE_LIMIT_WINDOW_SECONDS,
  type WindowCount,
  type WindowWrite,
} from '../domain/rate-limit.js';
import type { ApiKeyRecord } from './api-keys.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import type { TableKey } from './table-keys.js';

/** What counting writes on an API key's item; nothing else of it changes with a request. */
export const REQUEST_COUNTER_ATTRIBUTES = ['request_count', 'window_ends_at'] as const;

export interface CountedKey {
  key: ApiKeyRecord;
  window: WindowCount;
}

const windowOf = (attributes: Record<string, unknown>): WindowCount => ({
  count: attributes.request_count as number,
  windowEndsAt: attributes.window_ends_at as number,
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
    return {
      outcome: 'counted',
      counted: { key: Attributes as unknown as ApiKeyRecord, window: windowOf(Attributes!) },
    };
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

/**
 * Whether a key of this hash is stored (any status): an eventually consistent read of its key
 * attributes alone, half a read unit, so a made-up secret key never reaches the counting write.
 */
export async function apiKeyExists(keyHash: string): Promise<boolean> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ProjectionExpression: 'pk' }),
  );
  return Item !== undefined;
}

/**
 * The key of this hash as stored, whatever its status; undefined when there is none. Strongly
 * consistent, so a key issued a moment ago is found (and not remembered as unknown).
 */
export async function readApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  return Item as ApiKeyRecord | undefined;
}

const USER_WINDOW_WRITES: Record<WindowWrite, { UpdateExpression: string; ConditionExpression: string }> = {
  count: { UpdateExpression: 'ADD request_count :one', ConditionExpression: 'window_ends_at > :now' },
  // The item expires (TTL) when its window closes: nothing is kept for users who stopped calling.
  open: {
    UpdateExpression: 'SET request_count = :one, window_ends_at = :ends, #ttl = :expires',
    ConditionExpression: 'attribute_not_exists(window_ends_at) OR window_ends_at <= :now',
  },
};

/** One conditional write on a user's window item: where the window stands, or undefined if its condition failed. */
async function writeUserWindow(key: TableKey, write: WindowWrite, nowMs: number): Promise<WindowCount | undefined> {
  const endsAt = nowMs + RATE_LIMIT_WINDOW_SECONDS * 1000;
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ...USER_WINDOW_WRITES[write],
        ...(write === 'open'
          ? {
              ExpressionAttributeNames: { '#ttl': 'ttl' },
              ExpressionAttributeValues: {
                ':one': 1,
                ':now': nowMs,
                ':ends': endsAt,
                ':expires': Math.ceil(endsAt / 1000),
              },
            }
          : { ExpressionAttributeValues: { ':one': 1, ':now': nowMs } }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return windowOf(Attributes!);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return undefined;
  }
}

/**
 * Ends of the windows this instance last counted in, by window item: they decide which write to
 * try first (lib/domain/rate-limit.ts firstWindowWrite). Bounded; forgetting only costs a write.
 */
const knownWindowEnds = new Map<string, number>();
const MAX_KNOWN_WINDOWS = 10_000;

/**
 * Counts one request of this user of this app and returns where the user's window stands. One
 * conditional write when this instance saw the user's window last, or the window has closed (a
 * user's first request in a while); two when the user's requests in an open window move to an
 * instance that has not seen them. Instances racing to open a window all end up counted in the
 * one that won.
 */
export async function countUserRequest(
  appId: string,
  userId: string,
  nowMs: number = Date.now(),
): Promise<WindowCount> {
  const key = keys.rateLimitWindow(appId, userId);
  let write = firstWindowWrite(knownWindowEnds.get(key.pk), nowMs);
  for (let attempt = 0; attempt < 4; attempt++) {
    const window = await writeUserWindow(key, write, nowMs);
    if (window) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the bound only decides which write is tried first, never a count
      if (knownWindowEnds.size >= MAX_KNOWN_WINDOWS) knownWindowEnds.clear();
      knownWindowEnds.set(key.pk, window.windowEndsAt);
      return window;
    }
    write = write === 'open' ? 'count' : 'open';
  }
  // Only reachable if windows keep opening and closing under us within milliseconds.
  throw new Error('rate-limit window of a user kept changing');
}
