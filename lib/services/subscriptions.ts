/**
 * Use cases of the subscription records API. Handlers call these; these call the pure domain
 * and the repositories. Every function takes the caller's app id first: nothing crosses apps.
 */

import { AppError } from '../core/errors.js';
import { newSubscriptionId } from '../core/ids.js';
import { getProduct, listProducts } from '../data/products.js';
import { getUsageStats } from '../data/profiles.js';
import {
  getTransactionBinding,
  type PurchaseOwner,
  type TransactionWrite,
  type TransferRecord,
} from '../data/purchase-ownership.js';
import { type PaymentRecord, type SubscriptionRecord, storeMarginMs } from '../data/subscription-items.js';
import { getSubscription, getSubscriptionRecord, listSubscriptions } from '../data/subscription-queries.js';
import {
  type ChangeOrigin,
  insertSubscription,
  type RecordPatch,
  type SaveOptions,
  type SaveOutcome,
  saveSubscriptionState,
  subscriptionStateWrites,
  writeTogether,
} from '../data/subscription-writes.js';
import { listSortKey } from '../data/table-keys.js';
import { addBillingPeriod, addDays } from '../domain/billing.js';
import { decodeCursor, encodeCursor, hasNextPage, pageInfo, pageTotal } from '../domain/pagination.js';
import { addRevenueDeltas, type MoneyFacts, revenueDelta } from '../domain/revenue-figures.js';
import type { StorePurchaseState } from '../domain/store-purchase.js';
import { countsAsRevenue, storeEventsOf, storeRecordPatch } from '../domain/store-sync.js';
import {
  applyCommand,
  applyLifecycleCommand,
  INITIAL_LIFECYCLE,
  INITIAL_STATUS,
  type LifecycleCommand,
  type StatusChange,
  type StoreFacts,
  type SubscriptionCommand,
  type SubscriptionState,
  type TransitionResult,
} from '../domain/subscription-state.js';
import type { Platform } from '../schemas/common.js';
import type { Product } from '../schemas/product.js';
import {
  type CancelSubscriptionBody,
  type CreatedSubscription,
  type CreateSubscriptionBody,
  DEFAULT_PAGE_SIZE,
  type ListSubscriptionsQuery,
  type Pagination,
  type PauseSubscriptionBody,
  type RenewSubscriptionBody,
  type SubscriptionDetail,
  type SubscriptionListItem,
  type UpdateSubscriptionBody,
} from '../schemas/subscription.js';

/** Payment method by platform (the spec leaves the value set open). */
const PAYMENT_METHOD: Record<Platform, string> = { ios: 'app_store', android: 'google_play', web: 'external' };

export function toListItem(record: SubscriptionRecord): SubscriptionListItem {
  return {
    id: record.id,
    user_id: record.user_id,
    product_id: record.product_id,
    platform: record.platform,
    status: record.status,
    price: record.price,
    currency: record.currency,
    started_at: record.started_at,
    expires_at: record.expires_at,
    auto_renew: record.auto_renew,
    trial_period: record.trial_period,
    created_at: record.created_at,
  };
}

async function requireProduct(appId: string, productId: string): Promise<Product> {
  const product = await getProduct(appId, productId);
  if (!product) throw new AppError('PRODUCT_NOT_FOUND', `Product ${productId} not found`);
  return product;
}

export async function getSubscriptionDetail(appId: string, subscriptionId: string): Promise<SubscriptionDetail> {
  const found = await getSubscription(appId, subscriptionId);
  if (!found) throw new AppError('SUBSCRIPTION_NOT_FOUND', `Subscription ${subscriptionId} not found`);
  return subscriptionDetailOf(found.record, found.payment, found.transfers);
}

