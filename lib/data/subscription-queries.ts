/**
 * Reads of subscriptions: one by id (with its payment and transfers), and the app's listing,
 * newest first, through the keys-only listing indexes and a batch read of the page, with its total
 * from the list counters.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SubscriptionStatus } from '../domain/subscription-state.js';
import type { Platform } from '../schemas/common.js';
import { batchGetAll, getConsistent } from './batch.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';
import type { TransferRecord } from './purchase-ownership.js';
import { queryAll, scanPages } from './query.js';
import {
  BOUND_TRANSACTIONS_ATTRIBUTE,
  type PaymentRecord,
  receiptOf,
  type SubscriptionRecord,
  toRecord,
} from './subscription-items.js';
import { type IndexName, TABLE, withoutKeys } from './table.js';
import { listCountCell, listPartitions, SUBSCRIPTION_SK, type TableKey } from './table-keys.js';

/** A subscription's items: its state, its payment, and the transfers of its purchase to or from it (oldest first). */
export interface StoredSubscription {
  record: SubscriptionRecord;
  payment: PaymentRecord;
  transfers: TransferRecord[];
}

/** All items of a subscription in one strongly consistent read; undefined when it does not exist. */
export async function getSubscription(appId: string, subscriptionId: string): Promise<StoredSubscription | undefined> {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.subscription(appId, subscriptionId).pk },
      ConsistentRead: true,
    }),
  );
  const state = Items.find((item) => item.sk === 'SUB');
  const payment = Items.find((item) => item.sk === 'PAYMENT');
  const receipt = Items.find((item) => item.sk === 'RECEIPT');
  if (!state) return undefined;
  return {
    record: toRecord(state),
    payment: {
      ...{ transaction_id: null, receipt_data: null, payment_method: 'unknown', last_payment: null },
      ...(payment && paymentFieldsOf(payment)),
      ...(receipt && { receipt_data: receiptOf(receipt) }),
    },
    // The query answers in sort-key order: TRANSFER#<time> sorts the transfers by time.
    transfers: Items.filter((item) => String(item.sk).startsWith('TRANSFER#')).map((item) =>
      withoutKeys<TransferRecord>(item),
    ),
  };
}

/** The payment fields of a PAYMENT item, without the transaction ids bound to it (kept for the erasure). */
const paymentFieldsOf = (item: Record<string, unknown>): PaymentRecord => {
  const { [BOUND_TRANSACTIONS_ATTRIBUTE]: _bound, ...fields } = withoutKeys<Record<string, unknown>>(item);
  return fields as unknown as PaymentRecord;
};

export async function getSubscriptionRecord(
  appId: string,
  subscriptionId: string,
): Promise<SubscriptionRecord | undefined> {
  const item = await getConsistent(keys.subscription(appId, subscriptionId));
  return item && toRecord(item);
}

/** Whether the subscription exists: a strongly consistent read of its state item's key only. */
export async function subscriptionExists(appId: string, subscriptionId: string): Promise<boolean> {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.subscription(appId, subscriptionId),
      ProjectionExpression: 'pk',
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}

export interface ListFilters {
  user_id?: string | undefined;
  status?: SubscriptionStatus | undefined;
  product_id?: string | undefined;
  platform?: Platform | undefined;
}

export interface ListPosition {
  /** Sort key and id of the last item already returned (from a cursor). */
  after?: { list_sk: string; id: string } | undefined;
  /** Items to skip before the page (page-number paging). */
  skip: number;
  limit: number;
}

export interface ListResult {
  items: SubscriptionRecord[];
  /** All subscriptions matching the filters (not just this page), as counted (see countMatching). */
  total: number;
  /** A subscription follows this page in the listing (its key, at least: it may match no longer). */
  more: boolean;
}

/** A subscription's place in a listing or user index (keys-only entries). */
interface ListedKey {
  key: TableKey;
  list_sk: string;
}

/**
 * The newest `wanted` keys of an index partition, older than `after` when given. The cursor's sort
 * key (`created_at#id`, unique) bounds the key condition, so it positions every partition of a merge.
 */
async function queryKeys(
  indexName: IndexName,
  pkValue: string,
  wanted: number,
  after: ListPosition['after'],
): Promise<ListedKey[]> {
  const index = TABLE.indexes[indexName]!;
  const items = await queryAll(
    {
      IndexName: indexName,
      KeyConditionExpression: after ? '#pk = :pk AND #sk < :after' : '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey, ...(after ? { '#sk': index.sortKey } : {}) },
      ExpressionAttributeValues: { ':pk': pkValue, ...(after ? { ':after': after.list_sk } : {}) },
      ScanIndexForward: false,
      Limit: MAX_QUERY_LIMIT,
    },
    wanted,
  );
  return items.map((item) => ({
    key: { pk: item[TABLE.partitionKey] as string, sk: item[TABLE.sortKey] as string },
    list_sk: item[index.sortKey] as string,
  }));
}

