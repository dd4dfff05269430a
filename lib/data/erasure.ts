/**
 * Erasure of a user's data (DELETE /v1/customers/{user_id}): the user's own partitions deleted
 * page by page with BatchWriteItem, their subscriptions detached (kept, under an anonymous id), and
 * a marker item while it is under way. The marker is written before anything is deleted and
 * removed only when nothing is left, so an erasure is never left half-done silently: whoever holds
 * its lease (a request, or the job that finds it in the due index, kind ERA) carries it on.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ErasureCounts, NO_COUNTS } from '../domain/erasure.js';
import { batchWriteAll, getConsistent } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import { dueAttributes, erasureKey, keys, type TableKey } from './keys.js';
import { TABLE } from './table.js';
import { updateExpression } from './update-expression.js';

/** Longest a holder keeps an erasure to itself: the job's timeout (a request releases it when it answers). */
const LEASE_MS = 5 * 60_000;

export interface ErasureMarker {
  app_id: string;
  user_id: string;
  /** The id the user's subscriptions are kept under. */
  anonymous_id: string;
  removed: ErasureCounts;
  started_at: string;
}

function toMarker(item: Record<string, unknown>): ErasureMarker {
  return {
    app_id: item.app_id as string,
    user_id: item.user_id as string,
    anonymous_id: item.anonymous_id as string,
    removed: { ...NO_COUNTS, ...(item.removed as Partial<ErasureCounts>) },
    started_at: item.started_at as string,
  };
}

/**
 * In the due index at `at`: when its holder released it (now), or when the lease runs out, so the job
 * takes over an erasure whose holder died, and a run that found it leased has not passed it by.
 */
function dueAt(key: TableKey, at: Date, now: Date) {
  return dueAttributes('ERA', at.toISOString(), now.toISOString(), key.pk);
}
function leaseUntil(now: Date) {
  return new Date(now.getTime() + LEASE_MS);
}

export async function getErasure(appId: string, userId: string): Promise<ErasureMarker | undefined> {
  const item = await getConsistent(erasureKey(appId, userId));
  return item ? toMarker(item) : undefined;
}

/**
 * The erasure at `key`, leased to the caller until the lease runs out; undefined when another
 * holder has it (or there is none).
 */
export async function claimErasure(key: TableKey, now: Date): Promise<ErasureMarker | undefined> {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ...updateExpression({
          set: { lease_until: leaseUntil(now).toISOString(), ...dueAt(key, leaseUntil(now), now) },
          condition: {
            expression: 'attribute_exists(pk) AND lease_until < :now',
            values: { ':now': now.toISOString() },
          },
        }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? toMarker(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Starts an erasure, leased to the caller; undefined when one is under way already (claim it instead). */
export async function startErasure(marker: ErasureMarker, now: Date): Promise<ErasureMarker | undefined> {
  const key = erasureKey(marker.app_id, marker.user_id);
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ...updateExpression({
          set: {
            type: 'erasure',
            ...marker,
            lease_until: leaseUntil(now).toISOString(),
            ...dueAt(key, leaseUntil(now), now),
          },
          condition: { expression: 'attribute_not_exists(pk)' },
        }),
      }),
    );
    return marker;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Records what was removed so far and releases the lease: the job (or the next request) goes on. */
export async function saveErasureProgress(marker: ErasureMarker, removed: ErasureCounts, now: Date): Promise<void> {
  const key = erasureKey(marker.app_id, marker.user_id);
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      ...updateExpression({ set: { removed, lease_until: now.toISOString(), ...dueAt(key, now, now) } }),
    }),
  );
}

export async function finishErasure(marker: ErasureMarker): Promise<void> {
  await ddb.send(new DeleteCommand({ TableName: tableName, Key: erasureKey(marker.app_id, marker.user_id) }));
}

/**
 * Deletes up to `limit` items of a partition (one Query of their keys, then BatchWriteItem 25 at a
 * time, unprocessed items retried): the sort keys deleted, and whether the partition may hold more.
 */
export async function deleteFromPartition(pk: string, limit: number): Promise<{ sortKeys: string[]; more: boolean }> {
  const { Items = [], LastEvaluatedKey } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  await batchWriteAll(Items.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })));
  return { sortKeys: Items.map((item) => item.sk as string), more: LastEvaluatedKey !== undefined };
}

/** Keys of up to `limit` of the user's subscriptions (the keys-only user index). */
export async function subscriptionKeysOfUser(appId: string, userId: string, limit: number): Promise<TableKey[]> {
  const index = TABLE.indexes.subscriptionsOfUser!;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'subscriptionsOfUser',
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': keys.userSubscriptions(appId, userId) },
      Limit: limit,
    }),
  );
  return Items.map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}

/**
 * Moves a subscription of the user to the anonymous id (its record, its place in the user index,
 * and its purchase's owner), so the operator keeps the revenue and the user is no longer in it.
 * False when it was no longer the user's (detached already, or transferred).
 */
export async function detachSubscription(
  key: TableKey,
  appId: string,
  userId: string,
  anonymousId: string,
): Promise<boolean> {
  let record: Record<string, unknown> | undefined;
  try {
    ({ Attributes: record } = await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ...updateExpression({
          set: {
            user_id: anonymousId,
            [TABLE.indexes.subscriptionsOfUser!.partitionKey]: keys.userSubscriptions(appId, anonymousId),
          },
          condition: { expression: 'user_id = :user', values: { ':user': userId } },
        }),
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  const original = record?.original_transaction_id;
  if (typeof original === 'string') {
    await ddb
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.purchase(appId, original),
          ...updateExpression({
            set: { owner_user_id: anonymousId },
            condition: { expression: 'owner_user_id = :user', values: { ':user': userId } },
          }),
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
  return true;
}
