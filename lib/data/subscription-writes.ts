/**
 * Writes of subscriptions: inserting one (or many, to seed an app) and saving a state change, each
 * in one transaction with its purchase bindings, the events it announces on the SUB item itself
 * (events/outbox.ts). Nothing an app's other
 * subscriptions also write is in it: the list counts and revenue counters follow from the stream
 * (events/aggregator.ts), the revenue change riding on the subscription item.
 */

import type { ChangeCause } from '../domain/history-entries.js';
import type { RevenueDelta } from '../domain/revenue-figures.js';
import type { StorePurchaseState } from '../domain/store-purchase.js';
import type { StoreEventKind } from '../domain/store-sync.js';
import type { StatusChange, SubscriptionState } from '../domain/subscription-state.js';
import { announcedEventId, announcedEvents } from '../events/outbox.js';
import { batchWriteAll, putRequest } from './batch.js';
import { type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';
import {
  bindOwnerPart,
  bindTransactionPart,
  getTransactionBinding,
  type PurchaseOwner,
  type TakeOver,
  type TransactionBinding,
  type TransactionItemPart,
  type TransactionWrite,
  transactionItems,
  transferItems,
} from './purchase-ownership.js';
import { revenueChange } from './revenue-counters.js';
import {
  BOUND_TRANSACTIONS_ATTRIBUTE,
  type PaymentRecord,
  paymentItem,
  receiptItem,
  type SubscriptionRecord,
  subscriptionItem,
} from './subscription-items.js';
import { transactWrite } from './transactions.js';
import { cancellationReasonsOf } from './unavailable.js';
import { updateExpression } from './update-expression.js';

export type InsertOutcome =
  | { inserted: true }
  /** The transaction id already pays for a subscription: nothing was written. */
  | { inserted: false; reason: 'transaction_bound'; existing: TransactionBinding }
  /** The purchase belongs to another user: nothing was written. */
  | { inserted: false; reason: 'owned_by_another_user' }
  /** The condition of an alsoWrite item failed: nothing was written. */
  | { inserted: false; reason: 'also_write_refused' };

/** A change's cause as its writer names it; the write adds the version it gives the item. */
export type ChangeOrigin = Omit<ChangeCause, 'version'>;

/** What inserting a subscription writes (insertSubscription's options). */
export interface InsertOptions {
  owner?: PurchaseOwner | undefined;
  /** The store state the purchase item keeps with its owner (a notification's). */
  ownerState?: StorePurchaseState | undefined;
  takeOver?: TakeOver | undefined;
  statusChange?: StatusChange | null | undefined;
  revenue?: RevenueDelta | null | undefined;
  /** More conditional writes of the same change (the purchase's store state, a notification's record). */
  alsoWrite?: readonly TransactionWrite[] | undefined;
  /** What creates it (the subscription's history). */
  cause: ChangeOrigin;
}

/**
 * The writes of an insert, for a transaction that carries more (a takeover's end of the previous
 * owner's subscription, written with it: services/verification.ts): the new state item on the
 * condition that none exists, its payment and receipt, its bindings and a takeover's transfer.
 */
export function insertWrites(
  record: SubscriptionRecord,
  payment: PaymentRecord,
  options: InsertOptions,
): { writes: TransactionWrite[]; transactionPart?: TransactionItemPart; ownerPart?: TransactionItemPart } {
  const now = new Date(record.updated_at);
  const transactionPart = payment.transaction_id
    ? bindTransactionPart(record, payment.transaction_id, options.takeOver)
    : undefined;
  const ownerPart = options.owner
    ? bindOwnerPart(record, options.owner, options.takeOver, options.ownerState)
    : undefined;
  const revenue = options.revenue && revenueChange(record.version, record.updated_at.slice(0, 10), options.revenue);
  const writes: TransactionWrite[] = [
    {
      Put: {
        TableName: tableName,
        Item: subscriptionItem(record, revenue, announcedEvents(record.version, options.statusChange), {
          ...options.cause,
          version: record.version,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...paymentItem(record, payment),
          ...(transactionPart ? { [BOUND_TRANSACTIONS_ATTRIBUTE]: new Set([payment.transaction_id!]) } : {}),
        },
      },
    },
    ...(payment.receipt_data
      ? [{ Put: { TableName: tableName, Item: receiptItem(record, payment.receipt_data) } }]
      : []),
    ...(transactionPart ? [transactionPart] : []),
    ...(ownerPart ? [ownerPart] : []),
    ...(options.owner && options.takeOver ? transferItems(record, options.owner, options.takeOver, now) : []),
    ...(options.alsoWrite ?? []),
  ];
  return { writes, ...(transactionPart && { transactionPart }), ...(ownerPart && { ownerPart }) };
}

/**
 * Inserts a new subscription with its payment item. A transaction id can pay for
 * one subscription only, and a store purchase belongs to one user: when either is taken, nothing
 * is written and the outcome says which. A subscription inserted already past its first status
 * (a verified purchase, active at once) carries that status change: its notification and revenue
 * are written in the same transaction; so are a takeover's transfer records and notification.
 */
export async function insertSubscription(
  record: SubscriptionRecord,
  payment: PaymentRecord,
  options: InsertOptions,
): Promise<InsertOutcome> {
  const { writes, transactionPart, ownerPart } = insertWrites(record, payment, options);
  const { items, itemOf } = transactionItems(writes);
  try {
    await transactWrite(items);
    return { inserted: true };
  } catch (error) {
    const failed = failedItems(error, items);
    // The binding and the owner of a first purchase are one item: a binding found there is why.
    if (transactionPart && failed.includes(itemOf(transactionPart))) {
      const existing = await getTransactionBinding(record.app_id, payment.transaction_id!);
      if (existing) return { inserted: false, reason: 'transaction_bound', existing };
    }
    if (ownerPart && failed.includes(itemOf(ownerPart))) return { inserted: false, reason: 'owned_by_another_user' };
    if (options.alsoWrite?.some((write) => failed.includes(itemOf(write))))
      return { inserted: false, reason: 'also_write_refused' };
    throw error;
  }
}

/**
 * Loads many new subscriptions of one app with batch writes (the aggregator counts them from the
 * stream, an active one also in its day's active count). For seeding an empty app (benchmarks,
 * imports from another provider): unlike insertSubscription it is not transactional and binds no
 * transaction ids, so it must not race with live traffic on the same app.
 */
export async function bulkInsertSubscriptions(
  entries: { record: SubscriptionRecord; payment: PaymentRecord }[],
): Promise<void> {
  const becameActive = { amount_micros: 0, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: 1 };
  await batchWriteAll(
    entries.flatMap(({ record, payment }) => [
      putRequest(
        subscriptionItem(
          record,
          record.status === 'active'
            ? revenueChange(record.version, record.created_at.slice(0, 10), becameActive)
            : null,
        ),
      ),
      putRequest(paymentItem(record, payment)),
      ...(payment.receipt_data ? [putRequest(receiptItem(record, payment.receipt_data))] : []),
    ]),
  );
}

/** The items of a cancelled transaction whose condition failed. */
const failedItems = <T>(error: unknown, items: T[]): T[] => {
  const reasons = cancellationReasonsOf(error);
  // Stryker disable next-line ConditionalExpression: without reasons the filter below keeps nothing either
  if (reasons.length === 0) return [];
  return items.filter((_, i) => reasons[i] === 'ConditionalCheckFailed');
};

/** Record fields a store changes besides the lifecycle. */
export type RecordPatch = Partial<Pick<SubscriptionRecord, 'product_id' | 'price' | 'currency' | 'billing_period'>>;

export interface SaveOptions {
  /** Set when the status changed: the SUB item announces its notification. */
  statusChange: StatusChange | null;
  /** Payment fields to update (a renewal records its transaction and payment time). */
  payment?: Partial<PaymentRecord> | undefined;
  /** Bind this transaction id to the subscription; refused if bound to anything already. */
  bindTransaction?: string | undefined;
  /** Record the store purchase as this subscription's (same user only). */
  bindOwner?: PurchaseOwner | undefined;
  /** Money and active-count change of this write, added to today's revenue counters. */
  revenue?: RevenueDelta | null | undefined;
  /** Record fields a store changed besides the lifecycle: the product, the price paid. */
  recordPatch?: RecordPatch | undefined;
  /** Store-driven events (renewed, refunded, ...) announced with this write; transactionId: the store's. */
  storeEvents?: { kinds: readonly StoreEventKind[]; transactionId: string | null } | undefined;
  /** More conditional writes of the same change (the purchase's store state, the notification's record). */
  alsoWrite?: readonly TransactionWrite[] | undefined;
  /** What makes the change (the subscription's history). */
  cause: ChangeOrigin;
}

export type SaveOutcome =
  | { saved: true; record: SubscriptionRecord; eventId: string | null }
  /** Someone changed the subscription since it was read: re-read and retry. */
  | { saved: false; reason: 'version_conflict' }
  /** bindTransaction is already bound (to this or another subscription). */
  | { saved: false; reason: 'transaction_bound' }
  /** bindOwner belongs to another user. */
  | { saved: false; reason: 'owned_by_another_user' }
  /** The condition of an alsoWrite item failed. */
  | { saved: false; reason: 'also_write_refused'; item: TransactionWrite };

/** What a state change writes (subscriptionStateWrites): the parts a refusal is told apart by. */
export interface StateWrites {
  /** The subscription as the writes leave it. */
  updated: SubscriptionRecord;
  /** Every write, in transaction order (merge parts of one item with transactionItems). */
  writes: TransactionWrite[];
  /** The state item's Put, conditioned on the version read. */
  stateItem: TransactItem;
  transactionPart?: TransactionItemPart | undefined;
  ownerPart?: TransactionItemPart | undefined;
}

/**
 * The writes of `next` over `current`, for one transaction: the state (with the revenue change
 * and the announced events, if any) conditioned on the version read, its bindings, its payment
 * and receipt items, and the alsoWrite items. For a transaction that carries more (a takeover's
 * end of the previous owner's subscription: services/verification.ts), or for
 * saveSubscriptionState to send.
 */
export function subscriptionStateWrites(
  current: SubscriptionRecord,
  next: SubscriptionState,
  now: Date,
  options: SaveOptions,
): StateWrites {
  const nowIso = now.toISOString();
  const updated: SubscriptionRecord = {
    ...current,
    ...next,
    ...options.recordPatch,
    updated_at: nowIso,
    version: current.version + 1,
  };
  const revenue = options.revenue && revenueChange(updated.version, nowIso.slice(0, 10), options.revenue);
  const announced = announcedEvents(updated.version, options.statusChange, options.storeEvents);
  const stateItem: TransactItem = {
    Put: {
      TableName: tableName,
      Item: subscriptionItem(updated, revenue, announced, { ...options.cause, version: updated.version }),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': current.version },
    },
  };
  const transactionPart = options.bindTransaction ? bindTransactionPart(current, options.bindTransaction) : undefined;
  const ownerPart = options.bindOwner ? bindOwnerPart(current, options.bindOwner) : undefined;
  const writes: TransactionWrite[] = [
    stateItem,
    ...(transactionPart ? [transactionPart] : []),
    ...(ownerPart ? [ownerPart] : []),
    ...paymentWrites(current, options),
    ...(options.alsoWrite ?? []),
  ];
  return { updated, writes, stateItem, transactionPart, ownerPart };
}

/** The payment item's update (a renewal's payment, a bound transaction) and the receipt's put or delete. */
function paymentWrites(
  current: SubscriptionRecord,
  { payment, bindTransaction }: Pick<SaveOptions, 'payment' | 'bindTransaction'>,
): TransactItem[] {
  const writes: TransactItem[] = [];
  const { receipt_data: receipt, ...paymentFields } = payment ?? {};
  if (Object.keys(paymentFields).length > 0 || bindTransaction) {
    writes.push({
      Update: {
        TableName: tableName,
        Key: keys.subscriptionPayment(current.app_id, current.id),
        ...updateExpression({
          set: paymentFields,
          add: bindTransaction ? { [BOUND_TRANSACTIONS_ATTRIBUTE]: new Set([bindTransaction]) } : undefined,
        }),
      },
    });
  }
  if (receipt) writes.push({ Put: { TableName: tableName, Item: receiptItem(current, receipt) } });
  else if (receipt === null)
    writes.push({ Delete: { TableName: tableName, Key: keys.subscriptionReceipt(current.app_id, current.id) } });
  return writes;
}

/**
 * Writes `next` over `current` in one transaction (subscriptionStateWrites), if nobody changed
 * the subscription since it was read (same version); the outcome says which condition refused it.
 */
export async function saveSubscriptionState(
  current: SubscriptionRecord,
  next: SubscriptionState,
  now: Date,
  options: SaveOptions,
): Promise<SaveOutcome> {
  const { updated, writes, stateItem, transactionPart, ownerPart } = subscriptionStateWrites(
    current,
    next,
    now,
    options,
  );
  const alsoWrite = options.alsoWrite ?? [];
  const { items, itemOf } = transactionItems(writes);
  try {
    await transactWrite(items);
  } catch (error) {
    const failed = failedItems(error, items);
    const refusedPart = (part: TransactionWrite | undefined) =>
      part !== undefined &&
      failed.includes(itemOf(part)) &&
      // An item it shares with an alsoWrite part: the caller reads again and decides anew.
      !alsoWrite.some((write) => itemOf(write) === itemOf(part));
    if (failed.includes(stateItem)) return { saved: false, reason: 'version_conflict' };
    if (refusedPart(transactionPart)) return { saved: false, reason: 'transaction_bound' };
    if (refusedPart(ownerPart)) return { saved: false, reason: 'owned_by_another_user' };
    const refused = alsoWrite.find((write) => failed.includes(itemOf(write)));
    if (refused) return { saved: false, reason: 'also_write_refused', item: refused };
    throw error;
  }
  const eventId = options.statusChange
    ? announcedEventId(updated.app_id, updated.id, updated.version, 'status_changed')
    : null;
  return { saved: true, record: updated, eventId };
}

/**
 * Writes these items in one transaction: undefined when written, or the first item whose
 * condition did not hold (then nothing was written).
 */
export async function writeTogether(writes: readonly TransactionWrite[]): Promise<TransactionWrite | undefined> {
  const { items, itemOf } = transactionItems(writes);
  try {
    await transactWrite(items);
    return undefined;
  } catch (error) {
    const failed = failedItems(error, items);
    const refused = writes.find((write) => failed.includes(itemOf(write)));
    if (refused) return refused;
    throw error;
  }
}
