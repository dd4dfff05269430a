/**
 * Reads of subscriptions: one by id (with its payment and transfers), and the app's listing,
 * newest first, through the listing indexes, with its total from the list counters.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SubscriptionStatus } from '../domain/subscription-state.js';
import type { Platform } from '../schemas/common.js';
import { getConsistent } from './batch.js';
import { ddb, tableName } from './client.js';
import { type FacetValues, keys, listCountCell, listPartition } from './keys.js';
import type { TransferRecord } from './purchase-ownership.js';
import { type PaymentRecord, type SubscriptionRecord, toRecord } from './subscription-items.js';
import { TABLE, withoutKeys } from './table.js';
import { allEqual } from './update-expression.js';

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
  if (!state) return undefined;
  return {
    record: toRecord(state),
    payment: payment
      ? withoutKeys<PaymentRecord>(payment)
      : { transaction_id: null, receipt_data: null, payment_method: 'unknown', last_payment: null },
    // The query answers in sort-key order: TRANSFER#<time> sorts the transfers by time.
    transfers: Items.filter((item) => String(item.sk).startsWith('TRANSFER#')).map((item) =>
      withoutKeys<TransferRecord>(item),
    ),
  };
}

export async function getSubscriptionRecord(
  appId: string,
  subscriptionId: string,
): Promise<SubscriptionRecord | undefined> {
  const item = await getConsistent(keys.subscription(appId, subscriptionId));
  return item && toRecord(item);
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
  /** All subscriptions matching the filters (not just this page). */
  total: number;
}

/** Largest Limit we send in one Query (DynamoDB pages at 1 MB anyway). */
const MAX_QUERY_LIMIT = 1000;

interface QueryPlan {
  indexName: string;
  pkValue: string;
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
}

function planListQuery(appId: string, filters: ListFilters): QueryPlan {
  const facets: FacetValues = { status: filters.status, product_id: filters.product_id, platform: filters.platform };
  if (filters.user_id === undefined) return listPartition(appId, facets);
  // A user's partition is small (their own subscriptions): the other filters are applied to it.
  const present = Object.entries(facets).filter(([, value]) => value !== undefined);
  return {
    indexName: 'subscriptionsByUser',
    pkValue: keys.userSubscriptions(appId, filters.user_id),
    ...(present.length > 0 ? { filter: allEqual(Object.fromEntries(present)) } : {}),
  };
}

async function queryIndex(
  appId: string,
  plan: QueryPlan,
  wanted: number,
  after: ListPosition['after'],
): Promise<SubscriptionRecord[]> {
  const index = TABLE.indexes[plan.indexName]!;
  let startKey: Record<string, unknown> | undefined = after
    ? { ...keys.subscription(appId, after.id), [index.partitionKey]: plan.pkValue, [index.sortKey]: after.list_sk }
    : undefined;
  const items: SubscriptionRecord[] = [];
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: plan.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey, ...plan.filter?.names },
        ExpressionAttributeValues: { ':pk': plan.pkValue, ...plan.filter?.values },
        ...(plan.filter
          ? { FilterExpression: plan.filter.expression }
          : { Limit: Math.min(wanted - items.length, MAX_QUERY_LIMIT) }),
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []).map(toRecord));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items.slice(0, wanted);
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
 * Newest first. Without user_id, a page costs one counter read plus the items up to and including
 * the page, whatever the app's size; with a cursor, only the page. With user_id, the user's own
 * subscriptions are read (and counted) in full.
 */
export async function listSubscriptions(
  appId: string,
  filters: ListFilters,
  position: ListPosition,
): Promise<ListResult> {
  const plan = planListQuery(appId, filters);
  if (plan.indexName === 'subscriptionsByUser') {
    const items = await queryIndex(appId, plan, Number.MAX_SAFE_INTEGER, undefined);
    const startAt = position.after ? items.findIndex((item) => item.id === position.after!.id) + 1 : position.skip;
    return { items: items.slice(startAt, startAt + position.limit), total: items.length };
  }
  const wanted = position.after ? position.limit : position.skip + position.limit;
  const [items, total] = await Promise.all([
    queryIndex(appId, plan, wanted, position.after),
    countMatching(appId, filters),
  ]);
  return { items: position.after ? items : items.slice(position.skip), total };
}
