/**
 * Items as an earlier version stored them, for `subscriptions rewrite` (lib/data/subscription-rewrite.ts):
 * a subscription with whole-item index keys, nulls and its receipt in PAYMENT; its purchase's owner
 * on an item of its own; and a purchase nobody owned, with a store state.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import { buildSubscription } from './subscriptions.js';

export const LEGACY_RECEIPT = 'bGVnYWN5';
export const LEGACY_STORE_STATE = { as_of: '2026-01-01T00:00:00.000Z', note: 'a notification before anyone verified' };

const put = (Item: Record<string, unknown>) => ddb.send(new PutCommand({ TableName: tableName, Item }));

export async function seedLegacyShapes(appId: string): Promise<{
  record: SubscriptionRecord;
  owner: { store: string; original_transaction_id: string };
  /** The original transaction of the purchase nobody owned. */
  unownedTransactionId: string;
}> {
  const record = buildSubscription(appId, { user_id: 'legacy-user' });
  const current: Record<string, unknown> = subscriptionItem(record);
  const keysAndFields = Object.fromEntries(Object.entries(current).filter(([name]) => !name.startsWith('l_')));
  await put({ ...keysAndFields, ...record, subscriptionsBy_status_pk: `${record.app_id}#status=active` });
  await put({
    ...keys.subscriptionPayment(record.app_id, record.id),
    type: 'subscription_payment',
    transaction_id: null,
    receipt_data: LEGACY_RECEIPT,
    payment_method: 'api',
    last_payment: null,
  });
  const owner = { store: 'test_store', original_transaction_id: `legacy-orig-${record.id}` };
  await put({
    ...keys.formerPurchaseOwner(record.app_id, owner.store, owner.original_transaction_id),
    type: 'purchase_owner',
    ...owner,
    user_id: 'legacy-user',
    subscription_id: record.id,
  });
  const unownedTransactionId = `${owner.original_transaction_id}-unowned`;
  await put({
    ...keys.formerPurchaseOwner(record.app_id, owner.store, unownedTransactionId),
    type: 'purchase_owner',
    store: owner.store,
    original_transaction_id: unownedTransactionId,
    store_state: LEGACY_STORE_STATE,
    store_as_of: LEGACY_STORE_STATE.as_of,
  });
  return { record, owner, unownedTransactionId };
}
