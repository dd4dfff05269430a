/**
 * Subscription records. One partition per subscription holds the compact state item (SUB, the
 * one the listing indexes project) and its payment item (PAYMENT, which carries the receipt and
 * is kept out of the indexes). Counters per filter combination make list totals O(1).
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RevenueDelta } from '../domain/revenue.js';
import {
  INITIAL_LIFECYCLE,
  nextTimeTransitionAt,
  type StatusChange,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../domain/subscription-state.js';
import { outboxItem, transferOutboxItem } from '../events/outbox.js';
import type { Platform } from '../schemas/common.js';
import type { Product } from '../schemas/product.js';
import { batchGetConsistent, batchWriteAll, putRequest } from './batch.js';
import { ddb, tableName } from './client.js';
import {
  dueAttributes,
  type FacetValues,
  keys,
  listCounterKey,
  listPartition,
  listSortKey,
  type TableKey,
} from './keys.js';
import { toProduct } from './products.js';
import { facetCombinations, TABLE, withoutKeys } from './table.js';
import { cancellationReasonsOf } from './unavailable.js';

export interface SubscriptionRecord extends SubscriptionState {
  app_id: string;
  id: string;
  user_id: string;
  product_id: string;
  platform: Platform;
  price: number;
  currency: string;
  started_at: string;
  trial_period: boolean;
  trial_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Optimistic-concurrency version: every write is conditioned on the one it read. */
  version: number;
}

export interface PaymentRecord {
  transaction_id: string | null;
  receipt_data: string | null;
  payment_method: string;
  last_payment: string | null;
}

const facetValuesOf = (record: Pick<SubscriptionRecord, 'status' | 'product_id' | 'platform'>): FacetValues => ({
  status: record.status,
  product_id: record.product_id,
  platform: record.platform,
});

/** The index key attributes of a subscription item: one per listing index plus the user index. */
function indexAttributes(record: SubscriptionRecord): Record<string, string> {
  const attributes: Record<string, string> = {
    [TABLE.indexes.subscriptionsByUser!.partitionKey]: keys.userSubscriptions(record.app_id, record.user_id),
    list_sk: listSortKey(record.created_at, record.id),
  };
  const dueAt = nextTimeTransitionAt(record);
  if (dueAt) Object.assign(attributes, dueAttributes('SUB', dueAt, record.updated_at, `${record.app_id}#${record.id}`));
  const values = facetValuesOf(record);
  for (const facets of facetCombinations()) {
    const { indexName, pkValue } = listPartition(
      record.app_id,
      Object.fromEntries(facets.map((facet) => [facet, values[facet]])),
    );
    attributes[TABLE.indexes[indexName]!.partitionKey] = pkValue;
  }
  return attributes;
}

/** The stored SUB item of a subscription: its fields plus every index key. */
const subscriptionItem = (record: SubscriptionRecord) => ({
  ...keys.subscription(record.app_id, record.id),
  type: 'subscription',
  ...record,
  ...indexAttributes(record),
});

const paymentItem = (record: SubscriptionRecord, payment: PaymentRecord) => ({
  ...keys.subscriptionPayment(record.app_id, record.id),
  type: 'subscription_payment',
  ...payment,
});

/** Adds a change to the revenue counters of (day, product, currency): in the same transaction as the change. */
function revenueUpdate(
  record: Pick<SubscriptionRecord, 'app_id' | 'product_id' | 'currency'>,
  day: string,
  delta: RevenueDelta,
) {
  const fields = Object.entries(delta);
  return {
    TableName: tableName,
    Key: keys.revenue(record.app_id, day, record.product_id, record.currency),
    UpdateExpression: `SET #type = :type, #day = :day, product_id = :product, currency = :currency ADD ${fields.map((_, i) => `#f${i} :f${i}`).join(', ')}`,
    ExpressionAttributeNames: {
      '#type': 'type',
      '#day': 'day',
      ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
    },
    ExpressionAttributeValues: {
      ':type': 'revenue_counter',
      ':day': day,
      ':product': record.product_id,
      ':currency': record.currency,
      ...Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
    },
  };
}