/** The detail of a subscription whose items are at hand: joins the product and the user's usage. */
async function subscriptionDetailOf(
  record: SubscriptionRecord,
  payment: PaymentRecord,
  transfers: TransferRecord[],
): Promise<SubscriptionDetail> {
  const [product, usage] = await Promise.all([
    getProduct(record.app_id, record.product_id),
    getUsageStats(record.app_id, record.user_id),
  ]);
  const renews = record.auto_renew && (record.status === 'active' || record.status === 'pending_verification');
  return {
    ...toListItem(record),
    trial_expires_at: record.trial_expires_at,
    updated_at: record.updated_at,
    // A product removed from the catalogue still names itself by id.
    product_info: product
      ? { name: product.name, description: product.description, features: product.features }
      : { name: record.product_id, description: '', features: [] },
    payment_info: {
      transaction_id: payment.transaction_id,
      receipt_data: payment.receipt_data,
      payment_method: payment.payment_method,
      last_payment: payment.last_payment,
      next_billing: renews ? record.expires_at : null,
    },
    usage_stats: usage,
    paused_at: record.paused_at,
    paused_until: record.paused_until,
    pause_reason: record.pause_reason,
    cancel_at_period_end: record.cancel_at_period_end,
    cancelled_at: record.cancelled_at,
    cancellation_reason: record.cancellation_reason,
    refunded_at: record.refunded_at,
    billing_issue_at: record.billing_issue_at,
    grace_period_expires_at: record.grace_period_expires_at,
    store: record.store,
    environment: record.environment,
    transfers,
  };
}

export async function listSubscriptionPage(
  appId: string,
  query: ListSubscriptionsQuery,
): Promise<{ data: SubscriptionListItem[]; pagination: Pagination }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const filters = {
    user_id: query.user_id,
    status: query.status,
    product_id: query.product_id,
    platform: query.platform,
  };
  // The cursor is bound to the filters and the page size that produced it.
  const cursorScope = { ...filters, limit };
  const after = query.cursor ? decodeCursor(query.cursor, cursorScope) : undefined;
  if (after && query.page !== undefined && query.page !== after.page) {
    throw new AppError(
      'INVALID_PARAMETER',
      `page ${query.page} does not match the cursor, which leads to page ${after.page}`,
      {
        details: [{ path: 'query.page', message: 'omit page when passing a cursor' }],
      },
    );
  }
  const page = after?.page ?? query.page ?? 1;
  const { items, total, more } = await listSubscriptions(appId, filters, { after, skip: (page - 1) * limit, limit });
  // The counters trail the writes: the total is never below what this page shows.
  const info = pageInfo(page, limit, pageTotal(total, { page, limit, onPage: items.length, more }));
  const last = items.at(-1);
  const nextCursor =
    last && hasNextPage(info)
      ? encodeCursor({ page: page + 1, list_sk: listSortKey(last.created_at, last.id), id: last.id }, cursorScope)
      : null;
  return { data: items.map(toListItem), pagination: { ...info, next_cursor: nextCursor } };
}

export type CreateOutcome = { created: boolean; subscription: CreatedSubscription };

/** What a caller decides about a new subscription; ids, status, lifecycle and timestamps are set here. */
export type NewSubscription = Pick<
  SubscriptionRecord,
  | 'user_id'
  | 'product_id'
  | 'platform'
  | 'price'
  | 'currency'
  | 'billing_period'
  | 'started_at'
  | 'expires_at'
  | 'auto_renew'
  | 'trial_period'
  | 'trial_expires_at'
> &
  Partial<Pick<SubscriptionRecord, 'store' | 'original_transaction_id' | 'environment'>> &
  Pick<PaymentRecord, 'transaction_id' | 'receipt_data'>;

/** A new record in pending_verification, and its payment item; every subscription starts so. */
export function pendingSubscription(
  appId: string,
  fields: NewSubscription,
  now: Date,
): { record: SubscriptionRecord; payment: PaymentRecord } {
  const {
    transaction_id,
    receipt_data,
    store = null,
    original_transaction_id = null,
    environment = 'production',
    ...state
  } = fields;
  return {
    record: {
      app_id: appId,
      id: newSubscriptionId(),
      store,
      original_transaction_id,
      environment,
      ...state,
      status: INITIAL_STATUS,
      ...INITIAL_LIFECYCLE,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      version: 1,
    },
    payment: { transaction_id, receipt_data, payment_method: PAYMENT_METHOD[fields.platform], last_payment: null },
  };
}