/** Largest Limit we send in one Query (DynamoDB pages at 1 MB anyway). */
const MAX_QUERY_LIMIT = 1000;

function newestFirst(a: ListedKey, b: ListedKey) {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: list sort keys (created_at#id) are unique, so no two compare equal
  return a.list_sk < b.list_sk ? 1 : a.list_sk > b.list_sk ? -1 : 0;
}

/**
 * The records of these keys, in their order, read from the table (the indexes hold keys only).
 * An index trails the table by a moment: a record that no longer matches the filters is left out.
 */
async function recordsOf(listed: ListedKey[], filters: ListFilters): Promise<SubscriptionRecord[]> {
  const items = await batchGetAll(listed.map(({ key }) => key));
  return items.flatMap((item) => {
    if (!item) return [];
    const record = toRecord(item);
    return matches(record, filters) ? [record] : [];
  });
}

function matches(record: SubscriptionRecord, filters: ListFilters): boolean {
  return (['user_id', 'status', 'product_id', 'platform'] as const).every(
    (field) => filters[field] === undefined || record[field] === filters[field],
  );
}

/** The list count of these filters, as the aggregator last moved it (it trails writes by the stream's delay). */
export async function countMatching(appId: string, filters: ListFilters): Promise<number> {
  const cell = listCountCell(appId, {
    status: filters.status,
    product_id: filters.product_id,
    platform: filters.platform,
  });
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName,
      Key: cell.key,
      ProjectionExpression: '#count',
      ExpressionAttributeNames: { '#count': cell.attribute },
    }),
  );
  return Number(Item?.[cell.attribute] ?? 0);
}

/**
 * Newest first. Without user_id, a page costs one counter read, the keys up to and including the
 * page (and one past it) from each partition the listing index has for the filters (one per
 * platform when the platform is not filtered), and one batch read of the page's items, whatever
 * the app's size; with a cursor, only the page. With user_id, the user's own subscriptions are
 * read (and counted) in full.
 */
export async function listSubscriptions(
  appId: string,
  filters: ListFilters,
  position: ListPosition,
): Promise<ListResult> {
  if (filters.user_id !== undefined) {
    // A user's partition is small (their own subscriptions): the other filters are applied to its records.
    const listed = await queryKeys(
      'subscriptionsOfUser',
      keys.userSubscriptions(appId, filters.user_id),
      Number.POSITIVE_INFINITY,
      undefined,
    );
    const items = await recordsOf(listed, filters);
    const startAt = position.after ? items.findIndex((item) => item.id === position.after!.id) + 1 : position.skip;
    return {
      items: items.slice(startAt, startAt + position.limit),
      total: items.length,
      more: items.length > startAt + position.limit,
    };
  }
  // One key past the page says whether another item follows it (the page's total rests on it).
  const wanted = (position.after ? position.limit : position.skip + position.limit) + 1;
  const { indexName, pkValues } = listPartitions(appId, {
    status: filters.status,
    product_id: filters.product_id,
    platform: filters.platform,
  });
  const [partitions, total] = await Promise.all([
    Promise.all(pkValues.map((pkValue) => queryKeys(indexName, pkValue, wanted, position.after))),
    countMatching(appId, filters),
  ]);
  const listed = partitions.flat().sort(newestFirst).slice(0, wanted);
  const start = position.after ? 0 : position.skip;
  const page = listed.slice(start, start + position.limit);
  return { items: await recordsOf(page, filters), total, more: listed.length > start + position.limit };
}

/**
 * A user's newest `max` subscriptions, newest first: one Query of the keys-only user index (`max`
 * keys at most) and one eventually consistent batch read of their items per 100. A subscription
 * whose purchase moved to another user since the index was written is left out.
 */
export async function newestSubscriptionsOfUser(
  appId: string,
  userId: string,
  max: number,
): Promise<SubscriptionRecord[]> {
  const listed = await queryKeys('subscriptionsOfUser', keys.userSubscriptions(appId, userId), max, undefined);
  return recordsOf(listed, { user_id: userId });
}

/**
 * Every stored subscription of an app (of every app, without one), read consistently from the
 * table itself rather than an index, a page at a time: a whole-table Scan, for operator commands
 * and benchmarks, never for a request.
 */
export async function* scanSubscriptions(appId?: string): AsyncGenerator<SubscriptionRecord[]> {
  // Stryker disable next-line StringLiteral: only subscription state items have the sort key SUB
  const prefix = appId ? keys.subscription(appId, '').pk : 'SUB#';
  for await (const page of scanPages({
    ConsistentRead: true,
    FilterExpression: 'begins_with(pk, :prefix) AND sk = :state',
    ExpressionAttributeValues: { ':prefix': prefix, ':state': SUBSCRIPTION_SK },
  })) {
    yield (page.Items ?? []).map(toRecord);
  }
}
