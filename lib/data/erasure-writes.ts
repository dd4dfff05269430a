/**
 * Erasure of a user's data (DELETE /v1/customers/{user_id}): the user's own partitions deleted
 * page by page with BatchWriteItem, their subscriptions detached (kept, under an anonymous id), and
 * a marker item while it is under way. The marker is written before anything is deleted and
 * removed only when nothing is left, so an erasure is never left half-done silently: whoever holds
 * its lease (a request, or the job that finds it in the due index, kind ERA) carries it on.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appAccountTokenFor } from '../domain/app-account-token.js';
import { anonymisedFields, type ErasureCounts, NO_COUNTS } from '../domain/erasure-scope.js';
import type { StorePurchaseState } from '../domain/store-purchase.js';
import { batchGetConsistent, batchWriteAll, getConsistent } from './batch.js';
import { ddb, isConditionFailure, type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { type TransactionItemPart, type TransferRecord, transferredSubscriptionIds } from './purchase-ownership.js';
import type { SubscriptionRecord } from './subscription-items.js';
import { reassignSubscription } from './subscription-reassignment.js';
import { writeTogether } from './subscription-writes.js';
import { type IndexName, TABLE } from './table.js';
import { boundedDueId, dueAttributes, erasureKey, type TableKey, userEventsPartition } from './table-keys.js';
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
  return dueAttributes('ERA', at.toISOString(), now.toISOString(), boundedDueId(key.pk));
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

/**
 * Deletes up to `limit` items of a partition (one Query of their keys, then BatchWriteItem 25 at a
 * time, unprocessed items retried), and the `alsoDelete` items known by key in the same writes: the
 * sort keys of the partition's items deleted, and whether the partition may hold more.
 */
export async function deleteFromPartition(
  pk: string,
  limit: number,
  alsoDelete: readonly TableKey[] = [],
): Promise<{ sortKeys: string[]; more: boolean }> {
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
  const deleted = [...Items.map((item) => ({ pk: item.pk as string, sk: item.sk as string })), ...alsoDelete];
  await batchWriteAll(deleted.map((Key) => ({ DeleteRequest: { Key } })));
  return { sortKeys: Items.map((item) => item.sk as string), more: LastEvaluatedKey !== undefined };
}

/**
 * Deletes up to `limit` of the events naming the user (userEventKey): each one's outbox item and
 * delivery record, then the pointer. A deliverer's later write of a deleted delivery is refused by
 * its condition (the record must exist), so a retry in flight cannot bring it back. The event ids
 * deleted, and whether more may be left.
 */
export async function deleteEventsOfUser(
  appId: string,
  userId: string,
  limit: number,
): Promise<{ eventIds: string[]; more: boolean }> {
  const { Items = [], LastEvaluatedKey } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': userEventsPartition(appId, userId) },
      ProjectionExpression: 'pk, sk, event_id',
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  const eventIds = Items.map((item) => item.event_id as string);
  await batchWriteAll(
    Items.flatMap((item) =>
      [keys.outbox(item.event_id as string), keys.delivery(item.event_id as string), { pk: item.pk, sk: item.sk }].map(
        (Key) => ({ DeleteRequest: { Key } }),
      ),
    ),
  );
  return { eventIds, more: LastEvaluatedKey !== undefined };
}

/** Keys of up to `limit` of the user's subscriptions (the keys-only user index). */
export async function subscriptionKeysOfUser(appId: string, userId: string, limit: number): Promise<TableKey[]> {
  const index = TABLE.indexes.subscriptionsOfUser;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'subscriptionsOfUser' satisfies IndexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': keys.userSubscriptions(appId, userId) },
      Limit: limit,
    }),
  );
  return Items.map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}

export type DetachOutcome = 'detached' | 'gone' | 'changing';

/** What a detach did, and how many items it wrote (the erasure's budget counts them). */
export interface Detached {
  outcome: DetachOutcome;
  written: number;
}

/** A transaction holds at most 100 items: the state, its purchase, its receipt, and this many transfers (both copies). */
const MAX_TRANSFERS_DETACHED = 45;

/** The app account token of the user in the store state kept on a transaction's item, cleared on the condition that it is unchanged. */
function tokenParts(item: Record<string, unknown>, record: SubscriptionRecord, userId: string): TransactionItemPart[] {
  const state = item.store_state as StorePurchaseState | undefined;
  if (!state?.app_account_token || state.app_account_token.toLowerCase() !== appAccountTokenFor(record.app_id, userId))
    return [];
  return [
    {
      key: { pk: item.pk as string, sk: item.sk as string },
      set: { store_state: { ...state, app_account_token: null } },
      condition: { expression: 'store_as_of = :erasedAsOf', values: { ':erasedAsOf': item.store_as_of } },
    },
  ];
}