/** The revenue operation a command is: a store's sync is an activation, a renewal, or neither. */
function moneyOperation(
  current: SubscriptionState,
  next: SubscriptionState,
  command: SubscriptionCommand,
  renewal: boolean,
): MoneyFacts['operation'] {
  if (command.type === 'activate' || command.type === 'renew' || command.type === 'cancel') return command.type;
  if (command.type !== 'sync') return 'other';
  if (current.status === 'pending_verification' && next.status === 'active') return 'activate';
  return renewal ? 'renew' : 'other';
}

/** The money and active count a command moves, for the revenue counters; none for a store's test accounts. */
function revenueOfChange(
  current: SubscriptionRecord,
  next: SubscriptionState,
  command: SubscriptionCommand,
  { refund, renewal, refundReversed }: { refund: boolean; renewal: boolean; refundReversed: boolean },
  price = current.price,
) {
  if (!countsAsRevenue(current.environment)) return null;
  return revenueDelta({
    operation: moneyOperation(current, next, command, renewal),
    refund,
    refundReversed,
    statusBefore: current.status,
    statusAfter: next.status,
    price,
    trial: current.trial_period,
    trialExpiresAt: current.trial_expires_at,
    expiresAtBefore: current.expires_at,
  });
}

/**
 * A purchase its store has verified, recorded in one write: the pending_verification record every
 * subscription starts as, with its activation already applied (the same state, status change,
 * notification and revenue as activating it afterwards, without a window in between).
 */
export function verifiedSubscription(
  appId: string,
  fields: NewSubscription,
  paid: Partial<PaymentRecord>,
  now: Date,
  /** The store's renewal state, when it said (a notification): applied with the activation. */
  facts?: StoreFacts,
  /**
   * An earlier period's refund the store reported before anyone verified the purchase: that
   * period's money back (at `price`, or the subscription's when null) in the same write, as a
   * notification of it after the verification would.
   */
  earlierRefund?: { facts: StoreFacts; price: number | null },
) {
  const { record: pending, payment } = pendingSubscription(appId, fields, now);
  const command: LifecycleCommand = facts
    ? { type: 'sync', facts }
    : { type: 'activate', expires_at: fields.expires_at };
  const { next, statusChange, refund, renewal, refundReversed } = applyLifecycleCommand(pending, command, now);
  const record = { ...pending, ...next };
  let revenue = revenueOfChange(pending, next, command, { refund, renewal, refundReversed });
  if (earlierRefund) {
    const refundCommand: LifecycleCommand = { type: 'sync', facts: earlierRefund.facts };
    const refunded = applyLifecycleCommand(record, refundCommand, now);
    revenue = addRevenueDeltas(
      revenue,
      revenueOfChange(record, refunded.next, refundCommand, refunded, earlierRefund.price ?? record.price),
    );
  }
  return { record, payment: { ...payment, ...paid }, statusChange, revenue };
}

/**
 * Records a purchase that is not verified yet (status pending_verification). Price and currency
 * default to the catalogue's. A transaction id names one purchase: creating it again for the same
 * user and product returns the first record (a safe retry); for anyone else it is RECEIPT_ALREADY_USED.
 */
