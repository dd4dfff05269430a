/**
 * The one path for the store's truth: a store notification, a status the sweeper asked the store
 * for, each brings a StorePurchaseState of one purchase; this decides what it does
 * (lib/domain/store-sync.ts) and applies it in one transaction: the subscription's new state
 * (through the lifecycle table's `sync` column), its revenue, its events in the outbox, the state
 * kept on the purchase, and the notification's record.
 *
 * - Idempotent: a notification is applied once (its record is written on condition it is new);
 *   a redelivery changes nothing and sends no webhook.
 * - Ordered: a state the store stated before the one the purchase holds changes nothing, so
 *   notifications arriving out of order never move a subscription back.
 * - A purchase nobody has verified yet keeps the state; verifying it later starts from it.
 * - One read of the purchase (with the notification's record, the product and the transaction's
 *   binding) and one of its subscription; one transaction.
 */
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { batchGetConsistent } from '../data/batch.js';
import type { TransactItem } from '../data/client.js';
import * as keys from '../data/entity-keys.js';
import {
  type PurchaseQuery,
  purchaseLookupKeys,
  purchaseLookupOf,
  purchaseStatePart,
  toOwnedPurchase,
} from '../data/purchase-ownership.js';
import {
  NOTIFICATION_RETENTION_MS,
  type NotificationOutcome,
  notificationKey,
  notificationRecordPut,
  recordNotification,
} from '../data/store-notifications.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import { getSubscriptionRecord } from '../data/subscription-queries.js';
import { type ChangeOrigin, insertSubscription, writeTogether } from '../data/subscription-writes.js';
import type { TableKey } from '../data/table-keys.js';
import { notificationTypeOf } from '../domain/history-entries.js';
import type { StoreNotification, StorePurchaseState } from '../domain/store-purchase.js';
import {
  datedAfterHeld,
  decideStoreState,
  endedByStore,
  environmentOf,
  type StoredStorePurchase,
  type StoreStateDecision,
  storeFacts,
} from '../domain/store-sync.js';
import { commitChange, verifiedSubscription } from './subscriptions.js';

/** What applying the store's word did; `duplicate`: the notification was applied before. */
export type StoreTruthOutcome = NotificationOutcome | 'duplicate';

/** The notification's record, written with what it changes (none without a notification: a status query). */
const recorded = (
  appId: string,
  notification: StoreNotification | undefined,
  outcome: NotificationOutcome,
  now: Date,
): TransactItem[] => (notification ? [notificationRecordPut(appId, notification, outcome, now)] : []);

/** Lost races (a concurrent notification of the same purchase) are decided again on a fresh read. */
const MAX_ATTEMPTS = 4;

/**
 * What deciding on a store state reads, in one BatchGetItem: the purchase (its product, its owner,
 * the transaction's binding), the notification's record, and the purchase it replaces if any.
 */
export function storeStateKeys(
  appId: string,
  state: StorePurchaseState,
  notification?: Pick<StoreNotification, 'store' | 'notification_id'>,
): TableKey[] {
  const linked = state.linked_original_transaction_id;
  return [
    ...purchaseLookupKeys(appId, queryOf(state)),
    ...(notification ? [notificationKey(appId, notification)] : []),
    ...(linked ? [keys.purchase(appId, linked)] : []),
  ];
}

const queryOf = (state: StorePurchaseState): PurchaseQuery => ({
  productId: state.product_id,
  owner: { store: state.store, original_transaction_id: state.original_transaction_id },
  transactionId: state.transaction_id,
});

/** How a store state is applied: the notification that brought it, and the clock. */
export interface ApplyOptions {
  /** Absent when the sweeper asked the store (services/expiry.ts). */
  notification?: StoreNotification;
  now?: Date;
  /**
   * The items of storeStateKeys, when the caller read them with its own (the app and its
   * settings), for the first attempt.
   */
  read?: (Record<string, unknown> | undefined)[];
}

export async function applyStoreNotification(
  appId: string,
  notification: StoreNotification,
  { now = new Date(), read }: Omit<ApplyOptions, 'notification'> = {},
): Promise<StoreTruthOutcome> {
  if (!notification.state) {
    return (await recordNotification(appId, notification, 'recorded', now)) ? 'recorded' : 'duplicate';
  }
  return applyStoreState(appId, notification.state, { notification, now, read });
}

export async function applyStoreState(
  appId: string,
  stated: StorePurchaseState,
  { notification, now = new Date(), read }: ApplyOptions = {},
): Promise<StoreTruthOutcome> {
  const application: Application = { appId, notification, now, cause: causeOf(notification) };
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const items = attempt === 1 && read ? read : await batchGetConsistent(storeStateKeys(appId, stated, notification));
    const found = storedOf(stated, notification, items);
    if (found === 'duplicate') return 'duplicate';
    const state = datedAfterHeld(stated, found.storeState, { now, recordKeptMs: NOTIFICATION_RETENTION_MS });
    const { stored, decision } = await decide(appId, state, found, now);
    const outcome = await applyDecision(application, state, stored, decision);
    if (outcome) return outcome;
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'the purchase is being changed concurrently; retry', { retryable: true });
}

