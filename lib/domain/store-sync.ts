/**
 * What the store's truth about a purchase does to this app's subscriptions (pure). Notifications,
 * status queries and verified receipts all bring a StorePurchaseState; this decides which
 * subscription it is about and what happens to it; the lifecycle table's `sync` column
 * (subscription-state.ts) decides the state that follows.
 *
 * | facts                                                                | decision                 |
 * | -------------------------------------------------------------------- | ------------------------ |
 * | the purchase already holds a state the store stated later (or same) | stale: nothing changes   |
 * | nobody owns the purchase, but the one it replaces is a user's        | insert: that user's new  |
 * |   (a plan change or resubscription under a new purchase token)       |   subscription; the old  |
 * |                                                                      |   one ends (replaces)    |
 * | nobody owns the purchase yet                                         | keep it on the purchase  |
 * | the owner's purchase refuses it (another product, another account)   | keep it on the purchase  |
 * | a refund (or its reversal) of an earlier period than the current one | refund_earlier: money of |
 * |   (Apple's refunded transaction, Google's voided order)              |   that period only       |
 * | its transaction pays for, or its purchase serves, a subscription     | sync that subscription   |
 * | that subscription has ended, the store now grants access, no billing | insert: a resubscription |
 * |   issue was pending (one was: it is a recovery, sync the same one)   |                          |
 *
 * Which subscription a transaction is about is decidePurchase's rule, asked for the purchase's owner.
 */
import type { BillingPeriod } from '../schemas/product.js';
import { type DecidedSubscription, decidePurchase, type StoredPurchase } from './purchase-decision.js';
import type { StoreEnvironment, StorePurchaseState, VerifiedTransaction } from './store-purchase.js';
import type { StoreFacts, SubscriptionState } from './subscription-state.js';

export const SUBSCRIPTION_ENVIRONMENTS = ['production', 'sandbox', 'test'] as const;
export type SubscriptionEnvironment = (typeof SUBSCRIPTION_ENVIRONMENTS)[number];

export const environmentOf = (environment: StoreEnvironment): SubscriptionEnvironment =>
  (({ Production: 'production', Sandbox: 'sandbox', Test: 'test' }) as const)[environment];

/** A store's test accounts pay no money: their purchases stay out of revenue statistics. */
export const countsAsRevenue = (environment: SubscriptionEnvironment): boolean => environment !== 'sandbox';

/** What the lifecycle needs of the store's state. */
export function storeFacts(state: StorePurchaseState): StoreFacts {
  return {
    expires_at: state.expires_at,
    auto_renew: state.renewal?.auto_renew ?? null,
    billing_issue: state.renewal?.billing_issue ?? false,
    grace_period_expires_at: state.renewal?.billing_issue ? state.renewal.grace_period_expires_at : null,
    revoked: state.revoked,
    refund_reversed: state.refund_reversed === true,
  };
}

/**
 * What the store says of a purchase it will not renew, whose state it no longer tells (Google's
 * voided token it forgot; the token a plan change replaced): its period ends at `expiresAt`, and
 * `revoked` says whether it was refunded.
 */
export const endedByStore = (expiresAt: string, revoked: boolean): StoreFacts => ({
  expires_at: expiresAt,
  auto_renew: false,
  billing_issue: false,
  grace_period_expires_at: null,
  revoked,
  refund_reversed: false,
});

/** The store grants access now: not refunded, and its period (or grace period) runs. */
export function grantsAccess(state: StorePurchaseState, now: Date): boolean {
  const grace = state.renewal?.billing_issue ? state.renewal.grace_period_expires_at : null;
  const ends = Math.max(Date.parse(state.expires_at), grace === null ? 0 : Date.parse(grace));
  return !state.revoked && ends > now.getTime();
}

/** A subscription as the store decision needs it. */
export interface SyncedSubscription extends DecidedSubscription {
  billing_issue_at: string | null;
}

export interface StoredStorePurchase<S extends SyncedSubscription> extends StoredPurchase<S> {
  /** The state the purchase holds (the latest applied). */
  storeState: StorePurchaseState | undefined;
  /** Who owns the purchase this one replaces (the state's linked_original_transaction_id). */
  linkedOwned?: { user_id: string; subscription_id: string } | undefined;
}

/**
 * A refund flow's state about an earlier period than the subscription's current one. Apple's
 * REFUND and REFUND_REVERSED carry the transaction refunded, which may be an earlier renewal's: its
 * period ends before the one the purchase last stated (another transaction's) or the subscription
 * runs to. Google's voided purchase names its order: an earlier period's unless it is the latest.
 */
export function refundsEarlierPeriod(
  state: StorePurchaseState,
  held: StorePurchaseState | undefined,
  subscription: Pick<SyncedSubscription, 'expires_at'>,
): boolean {
  if (!state.revoked && !state.refund_reversed) return false;
  if (state.refunded_transaction_id !== undefined) return state.refunded_transaction_id !== state.transaction_id;
  const laterEnds = [subscription.expires_at];
  if (held && held.transaction_id !== state.transaction_id) laterEnds.push(held.expires_at);
  return laterEnds.some((end) => Date.parse(state.expires_at) < Date.parse(end));
}