/** Both copies of each transfer of the subscription's purchase that names the user, anonymised. */
function transferWrites(
  items: Record<string, unknown>[],
  record: SubscriptionRecord,
  userId: string,
  anonymousId: string,
): TransactItem[] {
  const writes = items.flatMap((item) => {
    if (!String(item.sk).startsWith('TRANSFER#')) return [];
    const set = anonymisedFields(item, userId, anonymousId);
    if (Object.keys(set).length === 0) return [];
    const transfer = item as unknown as TransferRecord;
    return transferredSubscriptionIds(transfer.from_subscription_id, transfer.to_subscription_id).map(
      (subscriptionId): TransactItem => ({
        Update: {
          TableName: tableName,
          Key: keys.subscriptionTransfer(record.app_id, subscriptionId, transfer.transferred_at, transfer.event_id),
          ...updateExpression({ set, condition: { expression: 'attribute_exists(pk)' } }),
        },
      }),
    );
  });
  if (writes.length > 2 * MAX_TRANSFERS_DETACHED)
    throw new Error(`subscription ${record.id} has more transfers than one transaction can anonymise`);
  return writes;
}

/** The subscription's receipt (it carries the app account token), wherever it is kept. */
function receiptDeletes(items: Record<string, unknown>[], record: SubscriptionRecord): TransactItem[] {
  const payment = items.find((item) => item.sk === 'PAYMENT');
  return [
    ...(items.some((item) => item.sk === 'RECEIPT')
      ? [{ Delete: { TableName: tableName, Key: keys.subscriptionReceipt(record.app_id, record.id) } }]
      : []),
    // Where receipts were kept before they had an item of their own.
    ...(typeof payment?.receipt_data === 'string'
      ? [
          {
            Update: {
              TableName: tableName,
              Key: keys.subscriptionPayment(record.app_id, record.id),
              ...updateExpression({ remove: ['receipt_data'] }),
            },
          },
        ]
      : []),
  ];
}

/**
 * Moves a subscription of the user to the anonymous id, so the operator keeps the revenue and the
 * user is no longer in it: one reassignment (lib/data/subscription-reassignment.ts), which also
 * clears the app account token of the user on its original transaction, anonymises the transfers
 * naming the user (both copies) and deletes the receipt. `gone` when it was no longer the user's
 * (detached already, or transferred); `changing` when other writes kept refusing it (the erasure
 * goes on later).
 */
export async function detachSubscription(
  key: TableKey,
  appId: string,
  userId: string,
  anonymousId: string,
  now = new Date(),
): Promise<Detached> {
  const { outcome, written } = await reassignSubscription(
    key,
    {
      appId,
      fromUserId: userId,
      toUserId: anonymousId,
      cause: { by: 'api', action: 'erase' },
      transactionParts: (item, record) => tokenParts(item, record, userId),
      alsoWrite: ({ items, record }) => [
        ...transferWrites(items, record, userId, anonymousId),
        ...receiptDeletes(items, record),
      ],
    },
    now,
  );
  return { outcome: outcome === 'reassigned' ? 'detached' : outcome, written };
}

/** Which of these subscriptions still name the user, read strongly consistently. */
async function stillTheUsers(subscriptions: readonly TableKey[], userId: string): Promise<TableKey[]> {
  const items = await batchGetConsistent([...subscriptions]);
  return subscriptions.filter((_, i) => items[i]?.user_id === userId);
}

/** A transaction holds at most 100 items: the marker's delete and this many checks. */
const MAX_CHECKED_IN_FINISH = 99;

/**
 * Ends the erasure, its marker deleted, once none of the subscriptions it detached names the user
 * again (a concurrent write after the detach could have): in one transaction, each checked
 * strongly consistently, so nothing can put the user back between the check and the delete.
 * False, with the marker kept, when one does: the erasure goes on later. More subscriptions than
 * one transaction holds are read first, then the marker deleted.
 */
export async function finishErasureOnceDetached(
  marker: ErasureMarker,
  detached: readonly TableKey[],
): Promise<boolean> {
  const key = erasureKey(marker.app_id, marker.user_id);
  if (detached.length > 0 && detached.length <= MAX_CHECKED_IN_FINISH) {
    const checks = detached.map(
      (subscription): TransactItem => ({
        ConditionCheck: {
          TableName: tableName,
          Key: subscription,
          ConditionExpression: 'attribute_not_exists(pk) OR user_id <> :user',
          ExpressionAttributeValues: { ':user': marker.user_id },
        },
      }),
    );
    return (await writeTogether([...checks, { Delete: { TableName: tableName, Key: key } }])) === undefined;
  }
  if ((await stillTheUsers(detached, marker.user_id)).length > 0) return false;
  await ddb.send(new DeleteCommand({ TableName: tableName, Key: key }));
  return true;
}
