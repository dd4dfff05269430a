/**
 * The stored shape of a subscription. One partition per subscription holds the compact state item
 * (SUB, the one the indexes list), its payment item (PAYMENT) and its receipt (RECEIPT, written
 * once: it is large).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { config } from '../core/config.js';
import type { ChangeCause } from '../domain/history-entries.js';
import type { StoreName } from '../domain/store-purchase.js';
import type { StoreEventKind, SubscriptionEnvironment } from '../domain/store-sync.js';
import { INITIAL_LIFECYCLE, nextTimeTransitionAt, type SubscriptionState } from '../domain/subscription-state.js';
import type { Platform } from '../schemas/common.js';
import type { BillingPeriod } from '../schemas/product.js';
import * as keys from './entity-keys.js';
import { REVENUE_CHANGE_ATTRIBUTE, type RevenueChange } from './revenue-counters.js';
import { LISTING_FACET_SETS, listIndexName, TABLE, withoutKeys } from './table.js';
import { dueAttributes, type FacetValues, listPartitionValue, listSortKey } from './table-keys.js';

export interface SubscriptionRecord extends SubscriptionState {
  app_id: string;
  id: string;
  user_id: string;
  product_id: string;
  platform: Platform;
  price: number;
  currency: string;
  /** The product's billing period when bought (the price is per period: MRR normalises it). */
  billing_period: BillingPeriod;
  started_at: string;
  trial_period: boolean;
  trial_expires_at: string | null;
  /** The store that sells it and its purchase there (original transaction id); null: recorded through the API. */
  store: StoreName | null;
  original_transaction_id: string | null;
  environment: SubscriptionEnvironment;
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

/**
 * The events one write of a subscription announces, kept on the SUB item it writes: the table's
 * stream carries them to the publisher with the state (events/outbox.ts). Only the write that set
 * them announces them: `version` is the item's version that write gave it.
 */
export const ANNOUNCED_EVENTS_ATTRIBUTE = 'events';

/**
 * The transaction ids bound to a subscription, kept on its PAYMENT item (a string set): an erasure
 * finds every binding that names the user through it (lib/data/erasure-writes.ts).
 */
export const BOUND_TRANSACTIONS_ATTRIBUTE = 'bound_transaction_ids';

/** What caused the write that set it (its `version`): the aggregator writes it into the subscription's history. */
export const CHANGE_CAUSE_ATTRIBUTE = 'change_cause';

export interface AnnouncedEvents {
  version: number;
  /** A status change goes from the status of the item's old image (a new item's: INITIAL_STATUS). */
  kinds: ('status_changed' | StoreEventKind)[];
  /** The store transaction a renewal was paid with. */
  transaction_id?: string;
}

export const facetValuesOf = (record: Pick<SubscriptionRecord, 'status' | 'product_id' | 'platform'>): FacetValues => ({
  status: record.status,
  product_id: record.product_id,
  platform: record.platform,
});

/** The index key attributes of a subscription item: one per listing index, the user index's, and the due time's. */
export function indexAttributes(record: SubscriptionRecord): Record<string, string> {
  const attributes: Record<string, string> = {
    [TABLE.indexes.subscriptionsOfUser.partitionKey]: keys.userSubscriptions(record.app_id, record.user_id),
    list_sk: listSortKey(record.created_at, record.id),
  };
  const dueAt = nextTimeTransitionAt(record, storeMarginMs(record));
  if (dueAt) Object.assign(attributes, dueAttributes('SUB', dueAt, record.updated_at, record.id));
  const values = facetValuesOf(record);
  for (const facets of LISTING_FACET_SETS) {
    attributes[TABLE.indexes[listIndexName(facets)]!.partitionKey] = listPartitionValue(record.app_id, facets, values);
  }
  return attributes;
}

/**
 * The stored SUB item of a subscription: its fields plus every index key, the revenue change of
 * this write if it has one (for the aggregator, which adds it to the revenue counters) and the
 * events it announces if any (for the publisher). Fields
 * at their default (nulls, false flags of a lifecycle nothing happened to) are left out and
 * restored by toRecord: a subscription then stays under 1 KB, one write unit per started KB (two
 * in a transaction).
 */