/** What verifying a transaction of a purchase nobody owned yet starts from (verifiedPurchaseStart). */
export type VerifiedPurchaseStart =
  /** The store refunded this transaction, or the purchase's period after it: the receipt is refused. */
  | { kind: 'refunded' }
  | {
      kind: 'start';
      /** The store's later word on the purchase to start from; undefined: the transaction alone. */
      from: StorePurchaseState | undefined;
      /**
       * The store refunded an earlier period: its money goes back with the purchase's first write.
       * price null: the transaction did not say (Google's voided order), the subscription's is taken.
       */
      earlierRefund?: { facts: StoreFacts; price: number | null } | undefined;
    };

/**
 * A verified transaction of a purchase nobody owned yet, and the state a store notification kept
 * on that purchase meanwhile (decideStoreState's `keep`). A refund refuses the transaction it is
 * about, never a later one: a user who paid for the later period gets it.
 *
 * | the state kept on the purchase                                        | start                        |
 * | --------------------------------------------------------------------- | ---------------------------- |
 * | none, or stated before the transaction was bought                     | the transaction              |
 * | a refund of this transaction (Apple: the state's own; Google: its     | refunded: refused            |
 * |   order voided), or of another one bought after it                    |                              |
 * | a refund of an earlier period (Apple: a transaction bought before     | that period's money back;    |
 * |   this one; Google: an earlier order voided)                          |   the rows below, unrefunded |
 * | about a transaction bought before this one (e.g. its refund reversed) | the transaction, with the    |
 * |                                                                       |   store's renewal info       |
 * | anything else                                                         | the kept state               |
 */
export function verifiedPurchaseStart(
  transaction: VerifiedTransaction,
  kept: StorePurchaseState | undefined,
): VerifiedPurchaseStart {
  if (!kept || Date.parse(kept.as_of) <= Date.parse(transaction.purchase_date))
    return { kind: 'start', from: undefined };
  // A transaction bought before this one (this one itself never is) paid for an earlier period.
  const aboutEarlierPeriod = Date.parse(kept.purchase_date) < Date.parse(transaction.purchase_date);
  let earlierRefund: { facts: StoreFacts; price: number | null } | undefined;
  if (kept.revoked) {
    const refundsEarlier =
      kept.refunded_transaction_id === undefined
        ? aboutEarlierPeriod
        : kept.refunded_transaction_id !== transaction.transaction_id;
    if (!refundsEarlier) return { kind: 'refunded' };
    earlierRefund = {
      facts: { ...storeFacts(kept), earlier_period: true },
      // Apple's state is the transaction refunded, priced; Google's is the purchase now.
      price: kept.refunded_transaction_id === undefined && !kept.trial ? kept.price : null,
    };
  }
  const current: StorePurchaseState = { ...kept, revoked: false, refunded_transaction_id: undefined };
  return {
    kind: 'start',
    // An earlier period's word brings only the renewal info: the period is the transaction's.
    from: aboutEarlierPeriod ? { ...current, ...transaction, refund_reversed: undefined } : current,
    earlierRefund,
  };
}

/**
 * The state as it is applied: a refund of a purchase whose held state is not refunded is news
 * whatever the dates say (the store may date it before a state it sent later, or Google's push
 * before the read of another), so it is dated just after the held state. Only while the
 * notification's record is kept (`recordKeptMs`), which answers its redeliveries: a refund stated
 * longer ago than that is ordered by its date, so that replaying an old one changes nothing.
 */
export function datedAfterHeld(
  state: StorePurchaseState,
  held: StorePurchaseState | undefined,
  { now, recordKeptMs }: { now: Date; recordKeptMs: number },
): StorePurchaseState {
  if (!state.revoked || !held || held.revoked) return state;
  const heldAt = Date.parse(held.as_of);
  const statedAt = Date.parse(state.as_of);
  if (statedAt > heldAt || now.getTime() - statedAt >= recordKeptMs) return state;
  return { ...state, as_of: new Date(heldAt + 1).toISOString() };
}

export type StoreStateDecision<S extends SyncedSubscription> =
  | { kind: 'stale' }
  | { kind: 'keep'; reason: string }
  | { kind: 'read_subscription'; subscriptionId: string }
  | { kind: 'sync'; subscription: S }
  | { kind: 'refund_earlier'; subscription: S }
  | {
      kind: 'insert';
      userId: string;
      productId: string;
      price: number;
      currency: string;
      billingPeriod: BillingPeriod;
      /** The subscription of the purchase this one replaces (Google's plan change): it ends now. */
      replaces?: string;
    };