/** The list counters a subscription with these facet values is counted in (absent facets = any). */
function counterKeys(appId: string, values: FacetValues, onlyWithStatus: boolean): TableKey[] {
  return facetCombinations()
    .filter((facets) => !onlyWithStatus || facets.includes('status'))
    .map((facets) => listCounterKey(appId, Object.fromEntries(facets.map((facet) => [facet, values[facet]]))));
}

const addToCounter = (key: TableKey, delta: number) => ({
  TableName: tableName,
  Key: key,
  UpdateExpression: 'ADD #count :delta SET #type = :type',
  ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
  ExpressionAttributeValues: { ':delta': delta, ':type': 'list_counter' },
});

/** Counter updates for a subscription entering (+1) or leaving (-1) these facet values. */
function counterUpdates(appId: string, values: FacetValues, delta: 1 | -1, onlyWithStatus: boolean) {
  return counterKeys(appId, values, onlyWithStatus).map((key) => ({ Update: addToCounter(key, delta) }));
}

export interface TransactionBinding {
  subscription_id: string;
  user_id: string;
  product_id: string;
}

/** A store purchase (its original transaction) and the user and subscription it belongs to. */
export interface PurchaseOwner {
  store: string;
  original_transaction_id: string;
}

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** When a purchase moves to another user (restore with the transfer policy): whose it was. */
export interface TakeOver {
  fromUserId: string;
  fromSubscriptionId: string;
}

/** The transaction id now pays for this subscription; refused if it already pays for any (or, taking over, for another than the old one). */
const bindTransactionPut = (record: SubscriptionRecord, transactionId: string, takeOver?: TakeOver): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: {
      ...keys.transaction(record.app_id, transactionId),
      type: 'transaction_binding',
      subscription_id: record.id,
      user_id: record.user_id,
      product_id: record.product_id,
    } satisfies Record<string, unknown> & TransactionBinding,
    ...(takeOver
      ? {
          ConditionExpression: 'attribute_not_exists(pk) OR subscription_id = :from',
          ExpressionAttributeValues: { ':from': takeOver.fromSubscriptionId },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

/** The purchase belongs to this user (now served by this subscription); refused if another user owns it. */
const bindOwnerPut = (record: SubscriptionRecord, owner: PurchaseOwner, takeOver?: TakeOver): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: {
      ...keys.purchaseOwner(record.app_id, owner.store, owner.original_transaction_id),
      type: 'purchase_owner',
      ...owner,
      user_id: record.user_id,
      subscription_id: record.id,
    },
    ConditionExpression: 'attribute_not_exists(pk) OR user_id = :user',
    ExpressionAttributeValues: { ':user': takeOver?.fromUserId ?? record.user_id },
  },
});

/**
 * A restore that moved a purchase to another user, as listed on both subscriptions: the one
 * cancelled (from) and the one it continues as (to). `event_id` is its subscription.transferred
 * notification's.
 */
export interface TransferRecord {
  from_user_id: string;
  to_user_id: string;
  from_subscription_id: string;
  to_subscription_id: string;
  original_transaction_id: string;
  transferred_at: string;
  event_id: string;
}

/**
 * A takeover's record on both subscriptions and its notification: written in the transaction that
 * moves the purchase, so a transfer is never without them.
 */
