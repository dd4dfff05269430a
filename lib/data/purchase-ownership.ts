/**
 * Who a store purchase belongs to: the binding of each transaction id to the one subscription it
 * pays for, the owner of each original transaction (on the original transaction's item), and the
 * transfers of a purchase between users.
 */

import { isDeepStrictEqual } from 'node:util';
import type { StorePurchaseState } from '../domain/store-purchase.js';
import { transferOutboxItem } from '../events/outbox.js';
import type { Product } from '../schemas/product.js';
import { batchGetConsistent, getConsistent } from './batch.js';
import { type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { toProduct } from './products.js';
import type { SubscriptionRecord } from './subscription-items.js';
import { keyIdOf, type TableKey } from './table-keys.js';
import { updateExpression } from './update-expression.js';

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

/** When a purchase moves to another user (restore with the transfer policy): whose it was. */
export interface TakeOver {
  fromUserId: string;
  fromSubscriptionId: string;
}

/**
 * One part of a write of a transaction's item (TXN#): attributes it sets and the condition they
 * are set on. The item of an original transaction holds up to three kinds of part (its binding to
 * the subscription it pays for, its purchase's owner, the store's state of the purchase), and
 * DynamoDB takes one action per item in a transaction: transactionItems merges the parts of one
 * item into one Update, whose condition is all of theirs.
 */
export interface TransactionItemPart {
  key: TableKey;
  set: Record<string, unknown>;
  /** Each kind of part has placeholders of its own (:from, :user, :asOf). */
  condition: { expression: string; values: Record<string, unknown> };
}

/** A write of a transaction: an item of its own, or a part of a transaction's item. */
export type TransactionWrite = TransactItem | TransactionItemPart;

const TRANSACTION_ITEM_TYPE = 'transaction';

export const isTransactionItemPart = (write: TransactionWrite): write is TransactionItemPart =>
  // Stryker disable next-line LogicalOperator: a TransactItem's one key is Put, Update, Delete or ConditionCheck; a part has both
  'key' in write && 'set' in write;

/** The transaction id now pays for this subscription; refused if it already pays for any (or, taking over, for another than the old one). */
export const bindTransactionPart = (
  record: SubscriptionRecord,
  transactionId: string,
  takeOver?: TakeOver,
): TransactionItemPart => ({
  key: keys.transaction(record.app_id, transactionId),
  set: {
    type: TRANSACTION_ITEM_TYPE,
    subscription_id: record.id,
    user_id: record.user_id,
    product_id: record.product_id,
  } satisfies Record<string, unknown> & TransactionBinding,
  condition: takeOver
    ? {
        expression: '(attribute_not_exists(subscription_id) OR subscription_id = :from)',
        values: { ':from': takeOver.fromSubscriptionId },
      }
    : { expression: 'attribute_not_exists(subscription_id)', values: {} },
});

/** The store state a purchase item holds, refused when it holds one the store stated later (or at the same time). */
const storeStateFields = (state: StorePurchaseState) => ({
  set: { store_state: state, store_as_of: state.as_of },
  condition: '(attribute_not_exists(store_as_of) OR store_as_of < :asOf)',
  values: { ':asOf': state.as_of },
});

/**
 * The purchase belongs to this user (now served by this subscription); refused if another user
 * owns it. The store state a notification left on a purchase nobody owned yet stays; `state`
 * replaces it (on the same condition as purchaseStatePart's).
 */
export const bindOwnerPart = (
  record: SubscriptionRecord,
  owner: PurchaseOwner,
  takeOver?: TakeOver,
  state?: StorePurchaseState,
): TransactionItemPart => {
  const withState = state && storeStateFields(state);
  return {
    key: keys.purchase(record.app_id, owner.original_transaction_id),
    set: {
      type: TRANSACTION_ITEM_TYPE,
      ...owner,
      owner_user_id: record.user_id,
      owner_subscription_id: record.id,
      ...withState?.set,
    },
    condition: {
      expression: `(attribute_not_exists(owner_user_id) OR owner_user_id = :user)${withState ? ` AND ${withState.condition}` : ''}`,
      values: { ':user': takeOver?.fromUserId ?? record.user_id, ...withState?.values },
    },
  };
};

/**
 * The store's latest word on the purchase, kept on its item (with or without an owner): refused
 * when the item already holds a state the store stated later or at the same time.
 */
export const purchaseStatePart = (appId: string, state: StorePurchaseState): TransactionItemPart => {
  const fields = storeStateFields(state);
  return {
    key: keys.purchase(appId, state.original_transaction_id),
    set: {
      type: TRANSACTION_ITEM_TYPE,
      store: state.store,
      original_transaction_id: state.original_transaction_id,
      ...fields.set,
    },
    condition: { expression: fields.condition, values: fields.values },
  };
};

/** `into`, with `more` merged in: one refuses to set an attribute (or a placeholder) to two values. */
function mergeInto(into: Record<string, unknown>, more: Record<string, unknown>, what: string): void {
  for (const [name, value] of Object.entries(more)) {
    if (name in into && !isDeepStrictEqual(into[name], value))
      throw new Error(`two writes of one transaction item set ${what} ${name} to different values`);
    into[name] = value;
  }
}

/**
 * The items of one transaction: each part of a transaction's item merged with the other parts of
 * the same item into one Update (their conditions joined by AND), the other items as given.
 * `itemOf` answers the item a write went into, to tell which write a cancellation refused.
 */
export function transactionItems(writes: readonly TransactionWrite[]): {
  items: TransactItem[];
  itemOf: (write: TransactionWrite) => TransactItem;
} {
  const merged = new Map<
    string,
    { key: TableKey; set: Record<string, unknown>; conditions: string[]; values: Record<string, unknown> }
  >();
  for (const write of writes) {
    if (!isTransactionItemPart(write)) continue;
    const id = keyIdOf(write.key);
    const entry = merged.get(id) ?? { key: write.key, set: {}, conditions: [], values: {} };
    mergeInto(entry.set, write.set, 'attribute');
    mergeInto(entry.values, write.condition.values, 'placeholder');
    if (!entry.conditions.includes(write.condition.expression)) entry.conditions.push(write.condition.expression);
    merged.set(id, entry);
  }
  const built = new Map<string, TransactItem>();
  for (const [id, { key, set, conditions, values }] of merged) {
    built.set(id, {
      Update: {
        TableName: tableName,
        Key: key,
        ...updateExpression({ set, condition: { expression: conditions.join(' AND '), values } }),
      },
    });
  }
  const itemOf = (write: TransactionWrite) => (isTransactionItemPart(write) ? built.get(keyIdOf(write.key))! : write);
  const items: TransactItem[] = [];
  for (const write of writes) {
    const item = itemOf(write);
    if (!items.includes(item)) items.push(item);
  }
  return { items, itemOf };
}

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

/** The subscriptions a transfer is listed on: both, or the one that moved as it stands (a logIn). */
export const transferredSubscriptionIds = (fromSubscriptionId: string, toSubscriptionId: string): string[] => [
  ...new Set([fromSubscriptionId, toSubscriptionId]),
];

/**
 * A takeover's record on both subscriptions and its notification: written in the transaction that
 * moves the purchase, so a transfer is never without them.
 */
export function transferItems(
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
    ...transferredSubscriptionIds(takeOver.fromSubscriptionId, record.id).map((subscriptionId) => ({
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

/** Whose a store purchase is, and the subscription it serves. */
export interface OwnedPurchase {
  user_id: string;
  subscription_id: string;
}

/** A purchase item that only a store notification has written so far has no owner. */
export const toOwnedPurchase = (item: Record<string, unknown> | undefined): OwnedPurchase | undefined =>
  typeof item?.owner_user_id === 'string'
    ? { user_id: item.owner_user_id, subscription_id: item.owner_subscription_id as string }
    : undefined;

/** An original transaction's item may hold its purchase's owner or state and no binding yet. */
const toTransactionBinding = (item: Record<string, unknown> | undefined): TransactionBinding | undefined =>
  typeof item?.subscription_id === 'string'
    ? {
        subscription_id: item.subscription_id,
        user_id: item.user_id as string,
        product_id: item.product_id as string,
      }
    : undefined;

export async function getTransactionBinding(
  appId: string,
  transactionId: string,
): Promise<TransactionBinding | undefined> {
  return toTransactionBinding(await getConsistent(keys.transaction(appId, transactionId)));
}

/** What a store transaction is, as far as this app knows: see lookUpPurchase. */
export interface PurchaseLookup {
  /** The catalogue product the transaction is for. */
  product: Product | undefined;
  /** Who owns the store purchase the transaction belongs to. */
  owned: OwnedPurchase | undefined;
  /** The subscription the transaction already pays for. */
  binding: TransactionBinding | undefined;
  /** The store's latest state of the purchase, as a notification or status query left it. */
  storeState: StorePurchaseState | undefined;
}

/** What lookUpPurchase is asked about: a transaction of a store purchase, for a product. */
export interface PurchaseQuery {
  productId: string;
  owner: PurchaseOwner;
  transactionId: string;
}

/**
 * The items a purchase lookup reads, for callers that read them with others in one request. For
 * the original transaction, the purchase's item and the transaction's are one (read once: see
 * batchGetConsistent).
 */
export const purchaseLookupKeys = (appId: string, purchase: PurchaseQuery): TableKey[] => [
  keys.product(appId, purchase.productId),
  keys.purchase(appId, purchase.owner.original_transaction_id),
  keys.transaction(appId, purchase.transactionId),
];

/** The lookup from the items of purchaseLookupKeys, in their order. */
export const purchaseLookupOf = ([product, owned, binding]: (
  | Record<string, unknown>
  | undefined
)[]): PurchaseLookup => ({
  product: product && toProduct(product),
  owned: toOwnedPurchase(owned),
  binding: toTransactionBinding(binding),
  storeState: owned?.store_state as StorePurchaseState | undefined,
});

/**
 * The product, the purchase's owner and the transaction's binding in one strongly consistent
 * BatchGetItem (one request instead of three): what verifying a purchase decides on.
 */
export async function lookUpPurchase(appId: string, purchase: PurchaseQuery): Promise<PurchaseLookup> {
  return purchaseLookupOf(await batchGetConsistent(purchaseLookupKeys(appId, purchase)));
}

/** The state the store last gave a purchase (its notifications' latest word), by its original transaction id. */
export async function getPurchaseStoreState(
  appId: string,
  originalTransactionId: string,
): Promise<StorePurchaseState | undefined> {
  return (await getConsistent(keys.purchase(appId, originalTransactionId)))?.store_state as
    | StorePurchaseState
    | undefined;
}

/** Whose a store purchase is, by its original transaction id; undefined when no user has it. */
export async function getPurchaseOwner(
  appId: string,
  originalTransactionId: string,
): Promise<OwnedPurchase | undefined> {
  return toOwnedPurchase(await getConsistent(keys.purchase(appId, originalTransactionId)));
}