export function decideStoreState<S extends SyncedSubscription>(
  appId: string,
  state: StorePurchaseState,
  stored: StoredStorePurchase<S>,
  now: Date,
): StoreStateDecision<S> {
  if (stored.storeState && Date.parse(stored.storeState.as_of) >= Date.parse(state.as_of)) return { kind: 'stale' };
  if (!stored.owned && stored.linkedOwned) {
    // A new purchase replacing a user's (Google's new token): that user's, starting afresh.
    if (!stored.product) return { kind: 'keep', reason: `product ${state.product_id} is not in this app's catalogue` };
    if (!grantsAccess(state, now)) return { kind: 'keep', reason: 'the purchase grants no access' };
    const paid = !state.trial && state.price !== null && state.currency !== null;
    return {
      kind: 'insert',
      userId: stored.linkedOwned.user_id,
      replaces: stored.linkedOwned.subscription_id,
      productId: stored.product.id,
      price: paid ? state.price! : stored.product.price,
      currency: paid ? state.currency! : stored.product.currency,
      billingPeriod: stored.product.billing_period,
    };
  }
  if (!stored.owned) return { kind: 'keep', reason: 'nobody has verified this purchase yet' };
  const synced = (subscription: S): StoreStateDecision<S> =>
    refundsEarlierPeriod(state, stored.storeState, subscription)
      ? { kind: 'refund_earlier', subscription }
      : { kind: 'sync', subscription };
  // Which subscription the transaction is about does not depend on a refund: decided as if none.
  const decision = decidePurchase(
    { ...state, revoked: false },
    // Stryker disable next-line BooleanLiteral: the claim is the owner's own, so decidePurchase never reads transfers
    { appId, userId: stored.owned.user_id, transfers: false },
    stored,
  );
  switch (decision.kind) {
    case 'reject':
    case 'refund':
      return { kind: 'keep', reason: decision.message };
    case 'read_subscription':
      return { kind: 'read_subscription', subscriptionId: decision.subscriptionId };
    case 'answer':
    case 'renew':
    case 'activate':
      return synced(decision.subscription);
    case 'insert': {
      const ended = stored.subscription;
      const recovers = ended?.status === 'expired' && ended.billing_issue_at !== null;
      if (ended && (recovers || !grantsAccess(state, now))) return synced(ended);
      // Stryker disable next-line ConditionalExpression,StringLiteral: false whenever reached, an owned purchase's insert comes with its subscription
      if (!grantsAccess(state, now)) return { kind: 'keep', reason: 'the purchase grants no access' };
      const { productId, price, currency, billingPeriod } = decision;
      return { kind: 'insert', userId: stored.owned.user_id, productId, price, currency, billingPeriod };
    }
  }
}

/** The record fields besides the lifecycle that the store's state sets: the product, the price paid. */
export interface PricedProduct {
  product_id: string;
  price: number;
  currency: string;
}

/**
 * A plan change (the store's latest transaction is for another product) moves the subscription to
 * that product; a renewal or plan change charges the price the store reports for that transaction.
 */
export function storeRecordPatch(
  record: PricedProduct,
  state: StorePurchaseState,
  renewal: boolean,
): Partial<PricedProduct> {
  const productChanged = state.product_id !== record.product_id;
  const patch: Partial<PricedProduct> = productChanged ? { product_id: state.product_id } : {};
  if ((renewal || productChanged) && !state.trial && state.price !== null && state.currency !== null) {
    if (state.price !== record.price) patch.price = state.price;
    if (state.currency !== record.currency) patch.currency = state.currency;
  }
  return patch;
}

/** Events beyond the status change that a store-driven change sends (EVENT_KINDS in lib/events/schemas.ts). */
export const STORE_EVENT_KINDS = [
  'renewed',
  'auto_renew_changed',
  'billing_issue',
  'refunded',
  'refund_reversed',
  'product_changed',
] as const;
export type StoreEventKind = (typeof STORE_EVENT_KINDS)[number];

type EventSide = Pick<SubscriptionState, 'status' | 'auto_renew' | 'billing_issue_at'> & { product_id: string };

/** The events a change the store made sends, in this order; the status change is announced on its own. */
export function storeEventsOf(
  before: EventSide,
  after: EventSide,
  result: { renewal: boolean; refund: boolean; refundReversed: boolean },
): StoreEventKind[] {
  const events: StoreEventKind[] = [];
  if (result.renewal) events.push('renewed');
  if (result.refund) events.push('refunded');
  if (result.refundReversed) events.push('refund_reversed');
  if (after.product_id !== before.product_id) events.push('product_changed');
  // Renewal turned off or on while the subscription runs; an end turns it off and a return from
  // the end (a recovery) on again, and the status change says so itself.
  const running = (side: EventSide) => side.status === 'active' || side.status === 'paused';
  if (running(before) && running(after) && after.auto_renew !== before.auto_renew) events.push('auto_renew_changed');
  if (after.billing_issue_at !== null && before.billing_issue_at === null) events.push('billing_issue');
  return events;
}