function transferItems(
  record: SubscriptionRecord,
  owner: PurchaseOwner,
  takeOver: TakeOver,
  now: Date,
): TransactItem[] {
  const outbox = transferOutboxItem(
    record.app_id,
    {
      original_transaction_id: owner.original_transaction_id,
      product_id: record.product_id,
      from_user_id: takeOver.fromUserId,
      to_user_id: record.user_id,
      from_subscription_id: takeOver.fromSubscriptionId,
      to_subscription_id: record.id,
    },
    now,
  );
  const transfer: TransferRecord = {
    from_user_id: takeOver.fromUserId,
    to_user_id: record.user_id,
    from_subscription_id: takeOver.fromSubscriptionId,
    to_subscription_id: record.id,
    original_transaction_id: owner.original_transaction_id,
    transferred_at: now.toISOString(),
    event_id: outbox.event_id,
  };
  return [
    ...[record.id, takeOver.fromSubscriptionId].map((subscriptionId) => ({
      Put: {
        TableName: tableName,
        Item: {
          ...keys.subscriptionTransfer(record.app_id, subscriptionId, transfer.transferred_at, transfer.event_id),
          type: 'subscription_transfer',
          ...transfer,
        },
      },
    })),
    { Put: { TableName: tableName, Item: outbox, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}

export type InsertOutcome =
  | { inserted: true }
  /** The transaction id already pays for a subscription: nothing was written. */
  | { inserted: false; reason: 'transaction_bound'; existing: TransactionBinding }
  /** The purchase belongs to another user: nothing was written. */
  | { inserted: false; reason: 'owned_by_another_user' };

/**
 * Inserts a new subscription with its payment item and counters. A transaction id can pay for
 * one subscription only, and a store purchase belongs to one user: when either is taken, nothing
 * is written and the outcome says which. A subscription inserted already past its first status
 * (a verified purchase, active at once) carries that status change: its notification and revenue
 * are written in the same transaction; so are a takeover's transfer records and notification.
 */
export async function insertSubscription(
  record: SubscriptionRecord,
  payment: PaymentRecord,
  options: {
    owner?: PurchaseOwner | undefined;
    takeOver?: TakeOver | undefined;
    statusChange?: StatusChange | null | undefined;
    revenue?: RevenueDelta | null | undefined;
  } = {},
): Promise<InsertOutcome> {
  const now = new Date(record.updated_at);
  const transactionItem = payment.transaction_id
    ? bindTransactionPut(record, payment.transaction_id, options.takeOver)
    : undefined;
  const ownerItem = options.owner ? bindOwnerPut(record, options.owner, options.takeOver) : undefined;
  const items: TransactItem[] = [
    { Put: { TableName: tableName, Item: subscriptionItem(record), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: paymentItem(record, payment) } },
    ...(transactionItem ? [transactionItem] : []),
    ...(ownerItem ? [ownerItem] : []),
    ...counterUpdates(record.app_id, facetValuesOf(record), 1, false),
    ...(options.revenue ? [{ Update: revenueUpdate(record, record.updated_at.slice(0, 10), options.revenue) }] : []),
    ...(options.statusChange
      ? [
          {
            Put: {
              TableName: tableName,
              Item: outboxItem(record, record, options.statusChange, now),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ]
      : []),
    ...(options.owner && options.takeOver ? transferItems(record, options.owner, options.takeOver, now) : []),
  ];
  try {
    await ddb.send(new TransactWriteCommand({ TransactItems: items }));
    return { inserted: true };
  } catch (error) {
    const failed = failedItems(error, items);
    if (transactionItem && failed.includes(transactionItem)) {
      const existing = await getTransactionBinding(record.app_id, payment.transaction_id!);
      if (existing) return { inserted: false, reason: 'transaction_bound', existing };
    }
    if (ownerItem && failed.includes(ownerItem)) return { inserted: false, reason: 'owned_by_another_user' };
    throw error;
  }
}

/** Whose a store purchase is, and the subscription it serves. */
export interface OwnedPurchase {
  user_id: string;
  subscription_id: string;
}

const toOwnedPurchase = (item: Record<string, unknown>): OwnedPurchase => ({
  user_id: item.user_id as string,
  subscription_id: item.subscription_id as string,
});

const toTransactionBinding = (item: Record<string, unknown>): TransactionBinding => ({
  subscription_id: item.subscription_id as string,
  user_id: item.user_id as string,
  product_id: item.product_id as string,
});

export async function getTransactionBinding(
  appId: string,
  transactionId: string,
): Promise<TransactionBinding | undefined> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.transaction(appId, transactionId), ConsistentRead: true }),
  );
  return Item ? toTransactionBinding(Item) : undefined;
}

/** What a store transaction is, as far as this app knows: see lookUpPurchase. */
export interface PurchaseLookup {
  /** The catalogue product the transaction is for. */
  product: Product | undefined;
  /** Who owns the store purchase the transaction belongs to. */
  owned: OwnedPurchase | undefined;
  /** The subscription the transaction already pays for. */
  binding: TransactionBinding | undefined;
}

/** What lookUpPurchase is asked about: a transaction of a store purchase, for a product. */
export interface PurchaseQuery {
  productId: string;
  owner: PurchaseOwner;
  transactionId: string;
}

/** The items a purchase lookup reads, for callers that read them with others in one request. */
export const purchaseLookupKeys = (appId: string, purchase: PurchaseQuery): TableKey[] => [
  keys.product(appId, purchase.productId),
  keys.purchaseOwner(appId, purchase.owner.store, purchase.owner.original_transaction_id),
  keys.transaction(appId, purchase.transactionId),
];

/** The lookup from the items of purchaseLookupKeys, in their order. */
export const purchaseLookupOf = ([product, owned, binding]: (
  | Record<string, unknown>
  | undefined
)[]): PurchaseLookup => ({
  product: product && toProduct(product),
  owned: owned && toOwnedPurchase(owned),
  binding: binding && toTransactionBinding(binding),
});

/**
 * The product, the purchase's owner and the transaction's binding in one strongly consistent
 * BatchGetItem (one request instead of three): what verifying a purchase decides on.
 */
export async function lookUpPurchase(appId: string, purchase: PurchaseQuery): Promise<PurchaseLookup> {
  return purchaseLookupOf(await batchGetConsistent(purchaseLookupKeys(appId, purchase)));
}

/**
 * Loads many new subscriptions of one app with batch writes, then adds them to the list counters
 * (one update per counter, not per subscription). For seeding an empty app (benchmarks, imports
 * from another provider): unlike insertSubscription it is not transactional and binds no
 * transaction ids, so it must not race with live traffic on the same app.
 */
export async function bulkInsertSubscriptions(
  entries: { record: SubscriptionRecord; payment: PaymentRecord }[],
): Promise<void> {
  await batchWriteAll(
    entries.flatMap(({ record, payment }) => [
      putRequest(subscriptionItem(record)),
      putRequest(paymentItem(record, payment)),
    ]),
  );
  const totals = new Map<string, { key: TableKey; count: number }>();
  for (const { record } of entries) {
    for (const key of counterKeys(record.app_id, facetValuesOf(record), false)) {
      const id = `${key.pk}|${key.sk}`;
      const entry = totals.get(id) ?? { key, count: 0 };
      entry.count += 1;
      totals.set(id, entry);
    }
  }
  for (const { key, count } of totals.values()) await ddb.send(new UpdateCommand(addToCounter(key, count)));
  // Keep the revenue counters' active-count history consistent with the list counters.
  const active = new Map<string, { record: SubscriptionRecord; day: string; count: number }>();
  for (const { record } of entries.filter((e) => e.record.status === 'active')) {
    const day = record.created_at.slice(0, 10);
    const id = `${day}#${record.product_id}#${record.currency}`;
    const entry = active.get(id) ?? { record, day, count: 0 };
    entry.count += 1;
    active.set(id, entry);
  }
  for (const { record, day, count } of active.values()) {
    await ddb.send(
      new UpdateCommand(
        revenueUpdate(record, day, {
          amount_micros: 0,
          new_subscriptions: 0,
          renewals: 0,
          refunds: 0,
          net_active: count,
        }),
      ),
    );
  }
}

/** A stored subscription; records written before a lifecycle field existed read it as its initial value. */
const toRecord = (item: Record<string, unknown>): SubscriptionRecord => ({
  ...INITIAL_LIFECYCLE,
  ...withoutKeys<SubscriptionRecord>(item),
});

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
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.subscription(appId, subscriptionId), ConsistentRead: true }),
  );
  return Item ? toRecord(Item) : undefined;
}

