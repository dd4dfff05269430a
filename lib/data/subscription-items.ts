/**
 * The stored shape of a subscription. One partition per subscription holds the compact state item
 * (SUB, the one the listing indexes project) and its payment item (PAYMENT, which carries the
 * receipt and is kept out of the indexes).
 */
import { INITIAL_LIFECYCLE, nextTimeTransitionAt, type SubscriptionState } from '../domain/subscription-state.js';
import type { Platform } from '../schemas/common.js';
import { dueAttributes, type FacetValues, keys, listPartition, listSortKey } from './keys.js';
import { facetCombinations, TABLE, withoutKeys } from './table.js';

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

export const facetValuesOf = (record: Pick<SubscriptionRecord, 'status' | 'product_id' | 'platform'>): FacetValues => ({
  status: record.status,
  product_id: record.product_id,
  platform: record.platform,
});

export /** The index key attributes of a subscription item: one per listing index plus the user index. */
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
export const subscriptionItem = (record: SubscriptionRecord) => ({
  ...keys.subscription(record.app_id, record.id),
  type: 'subscription',
  ...record,
  ...indexAttributes(record),
});

export const paymentItem = (record: SubscriptionRecord, payment: PaymentRecord) => ({
  ...keys.subscriptionPayment(record.app_id, record.id),
  type: 'subscription_payment',
  ...payment,
});

/** A stored subscription; records written before a lifecycle field existed read it as its initial value. */
export const toRecord = (item: Record<string, unknown>): SubscriptionRecord => ({
  ...INITIAL_LIFECYCLE,
  ...withoutKeys<SubscriptionRecord>(item),
});
