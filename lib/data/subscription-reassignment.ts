/**
 * A subscription handed from one user to another as it stands: its id, state, history and revenue
 * kept. The erasure's detach hands it to the erased user's anonymous id (lib/data/erasure-writes.ts),
 * a RevenueCat logIn from an anonymous id to the identified user (lib/services/revenuecat.ts).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { anonymisedFields } from '../domain/erasure-scope.js';
import type { ChangeCause } from '../domain/history-entries.js';
import { batchGetConsistent } from './batch.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';
import {
  type TransactionItemPart,
  type TransactionWrite,
  transactionItems,
  transferItems,
} from './purchase-ownership.js';
import {
  BOUND_TRANSACTIONS_ATTRIBUTE,
  type SubscriptionRecord,
  subscriptionItem,
  toRecord,
} from './subscription-items.js';
import { writeTogether } from './subscription-writes.js';
import { SUBSCRIPTION_SK, type TableKey } from './table-keys.js';

export type ReassignOutcome = 'reassigned' | 'gone' | 'changing';

/** What a reassignment did, and how many items it wrote (an erasure's budget counts them). */
export interface Reassigned {
  outcome: ReassignOutcome;
  written: number;
  /** The subscription as it now stands, when reassigned. */
  record?: SubscriptionRecord;
}

/** The subscription as read for a reassignment: its own items, its state and the next state. */
export interface ReassignedSubscription {
  /** The items of its partition (state, payment, receipt, transfers), read strongly consistently. */
  items: Record<string, unknown>[];
  record: SubscriptionRecord;
  next: SubscriptionRecord;
}

export interface Reassignment {
  appId: string;
  fromUserId: string;
  toUserId: string;
  /** What history records as the write's cause. */
  cause: Omit<ChangeCause, 'version'>;
  /** Other parts a transaction's item takes (an erasure clears the user's app account token). */
  transactionParts?: (item: Record<string, unknown>, record: SubscriptionRecord) => TransactionItemPart[];
  /** Other writes of the same transaction. */
  alsoWrite?: (subscription: ReassignedSubscription, now: Date) => TransactionWrite[];
}

/** Reads and writes of a reassignment before it gives up on a subscription that keeps changing. */
const MAX_ATTEMPTS = 5;

async function subscriptionItems(key: TableKey): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': key.pk },
      ConsistentRead: true,
    }),
  );
  return Items;
}

/** The transactions bound to the subscription: its original, its first and every renewal recorded since (BOUND_TRANSACTIONS_ATTRIBUTE). */
function boundTransactionIds(record: SubscriptionRecord, payment: Record<string, unknown> | undefined): string[] {
  const bound =
    payment?.[BOUND_TRANSACTIONS_ATTRIBUTE] instanceof Set
      ? [...(payment[BOUND_TRANSACTIONS_ATTRIBUTE] as Set<string>)]
      : [];
  const ids = [record.original_transaction_id, payment?.transaction_id, ...bound];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/**
 * The parts handing a transaction's item (TXN#) over: its binding and its purchase's owner where
 * they name the user, each on the condition that it still does.
 */
function transactionItemParts(
  item: Record<string, unknown>,
  record: SubscriptionRecord,
  { fromUserId, toUserId, transactionParts }: Reassignment,
): TransactionItemPart[] {
  const key = { pk: item.pk as string, sk: item.sk as string };
  const parts: TransactionItemPart[] = [];
  const { user_id, owner_user_id } = anonymisedFields(item, fromUserId, toUserId);
  if (user_id && item.subscription_id === record.id)
    parts.push({
      key,
      set: { user_id },
      condition: { expression: 'user_id = :user', values: { ':user': fromUserId } },
    });
  if (owner_user_id)
    parts.push({
      key,
      set: { owner_user_id },
      condition: { expression: 'owner_user_id = :user', values: { ':user': fromUserId } },
    });
  return [...parts, ...(transactionParts?.(item, record) ?? [])];
}

/**
 * Hands a subscription of one user to another in one transaction: the state through the versioned
 * path (a new version: a writer that read the old owner's version is refused and reads again, so
 * no concurrent write can put the old owner back), its purchase's owner and the binding on its
 * original transaction, and what `alsoWrite` adds. Bindings of its later transactions, which hold
 * only the user's id, are handed over first, each on its own: until the transaction commits the
 * subscription is still the old owner's, so a reassignment that dies in between finds it again.
 * `gone` when it was no longer the old owner's; `changing` when other writes kept refusing it.
 */
export async function reassignSubscription(
  key: TableKey,
  reassignment: Reassignment,
  now = new Date(),
): Promise<Reassigned> {
  const { appId, fromUserId, toUserId, cause } = reassignment;
  let written = 0;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const items = await subscriptionItems(key);
    const state = items.find((item) => item.sk === SUBSCRIPTION_SK);
    if (!state || state.user_id !== fromUserId) return { outcome: 'gone', written };
    const record = toRecord(state);
    const payment = items.find((item) => item.sk === 'PAYMENT');
    const purchaseKey = record.original_transaction_id
      ? keys.purchase(appId, record.original_transaction_id)
      : undefined;
    const transactions = await batchGetConsistent(
      boundTransactionIds(record, payment).map((id) => keys.transaction(appId, id)),
    );
    const onPurchase: TransactionItemPart[] = [];
    for (const item of transactions) {
      if (!item) continue;
      const parts = transactionItemParts(item, record, reassignment);
      if (item.pk === purchaseKey?.pk) onPurchase.push(...parts);
      else
        for (const part of parts) {
          await writeTogether([part]);
          written += 1;
        }
    }
    const next: SubscriptionRecord = {
      ...record,
      user_id: toUserId,
      updated_at: now.toISOString(),
      version: record.version + 1,
    };
    const writes: TransactionWrite[] = [
      {
        Put: {
          TableName: tableName,
          Item: subscriptionItem(next, null, null, { ...cause, version: next.version }),
          ConditionExpression: 'version = :version AND user_id = :user',
          ExpressionAttributeValues: { ':version': record.version, ':user': fromUserId },
        },
      },
      ...onPurchase,
      ...(reassignment.alsoWrite?.({ items, record, next }, now) ?? []),
    ];
    // Refused: someone wrote the subscription, its purchase or another item since the read; read again.
    if ((await writeTogether(writes)) === undefined)
      return { outcome: 'reassigned', written: written + transactionItems(writes).items.length, record: next };
  }
  return { outcome: 'changing', written };
}

/**
 * A store purchase's subscription handed to another user as a transfer: recorded on the
 * subscription and notified (subscription.transferred, from and to the same subscription), in the
 * transaction that hands it over. A purchase's store and original transaction never change, so
 * they are taken from the subscription as the caller read it.
 */
export function transferSubscription(
  subscription: Pick<SubscriptionRecord, 'app_id' | 'id' | 'user_id' | 'store' | 'original_transaction_id'>,
  toUserId: string,
  now = new Date(),
): Promise<Reassigned> {
  const { app_id: appId, id, user_id: fromUserId, store, original_transaction_id } = subscription;
  if (!store || !original_transaction_id) throw new Error(`subscription ${id} has no store purchase to transfer`);
  const owner = { store, original_transaction_id };
  return reassignSubscription(
    keys.subscription(appId, id),
    {
      appId,
      fromUserId,
      toUserId,
      cause: { by: 'api', action: 'transfer' },
      alsoWrite: ({ next }, at) => transferItems(next, owner, { fromUserId, fromSubscriptionId: id }, at),
    },
    now,
  );
}