export async function createSubscription(
  appId: string,
  body: CreateSubscriptionBody,
  now = new Date(),
): Promise<CreateOutcome> {
  const product = await requireProduct(appId, body.product_id);
  if (!product.active) {
    throw new AppError('INVALID_PARAMETER', `Product ${product.id} is not active`, {
      details: [{ path: 'body.product_id', message: 'product is not on sale' }],
    });
  }
  if (!product.platforms.includes(body.platform)) {
    throw new AppError('INVALID_PARAMETER', `Product ${product.id} is not sold on ${body.platform}`, {
      details: [{ path: 'body.platform', message: `must be one of ${product.platforms.join(', ')}` }],
    });
  }
  if (body.trial_period && product.trial_period_days === 0) {
    throw new AppError('INVALID_PARAMETER', `Product ${product.id} has no trial period`, {
      details: [{ path: 'body.trial_period', message: 'product has trial_period_days 0' }],
    });
  }
  const trialExpiresAt = body.trial_period ? addDays(now, product.trial_period_days).toISOString() : null;
  const { record, payment } = pendingSubscription(
    appId,
    {
      user_id: body.user_id,
      product_id: product.id,
      platform: body.platform,
      price: body.price ?? product.price,
      currency: body.currency ?? product.currency,
      billing_period: product.billing_period,
      started_at: now.toISOString(),
      // A trial ends before the first paid period; verification replaces these with the store's dates.
      expires_at: trialExpiresAt ?? addBillingPeriod(now, product.billing_period).toISOString(),
      auto_renew: body.auto_renew,
      trial_period: body.trial_period,
      trial_expires_at: trialExpiresAt,
      transaction_id: body.transaction_id ?? null,
      receipt_data: body.receipt_data ?? null,
    },
    now,
  );
  const outcome = await insertSubscription(record, payment, { cause: { by: 'api', action: 'create' } });
  if (outcome.inserted) return { created: true, subscription: createdView(record) };
  if (outcome.reason !== 'transaction_bound') throw new Error(`unexpected insert outcome ${outcome.reason}`);

  const { existing } = outcome;
  if (existing.user_id !== record.user_id || existing.product_id !== record.product_id) {
    throw new AppError('RECEIPT_ALREADY_USED', `Transaction ${body.transaction_id} belongs to another subscription`);
  }
  const first = await getSubscriptionRecord(appId, existing.subscription_id);
  if (!first) throw new Error(`transaction binding points at missing subscription ${existing.subscription_id}`);
  return { created: false, subscription: createdView(first) };
}

const createdView = (record: SubscriptionRecord): CreatedSubscription => ({
  id: record.id,
  user_id: record.user_id,
  product_id: record.product_id,
  status: record.status,
  created_at: record.created_at,
});

/** Concurrent writers are re-run on a fresh read this many times before the caller sees a 409. */
const MAX_ATTEMPTS = 3;

/**
 * A planned change: a lifecycle command, which the lifecycle table decides, or an operator's edit
 * (PUT), decided by its planner (applyCommand, with the edit rules), so that what never edits a
 * subscription does not carry them.
 */
export type PlannedChange = PlannedWrites &
  (
    | { command: LifecycleCommand }
    | { command: Extract<SubscriptionCommand, { type: 'update' }>; decided: TransitionResult }
  );

interface PlannedWrites {
  payment?: Partial<PaymentRecord>;
  bindTransaction?: string | undefined;
  bindOwner?: PurchaseOwner | undefined;
  /**
   * With a `sync` command (whose store-driven events are announced): the store's state it comes
   * from, whose product and price the subscription takes. A renewal is paid (money, `renewed`) only
   * with a transaction it binds (bindTransaction), a new one.
   */
  storeState?: StorePurchaseState | undefined;
  /** The price the money moves at when not the subscription's: a refund of an earlier period, at what it cost. */
  price?: number | undefined;
  /** More conditional writes of the same change, written even when the subscription does not change. */
  alsoWrite?: readonly TransactionWrite[] | undefined;
}

/** What commitChange leaves: the subscription as it now is (and its other items, when asked to read them). */
export interface CommittedChange {
  statusChange: StatusChange | null;
  /** An alsoWrite item whose condition did not hold: nothing of the change was written. */
  refused?: TransactionWrite | undefined;
  record: SubscriptionRecord;
  payment?: PaymentRecord | undefined;
  transfers?: TransferRecord[] | undefined;
}

/**
 * Decides the change to make to the subscription as it is, or null when, as it is, it needs none
 * (e.g. a concurrent request already made it): commitChange then answers with it unchanged.
 */
export type ChangePlan = (
  current: SubscriptionRecord,
  now: Date,
) => PlannedChange | null | Promise<PlannedChange | null>;