/** One application of the store's word, as its cases carry it out. */
interface Application {
  appId: string;
  /** Absent when the sweeper asked the store (services/expiry.ts). */
  notification: StoreNotification | undefined;
  now: Date;
  /** What makes the change (the subscription's history). */
  cause: Omit<ChangeOrigin, 'action'>;
}

type Stored = StoredStorePurchase<SubscriptionRecord>;
type Decision = StoreStateDecision<SubscriptionRecord>;
type DecisionOf<K extends Decision['kind']> = Extract<Decision, { kind: K }>;

/** What a case did, or undefined when it lost a race (a concurrent notification) and is decided again on a fresh read. */
type CaseOutcome = StoreTruthOutcome | undefined;

const causeOf = (notification: StoreNotification | undefined): Omit<ChangeOrigin, 'action'> =>
  notification ? { by: 'store_notification', notification: notificationTypeOf(notification) } : { by: 'sweeper' };

/** The notification's record of this outcome, written with what it changes. */
const recordedAs = ({ appId, notification, now }: Application, outcome: NotificationOutcome) =>
  recorded(appId, notification, outcome, now);

/** What is stored, from the items of storeStateKeys in its order; 'duplicate' when the notification was recorded before. */
function storedOf(
  stated: StorePurchaseState,
  notification: StoreNotification | undefined,
  items: (Record<string, unknown> | undefined)[],
): Stored | 'duplicate' {
  const [product, owned, binding, ...rest] = items;
  const notificationRecord = notification ? rest.shift() : undefined;
  if (notificationRecord) return 'duplicate';
  const linkedItem = stated.linked_original_transaction_id ? rest.shift() : undefined;
  return { ...purchaseLookupOf([product, owned, binding]), linkedOwned: toOwnedPurchase(linkedItem) };
}

/** The decision, with the subscription it rests on read when it needs one. */
async function decide(
  appId: string,
  state: StorePurchaseState,
  stored: Stored,
  now: Date,
): Promise<{ stored: Stored; decision: Decision }> {
  const decision = decideStoreState(appId, state, stored, now);
  if (decision.kind !== 'read_subscription') return { stored, decision };
  const subscription = await getSubscriptionRecord(appId, decision.subscriptionId);
  if (!subscription) throw new Error(`purchase points at missing subscription ${decision.subscriptionId}`);
  const withSubscription = { ...stored, subscription };
  return { stored: withSubscription, decision: decideStoreState(appId, state, withSubscription, now) };
}

function applyDecision(
  application: Application,
  state: StorePurchaseState,
  stored: Stored,
  decision: Decision,
): Promise<CaseOutcome> {
  switch (decision.kind) {
    case 'read_subscription':
      throw new Error('decided without the subscription it rests on');
    case 'stale':
      return recordStale(application);
    case 'keep':
      return keepOnPurchase(application, state, decision.reason);
    case 'sync':
      return syncSubscription(application, state, stored, decision.subscription);
    case 'refund_earlier':
      return refundEarlierPeriod(application, state, decision.subscription);
    case 'insert':
      return insertResubscription(application, state, decision);
  }
}

/** Older than what the purchase holds: nothing changes but the notification's record. */
async function recordStale({ appId, notification, now }: Application): Promise<CaseOutcome> {
  if (!notification) return 'stale';
  return (await recordNotification(appId, notification, 'stale', now)) ? 'stale' : 'duplicate';
}

/** About no subscription (yet): the state stays on the purchase, where verifying it later starts from. */
async function keepOnPurchase(
  application: Application,
  state: StorePurchaseState,
  reason: string,
): Promise<CaseOutcome> {
  logger.info('store state kept on the purchase', {
    store: state.store,
    original_transaction_id: state.original_transaction_id,
    reason,
  });
  const refused = await writeTogether([
    purchaseStatePart(application.appId, state),
    ...recordedAs(application, 'kept'),
  ]);
  return refused ? undefined : 'kept';
}

/**
 * The subscription follows the store. A transaction not yet recorded is this subscription's from
 * now on, and its latest payment; one for another product (a plan change at once) pays a new
 * period even if it ends sooner.
 */
async function syncSubscription(
  application: Application,
  state: StorePurchaseState,
  stored: Stored,
  subscription: SubscriptionRecord,
): Promise<CaseOutcome> {
  const newTransaction = stored.binding === undefined;
  const newPeriod = newTransaction && state.product_id !== subscription.product_id;
  const committed = await commitChange(
    application.appId,
    subscription.id,
    () => ({
      command: { type: 'sync', facts: { ...storeFacts(state), new_period: newPeriod } },
      storeState: state,
      bindTransaction: newTransaction ? state.transaction_id : undefined,
      payment: newTransaction
        ? { transaction_id: state.transaction_id, ...(state.trial ? {} : { last_payment: state.purchase_date }) }
        : undefined,
      alsoWrite: [purchaseStatePart(application.appId, state), ...recordedAs(application, 'applied')],
    }),
    { current: subscription, cause: application.cause },
  );
  return committed.refused ? undefined : 'applied';
}