/** The items of a cancelled transaction whose condition failed. */
const failedItems = <T>(error: unknown, items: T[]): T[] => {
  const reasons = cancellationReasonsOf(error);
  if (reasons.length === 0) return [];
  return items.filter((_, i) => reasons[i] === 'ConditionalCheckFailed');
};

export interface SaveOptions {
  /** Set when the status changed: an outbox item with the notification is written too. */
  statusChange: StatusChange | null;
  /** Payment fields to update (a renewal records its transaction and payment time). */
  payment?: Partial<PaymentRecord> | undefined;
  /** Bind this transaction id to the subscription; refused if bound to anything already. */
  bindTransaction?: string | undefined;
  /** Record the store purchase as this subscription's (same user only). */
  bindOwner?: PurchaseOwner | undefined;
  /** Money and active-count change of this write, added to today's revenue counters. */
  revenue?: RevenueDelta | null | undefined;
}

export type SaveOutcome =
  | { saved: true; record: SubscriptionRecord; eventId: string | null }
  /** Someone changed the subscription since it was read: re-read and retry. */
  | { saved: false; reason: 'version_conflict' }
  /** bindTransaction is already bound (to this or another subscription). */
  | { saved: false; reason: 'transaction_bound' }
  /** bindOwner belongs to another user. */
  | { saved: false; reason: 'owned_by_another_user' };