export type CommitOptions = {
  /** What makes the change (the command names the action): recorded with it, for the subscription's history. */
  cause: Omit<ChangeOrigin, 'action'>;
} & (
  | {
      /** Read the payment item (and the transfers) along with the state, to answer with them. */
      withPayment: true;
      current?: undefined;
    }
  /**
   * The subscription as the caller has just written or read it: the first attempt decides on it
   * instead of reading it again. If it is stale, the version condition refuses the write and the
   * next attempt reads it afresh; a decision to change nothing answers with it as given.
   */
  | { withPayment?: false; current?: SubscriptionRecord | undefined }
);

/**
 * Read, decide, write: applies one lifecycle command through the state machine and saves the
 * result conditioned on the version read (with the outbox item of any status change). A lost
 * race is retried on a fresh read, decided again; a change that changes nothing writes nothing. With
 * `withPayment`, the payment item is read along with the state (one Query instead of one GetItem),
 * so that the caller can answer with the subscription's detail without reading it again.
 */
export async function commitChange(
  appId: string,
  subscriptionId: string,
  plan: ChangePlan,
  options: CommitOptions,
): Promise<CommittedChange> {
  let known = options.current;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // The caller's record stands in for the first read only.
    const found = known ? { record: known } : await readForChange(appId, subscriptionId, options.withPayment);
    known = undefined;
    const now = new Date();
    const planned = await plan(found.record, now);
    const committed = planned ? await commitPlanned(appId, found, planned, now, options.cause) : unchanged(found);
    if (committed) return committed;
  }
  throw new AppError(
    'CONCURRENT_MODIFICATION',
    `Subscription ${subscriptionId} is being changed by another request; retry`,
    {
      retryable: true,
    },
  );
}

/** A subscription as commitChange read it: its record, and its other items when asked for them. */
type FoundSubscription = Omit<CommittedChange, 'statusChange' | 'refused'>;

async function readForChange(
  appId: string,
  subscriptionId: string,
  withPayment: boolean | undefined,
): Promise<FoundSubscription> {
  const found = withPayment
    ? await getSubscription(appId, subscriptionId)
    : await getSubscriptionRecord(appId, subscriptionId).then((record) => record && { record });
  if (!found) throw new AppError('SUBSCRIPTION_NOT_FOUND', `Subscription ${subscriptionId} not found`);
  return found;
}

/** The subscription as read, nothing of the change written; `refused`: the alsoWrite item that stopped it. */
const unchanged = (found: FoundSubscription, refused?: TransactionWrite): CommittedChange => ({
  statusChange: null,
  refused,
  ...found,
});

/** Writes a planned change; undefined when a concurrent write won and it must be planned again on a fresh read. */
async function commitPlanned(
  appId: string,
  found: FoundSubscription,
  planned: PlannedChange,
  now: Date,
  cause: CommitOptions['cause'],
): Promise<CommittedChange | undefined> {
  const prepared = await prepareChange(appId, found.record, planned, now, cause);
  if (!prepared) {
    const refused = planned.alsoWrite?.length ? await writeTogether(planned.alsoWrite) : undefined;
    return unchanged(found, refused);
  }
  const outcome = await saveSubscriptionState(found.record, prepared.next, now, prepared.save);
  if (!outcome.saved) return refusal(appId, found, planned, outcome);
  return {
    statusChange: prepared.statusChange,
    record: outcome.record,
    // The payment item as the same transaction left it.
    payment: found.payment && { ...found.payment, ...planned.payment },
    transfers: found.transfers,
  };
}

