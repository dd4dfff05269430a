/**
 * Brings every stored subscription to the current item shape after an upgrade that changed it: the
 * SUB item's index keys (new indexes are backfilled only from items that carry their key
 * attributes), a receipt still inside the PAYMENT item, and a purchase's owner still on an item of
 * its own (OWNER#, now on its original transaction's item). Each SUB item is put back through
 * subscriptionItem, conditioned on the version it was read at: one that a live write changed in the
 * meantime already has the current shape. Safe to run again; it changes nothing the second time.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ChangeCause } from '../domain/history-entries.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { scanPages } from './query.js';
import { REVENUE_CHANGE_ATTRIBUTE, type RevenueChange } from './revenue-counters.js';
import {
  ANNOUNCED_EVENTS_ATTRIBUTE,
  type AnnouncedEvents,
  CHANGE_CAUSE_ATTRIBUTE,
  receiptItem,
  subscriptionItem,
  toRecord,
} from './subscription-items.js';
import { writeTogether } from './subscription-writes.js';
import { updateExpression } from './update-expression.js';

export interface RewriteResult {
  /** SUB and PAYMENT items read. */
  examined: number;
  /** Items written in the current shape. */
  rewritten: number;
  /** Purchase owners moved from their former items onto their original transactions' items. */
  purchases_moved: number;
}

const sameShape = (stored: Record<string, unknown>, current: Record<string, unknown>): boolean =>
  JSON.stringify(Object.entries(stored).sort()) === JSON.stringify(Object.entries(current).sort());

export async function rewriteSubscriptions(): Promise<RewriteResult> {
  const result: RewriteResult = { examined: 0, rewritten: 0, purchases_moved: 0 };
  const formerOwnerPrefix = keys.formerPurchaseOwner('', '', '').pk.split('#')[0]!;
  for await (const page of scanPages({
    FilterExpression:
      '(begins_with(pk, :sub) AND sk IN (:state, :payment)) OR (begins_with(pk, :owner) AND sk = :ownerSk)',
    ExpressionAttributeValues: {
      ':sub': 'SUB#',
      ':state': 'SUB',
      ':payment': 'PAYMENT',
      ':owner': `${formerOwnerPrefix}#`,
      ':ownerSk': keys.formerPurchaseOwner('', '', '').sk,
    },
  })) {
    for (const item of page.Items ?? []) {
      if (String(item.pk).startsWith(`${formerOwnerPrefix}#`)) {
        if (await movePurchaseOwner(item)) result.purchases_moved += 1;
        continue;
      }
      result.examined += 1;
      if (await rewrite(item)) result.rewritten += 1;
    }
  }
  return result;
}

/**
 * The current shape of a stored SUB item, with what the write that set its version left on it
 * (revenue, announced events, cause) kept: a rewrite at the same version is no new write to the
 * stream's readers, and an item already in the current shape compares equal.
 */
const currentShape = (item: Record<string, unknown>) =>
  subscriptionItem(
    toRecord(item),
    item[REVENUE_CHANGE_ATTRIBUTE] as RevenueChange | undefined,
    item[ANNOUNCED_EVENTS_ATTRIBUTE] as AnnouncedEvents | undefined,
    item[CHANGE_CAUSE_ATTRIBUTE] as ChangeCause | undefined,
  );

async function rewrite(item: Record<string, unknown>): Promise<boolean> {
  if (item.sk === 'SUB') {
    const current = currentShape(item);
    if (sameShape(item, current)) return false;
    try {
      await ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: current,
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': item.version },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
  if (typeof item.receipt_data !== 'string') return false;
  const [appId, subscriptionId] = String(item.pk).split('#').slice(1);
  const subscription = { app_id: appId!, id: subscriptionId! };
  const refused = await writeTogether([
    { Put: { TableName: tableName, Item: receiptItem(subscription, item.receipt_data) } },
    {
      Update: {
        TableName: tableName,
        Key: keys.subscriptionPayment(appId!, subscriptionId!),
        UpdateExpression: 'REMOVE receipt_data',
        ConditionExpression: 'receipt_data = :receipt',
        ExpressionAttributeValues: { ':receipt': item.receipt_data },
      },
    },
  ]);
  return refused === undefined;
}

/**
 * A purchase's former owner item, moved onto its original transaction's item and removed. What a
 * live write has put there since the upgrade (an owner, a later store state) is kept.
 */
async function movePurchaseOwner(item: Record<string, unknown>): Promise<boolean> {
  const appId = String(item.pk).split('#')[1]!;
  const originalTransactionId = String(item.original_transaction_id);
  const owned = typeof item.user_id === 'string';
  const refused = await writeTogether([
    {
      Update: {
        TableName: tableName,
        Key: keys.purchase(appId, originalTransactionId),
        ...updateExpression({
          set: { type: 'transaction', store: item.store, original_transaction_id: originalTransactionId },
          setIfAbsent: {
            ...(owned && { owner_user_id: item.user_id, owner_subscription_id: item.subscription_id }),
            ...(item.store_state !== undefined && { store_state: item.store_state, store_as_of: item.store_as_of }),
          },
        }),
      },
    },
    { Delete: { TableName: tableName, Key: { pk: item.pk, sk: item.sk } } },
  ]);
  return refused === undefined;
}