/**
 * Writes `next` over `current` in one transaction, if nobody changed the subscription since it was
 * read (same version): the state, the list counters when the status changes, the outbox item of
 * the status change, and optionally the payment item and a transaction binding.
 */
export async function saveSubscriptionState(
  current: SubscriptionRecord,
  next: SubscriptionState,
  now: Date,
  options: SaveOptions = { statusChange: null },
): Promise<SaveOutcome> {
  const nowIso = now.toISOString();
  const updated: SubscriptionRecord = { ...current, ...next, updated_at: nowIso, version: current.version + 1 };
  const outbox = options.statusChange ? outboxItem(updated, updated, options.statusChange, now) : null;
  const paymentFields = Object.entries(options.payment ?? {});
  const stateItem: TransactItem = {
    Put: {
      TableName: tableName,
      Item: subscriptionItem(updated),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': current.version },
    },
  };
  const transactionItem = options.bindTransaction ? bindTransactionPut(current, options.bindTransaction) : undefined;
  const ownerItem = options.bindOwner ? bindOwnerPut(current, options.bindOwner) : undefined;
  const items: TransactItem[] = [
    stateItem,
    ...(transactionItem ? [transactionItem] : []),
    ...(ownerItem ? [ownerItem] : []),
  ];
  if (paymentFields.length > 0) {
    items.push({
      Update: {
        TableName: tableName,
        Key: keys.subscriptionPayment(current.app_id, current.id),
        UpdateExpression: `SET ${paymentFields.map((_, i) => `#p${i} = :p${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(paymentFields.map(([name], i) => [`#p${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(paymentFields.map(([, value], i) => [`:p${i}`, value])),
      },
    });
  }
  if (options.revenue) items.push({ Update: revenueUpdate(updated, nowIso.slice(0, 10), options.revenue) });
  if (options.statusChange) {
    items.push(
      ...counterUpdates(current.app_id, facetValuesOf(current), -1, true),
      ...counterUpdates(current.app_id, facetValuesOf(updated), 1, true),
      { Put: { TableName: tableName, Item: outbox!, ConditionExpression: 'attribute_not_exists(pk)' } },
    );
  }
  try {
    await ddb.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const failed = failedItems(error, items);
    if (failed.includes(stateItem)) return { saved: false, reason: 'version_conflict' };
    if (transactionItem && failed.includes(transactionItem)) return { saved: false, reason: 'transaction_bound' };
    if (ownerItem && failed.includes(ownerItem)) return { saved: false, reason: 'owned_by_another_user' };
    throw error;
  }
  return { saved: true, record: updated, eventId: outbox?.event_id ?? null };
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
    ...(present.length > 0
      ? {
          filter: {
            expression: present.map((_, i) => `#f${i} = :f${i}`).join(' AND '),
            names: Object.fromEntries(present.map(([name], i) => [`#f${i}`, name])),
            values: Object.fromEntries(present.map(([, value], i) => [`:f${i}`, value])),
          },
        }
      : {}),
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

export async function countMatching(appId: string, filters: ListFilters): Promise<number> {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName,
      Key: listCounterKey(appId, {
        status: filters.status,
        product_id: filters.product_id,
        platform: filters.platform,
      }),
    }),
  );
  return Number(Item?.count ?? 0);
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
