/**
 * The state behind the outbound store call budget, shared by every Lambda instance: one bucket
 * item per app and store (keys.storeCallBudget), and one item per purchase token or receipt the
 * store said it does not know (keys.unknownToStore). Both are read in the BatchGetItem a
 * verification starts with (lib/services/verification.ts), so reading them costs no round trip;
 * both expire by TTL, and each carries its own time, since TTL deletes late.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreCallBudgetLimits, StoreCallBudgetState } from '../domain/store-call-budget.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import { keys } from './keys.js';

/** An idle bucket is full again long before this; TTL then removes it (a missing bucket is full). */
const BUDGET_ITEM_LIFETIME_SECONDS = 86_400;

export interface StoredBudget {
  state: StoreCallBudgetState | undefined;
  /** The version the next take is conditioned on; undefined: no take was written yet. */
  version: number | undefined;
}

/** The bucket in an item read at keys.storeCallBudget. A bucket with a back-off but no take yet is full. */
export function storedBudgetOf(item: Record<string, unknown> | undefined, limits: StoreCallBudgetLimits): StoredBudget {
  if (!item) return { state: undefined, version: undefined };
  const number = (field: string) => (typeof item[field] === 'number' ? (item[field] as number) : undefined);
  const backOffUntil = number('back_off_until') ?? 0;
  const tokens = number('tokens');
  const refilledAt = number('refilled_at');
  return {
    state:
      tokens === undefined || refilledAt === undefined
        ? { tokens: limits.burst, refilledAt: 0, backOffUntil }
        : { tokens, refilledAt, backOffUntil },
    version: number('version'),
  };
}

const ttlOf = (nowMs: number) => Math.floor(nowMs / 1000) + BUDGET_ITEM_LIFETIME_SECONDS;

/**
 * Writes the bucket after a take, unless another instance wrote it since `expected` was read
 * (false then: read again with readBudget and decide again). The back-off stays as stored.
 */
export async function writeTake(
  appId: string,
  store: string,
  expected: number | undefined,
  next: StoreCallBudgetState,
  nowMs: number,
): Promise<boolean> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.storeCallBudget(appId, store),
        UpdateExpression: 'SET #type = :type, tokens = :tokens, refilled_at = :at, version = :next, #ttl = :ttl',
        ConditionExpression: expected === undefined ? 'attribute_not_exists(version)' : 'version = :expected',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':type': 'store_call_budget',
          ':tokens': next.tokens,
          ':at': next.refilledAt,
          ':next': (expected ?? 0) + 1,
          ':ttl': ttlOf(nowMs),
          ...(expected === undefined ? {} : { ':expected': expected }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The bucket item now, strongly consistent: after a take lost a race. */
export async function readBudget(appId: string, store: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.storeCallBudget(appId, store), ConsistentRead: true }),
  );
  return Item;
}

/** No budgeted call to the store before `until` (ms): one write, a later window already stored stays. */
export async function writeBackOff(appId: string, store: string, until: number, nowMs: number): Promise<void> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.storeCallBudget(appId, store),
        UpdateExpression: 'SET #type = :type, back_off_until = :until, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(back_off_until) OR back_off_until < :until',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':type': 'store_call_budget',
          ':until': until,
          ':ttl': Math.max(ttlOf(nowMs), Math.ceil(until / 1000)),
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Until when (ms) an item read at keys.unknownToStore says the store does not know its subject; 0: it says nothing. */
export const unknownUntilOf = (item: Record<string, unknown> | undefined): number =>
  typeof item?.until === 'number' ? item.until : 0;

/** Remembers that the store does not know this token or receipt (by hash) until `until` (ms). */
export async function writeUnknownToStore(appId: string, store: string, subjectHash: string, until: number) {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.unknownToStore(appId, store, subjectHash),
        type: 'unknown_to_store',
        until,
        ttl: Math.ceil(until / 1000),
      },
    }),
  );
}