/** What a refused write answers: the refusal, or undefined to plan again on a fresh read. */
async function refusal(
  appId: string,
  found: FoundSubscription,
  planned: PlannedChange,
  outcome: Extract<SaveOutcome, { saved: false }>,
): Promise<CommittedChange | undefined> {
  switch (outcome.reason) {
    case 'version_conflict':
      return undefined;
    case 'owned_by_another_user':
      throw new AppError('RECEIPT_ALREADY_USED', 'This purchase belongs to another user');
    case 'also_write_refused':
      return unchanged(found, outcome.item);
    case 'transaction_bound': {
      // Bound to this subscription already: a retry of the change, which is made.
      const free = await requireTransactionFree(appId, found.record.id, planned.bindTransaction!);
      return free === 'already_applied' ? unchanged(found) : undefined;
    }
  }
}

/** A planned change worked out on the subscription as read: the state it leads to, and how to save it. */
interface PreparedChange {
  next: SubscriptionState;
  statusChange: StatusChange | null;
  save: SaveOptions;
}

/**
 * What a planned change does to the subscription as read (through the lifecycle table, which
 * throws when it is not allowed), or undefined when it changes nothing.
 */
async function prepareChange(
  appId: string,
  current: SubscriptionRecord,
  planned: PlannedChange,
  now: Date,
  cause: CommitOptions['cause'],
): Promise<PreparedChange | undefined> {
  const { command, payment, storeState, bindTransaction } = planned;
  const { next, statusChange, refund, renewal, refundReversed } =
    'decided' in planned ? planned.decided : applyLifecycleCommand(current, planned.command, now);
  // A later period of a transaction already recorded (the store extended it) is no payment.
  const paid = { refund, renewal: renewal && (!storeState || bindTransaction !== undefined), refundReversed };
  const recordPatch = storeState ? await storeRecordPatchOf(appId, current, storeState, paid.renewal) : {};
  const changes =
    statusChange || payment || refund || refundReversed || Object.keys(recordPatch).length > 0 || moved(current, next);
  if (!changes) return undefined;
  const updated = { ...current, ...next, ...recordPatch };
  const storeEvents =
    command.type === 'sync'
      ? { kinds: storeEventsOf(current, updated, paid), transactionId: storeState?.transaction_id ?? null }
      : undefined;
  return {
    next,
    statusChange,
    save: {
      statusChange,
      payment,
      bindTransaction,
      bindOwner: planned.bindOwner,
      revenue: revenueOfChange(current, next, command, paid, planned.price ?? updated.price),
      recordPatch,
      storeEvents,
      alsoWrite: planned.alsoWrite,
      cause: { ...cause, action: command.type },
    },
  };
}

/** Whether the lifecycle fields differ from the record's. */
const moved = (current: SubscriptionRecord, next: SubscriptionState) =>
  (Object.keys(next) as (keyof SubscriptionState)[]).some((field) => next[field] !== current[field]);

/** The record fields a store state changes: its product and price, and a new product's billing period. */
async function storeRecordPatchOf(
  appId: string,
  current: SubscriptionRecord,
  storeState: StorePurchaseState,
  paidRenewal: boolean,
): Promise<RecordPatch> {
  const patch: RecordPatch = storeRecordPatch(current, storeState, paidRenewal);
  // A product changed by the store (an upgrade) is billed by its own period from now on.
  if (patch.product_id) {
    const billingPeriod = (await getProduct(appId, patch.product_id))?.billing_period;
    if (billingPeriod && billingPeriod !== current.billing_period) patch.billing_period = billingPeriod;
  }
  return patch;
}

/**
 * The writes of a planned change of the subscription as read, for a transaction that carries
 * more (a takeover's end of the previous owner's subscription, written with the new owner's):
 * its alsoWrite items alone when it changes nothing. Throws as commitChange does when the
 * lifecycle refuses the command.
 */
export async function changeWrites(
  appId: string,
  current: SubscriptionRecord,
  planned: PlannedChange,
  cause: CommitOptions['cause'],
  now = new Date(),
): Promise<TransactionWrite[]> {
  const prepared = await prepareChange(appId, current, planned, now, cause);
  if (!prepared) return [...(planned.alsoWrite ?? [])];
  return subscriptionStateWrites(current, prepared.next, now, prepared.save).writes;
}

/**
 * Applies a change and answers with the subscription's detail as the change left it (the API's
 * response body), built from the items read and written rather than read again.
 */
