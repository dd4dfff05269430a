/**
 * Who a store purchase belongs to: the binding of each transaction id to the one subscription it
 * pays for, the owner of each original transaction, and the transfers of a purchase between users.
 */
import { transferOutboxItem } from '../events/outbox.js';
import type { Product } from '../schemas/product.js';
import type { StorePurchaseState } from '../stores/types.js';
import { batchGetConsistent, getConsistent } from './batch.js';
import { type TransactItem, tableName } from './client.js';
import { keys, type TableKey } from './keys.js';
import { toProduct } from './products.js';
import type { SubscriptionRecord } from './subscription-items.js';
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

/** The transaction id now pays for this subscription; refused if it already pays for any (or, taking over, for another than the old one). */
export const bindTransactionPut = (
  record: SubscriptionRecord,
  transactionId: string,
  takeOver?: TakeOver,
): TransactItem => ({
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

const PURCHASE_ITEM_TYPE = 'purchase_owner';

/** The store state a purchase item holds, refused when it holds one the store stated later (or at the same time). */
const storeStateFields = (state: StorePurchaseState) => ({
  set: { store_state: state, store_as_of: state.as_of },
  condition: 'attribute_not_exists(store_as_of) OR store_as_of < :asOf',
  values: { ':asOf': state.as_of },
});

/**
 * The purchase belongs to this user (now served by this subscription); refused if another user
 * owns it. The store state a notification left on a purchase nobody owned yet stays; `state`
 * replaces it (on the same condition as purchaseStateUpdate's).
 */
export const bindOwnerPut = (
  record: SubscriptionRecord,
  owner: PurchaseOwner,
  takeOver?: TakeOver,
  state?: StorePurchaseState,
): TransactItem => {
  const withState = state && storeStateFields(state);
  return {
    Update: {
      TableName: tableName,
      Key: keys.purchaseOwner(record.app_id, owner.store, owner.original_transaction_id),
      ...updateExpression({
        set: {
          type: PURCHASE_ITEM_TYPE,
          ...owner,
          user_id: record.user_id,
          subscription_id: record.id,
          ...withState?.set,
        },
        condition: {
          expression: `(attribute_not_exists(user_id) OR user_id = :user)${withState ? ` AND (${withState.condition})` : ''}`,
          values: { ':user': takeOver?.fromUserId ?? record.user_id, ...withState?.values },
        },
      }),
    },
  };
};

/**
 * The store's latest word on the purchase, kept on its item (with or without an owner): refused
 * when the item already holds a state the store stated later or at the same time.
 */
export const purchaseStateUpdate = (appId: string, state: StorePurchaseState): TransactItem => {
  const fields = storeStateFields(state);
  return {
    Update: {
      TableName: tableName,
      Key: keys.purchaseOwner(appId, state.store, state.original_transaction_id),
      ...updateExpression({
        set: {
          type: PURCHASE_ITEM_TYPE,
          store: state.store,
          original_transaction_id: state.original_transaction_id,
          ...fields.set,
        },
        condition: { expression: fields.condition, values: fields.values },
      }),
    },
  };
};

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

/** Whose a store purchase is, and the subscription it serves. */
export interface OwnedPurchase {
  user_id: string;
  subscription_id: string;
}

/** A purchase item that only a store notification has written so far has no owner. */
const toOwnedPurchase = (item: Record<string, unknown>): OwnedPurchase | undefined =>
  typeof item.user_id === 'string'
    ? { user_id: item.user_id, subscription_id: item.subscription_id as string }
    : undefined;

const toTransactionBinding = (item: Record<string, unknown>): TransactionBinding => ({
  subscription_id: item.subscription_id as string,
  user_id: item.user_id as string,
  product_id: item.product_id as string,
});

export async function getTransactionBinding(
  appId: string,
  transactionId: string,
): Promise<TransactionBinding | undefined> {
  const item = await getConsistent(keys.transaction(appId, transactionId));
  return item && toTransactionBinding(item);
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
  storeState: owned?.store_state as StorePurchaseState | undefined,
});

/**
 * The product, the purchase's owner and the transaction's binding in one strongly consistent
 * BatchGetItem (one request instead of three): what verifying a purchase decides on.
 */
export async function lookUpPurchase(appId: string, purchase: PurchaseQuery): Promise<PurchaseLookup> {
  return purchaseLookupOf(await batchGetConsistent(purchaseLookupKeys(appId, purchase)));
}

/** Whose a store purchase is, by its original transaction id; undefined when no user has it. */
export async function getPurchaseOwner(
  appId: string,
  store: string,
  originalTransactionId: string,
): Promise<OwnedPurchase | undefined> {
  const item = await getConsistent(keys.purchaseOwner(appId, store, originalTransactionId));
  return item && toOwnedPurchase(item);
}