/**
 * A refund (or its reversal) of an earlier period: that period's money only. The current period
 * stands, and the purchase keeps the state of its latest transaction (not this earlier one's).
 */
async function refundEarlierPeriod(
  application: Application,
  state: StorePurchaseState,
  subscription: SubscriptionRecord,
): Promise<CaseOutcome> {
  // Apple's state is the transaction refunded; Google's is the purchase now (its voided order's price unknown).
  const refundedPrice = state.refunded_transaction_id === undefined && !state.trial ? state.price : null;
  const committed = await commitChange(
    application.appId,
    subscription.id,
    () => ({
      command: { type: 'sync', facts: { ...storeFacts(state), earlier_period: true } },
      price: refundedPrice ?? undefined,
      alsoWrite: recordedAs(application, 'applied'),
    }),
    { current: subscription, cause: application.cause },
  );
  return committed.refused ? undefined : 'applied';
}

/**
 * The owner subscribes again to the purchase (a resubscription): a new subscription. One that
 * replaces another purchase (Google's plan change) ends that one's first: its token grants
 * nothing more. A retry after a failure in between finds it ended and only inserts.
 */
async function insertResubscription(
  application: Application,
  state: StorePurchaseState,
  decision: DecisionOf<'insert'>,
): Promise<CaseOutcome> {
  const { appId, now, cause } = application;
  if (decision.replaces) await endReplacedSubscription(appId, decision.replaces, cause);
  const { record, payment, statusChange, revenue } = verifiedSubscription(
    appId,
    {
      user_id: decision.userId,
      product_id: decision.productId,
      platform: state.platform,
      price: decision.price,
      currency: decision.currency,
      billing_period: decision.billingPeriod,
      started_at: state.purchase_date,
      expires_at: state.expires_at,
      auto_renew: state.renewal?.auto_renew ?? true,
      trial_period: state.trial,
      trial_expires_at: state.trial ? state.expires_at : null,
      transaction_id: state.transaction_id,
      receipt_data: null,
      store: state.store,
      original_transaction_id: state.original_transaction_id,
      environment: environmentOf(state.environment),
    },
    state.trial ? {} : { last_payment: state.purchase_date },
    now,
    storeFacts(state),
  );
  const inserted = await insertSubscription(record, payment, {
    owner: queryOf(state).owner,
    ownerState: state,
    statusChange,
    revenue,
    alsoWrite: recordedAs(application, 'applied'),
    cause: { ...cause, action: 'create' },
  });
  return inserted.inserted ? 'applied' : undefined;
}

/**
 * The subscription of a purchase another replaces ends now (expired, renewal off), as the store's
 * word; one that has ended already stays as it is. A subscription erased since is nothing to end.
 */
async function endReplacedSubscription(
  appId: string,
  subscriptionId: string,
  cause: Omit<ChangeOrigin, 'action'>,
): Promise<void> {
  try {
    await commitChange(
      appId,
      subscriptionId,
      (current, now) => ({
        command: {
          type: 'sync',
          facts: endedByStore(new Date(Math.min(Date.parse(current.expires_at), now.getTime())).toISOString(), false),
        },
      }),
      { cause },
    );
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'SUBSCRIPTION_NOT_FOUND')) throw error;
  }
}

/**
 * The store revoked a purchase it no longer describes (Google voids a token, then forgets it):
 * the purchase as we know it is refunded, from the state it keeps or, without one, its
 * subscription's own period. A purchase we do not know is recorded, nothing else.
 */
export async function applyStoreRevocation(
  appId: string,
  notification: StoreNotification,
  originalTransactionId: string,
  { refundedTransactionId, now = new Date() }: { refundedTransactionId?: string | undefined; now?: Date } = {},
): Promise<StoreTruthOutcome> {
  const [purchase, recordedBefore] = await batchGetConsistent([
    keys.purchase(appId, originalTransactionId),
    notificationKey(appId, notification),
  ]);
  if (recordedBefore) return 'duplicate';
  const kept = purchase?.store_state as StorePurchaseState | undefined;
  if (kept) {
    // Dated after the kept state when it is not later (datedAfterHeld): a revocation is news.
    return applyStoreState(
      appId,
      {
        ...kept,
        revoked: true,
        as_of: notification.sent_at,
        ...(refundedTransactionId === undefined ? {} : { refunded_transaction_id: refundedTransactionId }),
      },
      { notification, now },
    );
  }
  const subscriptionId = toOwnedPurchase(purchase)?.subscription_id;
  if (!subscriptionId) {
    return (await recordNotification(appId, notification, 'recorded', now)) ? 'recorded' : 'duplicate';
  }
  const committed = await commitChange(
    appId,
    subscriptionId,
    (current) => ({
      command: {
        type: 'sync',
        facts: endedByStore(current.expires_at, true),
      },
      alsoWrite: recorded(appId, notification, 'applied', now),
    }),
    { cause: { by: 'store_notification', notification: notificationTypeOf(notification) } },
  );
  return committed.refused ? 'duplicate' : 'applied';
}
