/**
 * The state behind the outbound store call budget, shared by every Lambda instance: one bucket
 * item per app and store (keys.storeCallBudget), and one item per purchase token or receipt the
 * store said it does not know (keys.unknownToStore). Both are read in the BatchGetItem a
 * verification starts with (lib/services/verification.ts), so reading them costs no round trip;
 * both expire by TTL, and each carries its own time, since TTL deletes late.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreCallBudgetLimits, StoreCallBudgetState } from '../domain/store-call-budget.js';
import { getConsistent } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import type { TableKey } from './table-keys.js';

/** An idle bucket is full again long before this; TTL then removes it (a missing bucket is full). */
const BUDGET_ITEM_LIFETIME_SECONDS = 86_400;

export interface StoredBudget {
  state: StoreCallBudgetState | undefined;
  /** The version the next take is conditioned on; undefined: no take was written yet. */
  version: number | undefined;
}

/** The bucket in an item read at keys.storeCallBudget. A bucket with a back-off but no take yet is full. */
export function storedBudgetOf(item: Record<string, unknown> | undefined, limits: StoreCallBudgetLimits): StoredBudget {
  const number = (field: string) => (typeof item?.[field] === 'number' ? (item[field] as number) : undefined);
  return {
    state: item && {
      tokens: number('tokens') ?? limits.burst,
      refilledAt: number('refilled_at') ?? 0,
      backOffUntil: number('back_off_until') ?? 0,
    },
    version: number('version'),
  };
}

const BUDGET_TYPE = 'store_call_budget';

const ttlOf = (nowMs: number) => Math.floor(nowMs / 1000) + BUDGET_ITEM_LIFETIME_SECONDS;

/** One update of an item of the budget (its type and TTL set with it); false when `condition` does not hold. */
async function updateItem(
  key: TableKey,
  type: string,
  set: string,
  values: Record<string, unknown>,
  condition?: string,
): Promise<boolean> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET #type = :type, #ttl = :ttl, ${set}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':type': type, ...values },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Writes the bucket after a take, unless another instance wrote it since `expected` was read
 * (false then: read again with readBudget and decide again). The back-off stays as stored.
 */
export const writeTake = (
  appId: string,
  store: string,
  expected: number | undefined,
  next: StoreCallBudgetState,
  nowMs: number,
): Promise<boolean> =>
  // No version read: none may have been written since (nor may one that TTL deleted come back).
  updateItem(
    keys.storeCallBudget(appId, store),
    BUDGET_TYPE,
    'tokens = :tokens, refilled_at = :at, version = :next',
    {
      ':tokens': next.tokens,
      ':at': next.refilledAt,
      ':expected': expected ?? 0,
      ':next': (expected ?? 0) + 1,
      ':ttl': ttlOf(nowMs),
    },
    'attribute_not_exists(version) OR version = :expected',
  );

/** The bucket item now, strongly consistent: after a take lost a race. */
export const readBudget = (appId: string, store: string) => getConsistent(keys.storeCallBudget(appId, store));

/** No budgeted call to the store before `until` (ms): one write; a later window already stored stays. */
export async function writeBackOff(appId: string, store: string, until: number, nowMs: number): Promise<void> {
  await updateItem(
    keys.storeCallBudget(appId, store),
    BUDGET_TYPE,
    'back_off_until = :until',
    { ':until': until, ':ttl': ttlOf(nowMs) }, // a day: longer than any back-off
    'attribute_not_exists(back_off_until) OR back_off_until < :until',
  );
}

/** Until when (ms) an item read at keys.unknownToStore says the store does not know its subject; 0: it says nothing. */
export const unknownUntilOf = (item: Record<string, unknown> | undefined): number =>
  typeof item?.unknown_until === 'number' ? item.unknown_until : 0;

/** Remembers that the store does not know this token or receipt (by hash) until `until` (ms). */
export async function writeUnknownToStore(appId: string, store: string, subjectHash: string, until: number) {
  await updateItem(keys.unknownToStore(appId, store, subjectHash), 'unknown_to_store', 'unknown_until = :until', {
    ':until': until,
    ':ttl': Math.ceil(until / 1000),
  });
}