async function changeSubscription(
  appId: string,
  subscriptionId: string,
  plan: (current: SubscriptionRecord, now: Date) => PlannedChange | Promise<PlannedChange>,
): Promise<SubscriptionDetail> {
  const { record, payment, transfers } = await commitChange(appId, subscriptionId, plan, {
    withPayment: true,
    cause: { by: 'api' },
  });
  return subscriptionDetailOf(record, payment!, transfers!);
}

/**
 * A transaction id pays for one subscription. Bound to another one: RECEIPT_ALREADY_USED. Bound to
 * this one already: returns 'already_applied' (the request is a retry and must change nothing).
 */
async function requireTransactionFree(
  appId: string,
  subscriptionId: string,
  transactionId: string,
): Promise<'free' | 'already_applied'> {
  const binding = await getTransactionBinding(appId, transactionId);
  if (!binding) return 'free';
  if (binding.subscription_id === subscriptionId) return 'already_applied';
  throw new AppError('RECEIPT_ALREADY_USED', `Transaction ${transactionId} belongs to another subscription`);
}

/**
 * The sweeper's step for one subscription: whatever the clock has made due (expiry, end of a
 * pause). Returns true when the status changed.
 */
export async function advanceSubscriptionClock(appId: string, subscriptionId: string): Promise<boolean> {
  const { statusChange } = await commitChange(
    appId,
    subscriptionId,
    (current) => ({ command: { type: 'time_passes', storeMarginMs: storeMarginMs(current) } }),
    { cause: { by: 'sweeper' } },
  );
  return statusChange !== null;
}

export function updateSubscription(
  appId: string,
  subscriptionId: string,
  body: UpdateSubscriptionBody,
): Promise<SubscriptionDetail> {
  return changeSubscription(appId, subscriptionId, (current, now) => {
    const command = { type: 'update', ...body } as const;
    return { command, decided: applyCommand(current, command, now) };
  });
}

/** A paid renewal. Without expires_at the period is extended by the product's billing period. */
export async function renewSubscription(
  appId: string,
  subscriptionId: string,
  body: RenewSubscriptionBody,
): Promise<SubscriptionDetail> {
  if (
    body.transaction_id &&
    (await requireTransactionFree(appId, subscriptionId, body.transaction_id)) === 'already_applied'
  ) {
    return getSubscriptionDetail(appId, subscriptionId);
  }
  return changeSubscription(appId, subscriptionId, async (current, now) => {
    let expiresAt = body.expires_at;
    if (!expiresAt) {
      const product = await requireProduct(appId, current.product_id);
      expiresAt = addBillingPeriod(new Date(current.expires_at), product.billing_period).toISOString();
    }
    return {
      command: { type: 'renew', expires_at: expiresAt },
      payment: {
        last_payment: now.toISOString(),
        ...(body.transaction_id ? { transaction_id: body.transaction_id } : {}),
        ...(body.receipt_data ? { receipt_data: body.receipt_data } : {}),
      },
      bindTransaction: body.transaction_id,
    };
  });
}

export function pauseSubscription(
  appId: string,
  subscriptionId: string,
  body: PauseSubscriptionBody,
): Promise<SubscriptionDetail> {
  return changeSubscription(appId, subscriptionId, () => ({
    command: { type: 'pause', duration: body.pause_duration, unit: body.unit, reason: body.reason },
  }));
}

export function resumeSubscription(appId: string, subscriptionId: string): Promise<SubscriptionDetail> {
  return changeSubscription(appId, subscriptionId, () => ({ command: { type: 'resume' } }));
}

export function cancelSubscription(
  appId: string,
  subscriptionId: string,
  body: CancelSubscriptionBody,
): Promise<SubscriptionDetail> {
  return changeSubscription(appId, subscriptionId, () => ({
    command: { type: 'cancel', immediate: body.immediate, refund: body.refund, reason: body.reason },
  }));
}

export const listAppProducts = (appId: string): Promise<Product[]> => listProducts(appId);