export const subscriptionItem = (
  record: SubscriptionRecord,
  revenue?: RevenueChange | null,
  announced?: AnnouncedEvents | null,
  cause?: ChangeCause | null,
) => ({
  ...keys.subscription(record.app_id, record.id),
  type: 'subscription',
  ...Object.fromEntries(
    Object.entries(record).filter(([name, value]) => !(name in STORED_DEFAULTS && STORED_DEFAULTS[name] === value)),
  ),
  ...indexAttributes(record),
  ...(revenue ? { [REVENUE_CHANGE_ATTRIBUTE]: revenue } : {}),
  ...(announced ? { [ANNOUNCED_EVENTS_ATTRIBUTE]: announced } : {}),
  ...(cause ? { [CHANGE_CAUSE_ATTRIBUTE]: cause } : {}),
});

/** The PAYMENT item: the payment fields a renewal updates, without the receipt (receiptItem). */
export const paymentItem = (record: SubscriptionRecord, payment: PaymentRecord) => {
  const { receipt_data: _, ...fields } = payment;
  return { ...keys.subscriptionPayment(record.app_id, record.id), type: 'subscription_payment', ...fields };
};

/**
 * The RECEIPT item of a subscription with a receipt, its text deflated: receipts are kilobytes
 * (an App Store signed transaction about 5 KB, 3 KB deflated) and an item is billed by its whole
 * size on every write, so it is kept out of the items that change.
 */
export const receiptItem = (record: Pick<SubscriptionRecord, 'app_id' | 'id'>, receiptData: string) => ({
  ...keys.subscriptionReceipt(record.app_id, record.id),
  type: 'subscription_receipt',
  receipt: deflateRawSync(receiptData),
});

export const receiptOf = (item: Record<string, unknown>): string =>
  inflateRawSync(item.receipt as Uint8Array).toString('utf8');

/**
 * How long after its period a subscription that the App Store or Google Play renews by itself may
 * wait for the store's word before the clock expires it (STORE_EXPIRY_MARGIN_SECONDS). None for
 * others: the test store renews only when its notification is minted, and nothing renews
 * subscriptions recorded through the API.
 */
export const storeMarginMs = (record: Pick<SubscriptionRecord, 'store'>): number =>
  record.store === 'app_store' || record.store === 'google_play' ? config.storeExpiryMarginSeconds * 1000 : 0;

/**
 * Fields of records written before they existed. A subscription recorded before billing periods
 * were kept on it counts as monthly (docs/api.md#subscription-metrics).
 */
export const RECORD_DEFAULTS = {
  store: null,
  original_transaction_id: null,
  environment: 'production',
  billing_period: 'monthly',
} as const;

/** Values a stored subscription leaves out (subscriptionItem) and a read puts back (toRecord). */
const STORED_DEFAULTS: Record<string, unknown> = {
  ...RECORD_DEFAULTS,
  ...INITIAL_LIFECYCLE,
  trial_period: false,
  trial_expires_at: null,
};

/** A stored subscription; fields left out (at their default, or written before they existed) read as their default. */
export const toRecord = (item: Record<string, unknown>): SubscriptionRecord => {
  const {
    [REVENUE_CHANGE_ATTRIBUTE]: _revenue,
    [ANNOUNCED_EVENTS_ATTRIBUTE]: _announced,
    [CHANGE_CAUSE_ATTRIBUTE]: _cause,
    ...fields
  } = withoutKeys<Record<string, unknown>>(withoutFormerIndexKeys(item));
  return {
    ...(STORED_DEFAULTS as Pick<
      SubscriptionRecord,
      keyof typeof RECORD_DEFAULTS | keyof typeof INITIAL_LIFECYCLE | 'trial_period' | 'trial_expires_at'
    >),
    ...(fields as unknown as SubscriptionRecord),
  };
};

/** Index key attributes of earlier versions (`subscriptionsBy_status_pk`, ...): no record field ends so. */
const withoutFormerIndexKeys = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => !/_(pk|sk)$/.test(name)));
