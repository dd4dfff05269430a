/**
 * What a store-verified transaction does to this app's subscriptions (pure): every rule of
 * binding a purchase to a user, one row each, decided on the transaction, on what is stored
 * about its purchase and on who asks. The caller reads, the caller writes; nothing here does I/O.
 *
 * | facts                                                                  | decision                        |
 * | ---------------------------------------------------------------------- | ------------------------------- |
 * | issued for another platform than the one claimed                       | reject INVALID_RECEIPT          |
 * | revoked (refunded) by the store                                        | refund, then INVALID_RECEIPT    |
 * | the claimed transaction_id is neither its transaction nor its original | reject INVALID_RECEIPT          |
 * | another product than the one the client expected                       | reject INVALID_RECEIPT          |
 * | its account token names another user                                   | reject RECEIPT_ALREADY_USED     |
 * | its product is not in the catalogue                                    | reject INVALID_RECEIPT          |
 * | its purchase is another user's, no transfer                            | reject RECEIPT_ALREADY_USED     |
 * | its purchase is another user's, restore under the transfer policy      | take over (and go on below)     |
 * | the transaction pays for another user's subscription                   | reject RECEIPT_ALREADY_USED     |
 * | it pays for this user's subscription, still pending_verification       | activate it                     |
 * | it pays for this user's subscription, otherwise                        | answer it: nothing changes      |
 * | a later one of this user's purchase, subscription active, expires later| renew                           |
 * | a later one of this user's purchase, subscription running, otherwise   | answer it: nothing changes      |
 * | a later one of this user's purchase, subscription ended                | insert (a resubscription)       |
 * | a purchase nobody owns, or one taken over                              | insert (a transfer: no revenue) |
 *
 * Rows about a subscription need its record: without it the decision is read_subscription, and the
 * caller decides again with the record read.
 */
import type { ErrorKind } from '../core/errors.js';
import type { BillingPeriod } from '../schemas/product.js';
import { accountTokenAllows } from './app-account-token.js';
import type { VerifiedTransaction } from './store-purchase.js';
import type { SubscriptionStatus } from './subscription-state.js';

/** The transaction as its store vouches for it (a verified receipt, or a signed store notification). */
export type StoreTransaction = Pick<
  VerifiedTransaction,
  | 'platform'
  | 'transaction_id'
  | 'original_transaction_id'
  | 'product_id'
  | 'expires_at'
  | 'trial'
  | 'price'
  | 'currency'
  | 'revoked'
  | 'app_account_token'
>;

/** Who asks to have the transaction bound, and what they claim about it. */
export interface PurchaseClaim {
  appId: string;
  userId: string;
  /** The platform the client bought on; a receipt is valid only for that one. */
  platform?: string | undefined;
  /** The transaction the client names: its own or its purchase's original transaction id. */
  transactionId?: string | undefined;
  /** The product the client believes it bought. */
  expectedProductId?: string | undefined;
  /** A restore under the app's `transfer` policy: another user's purchase moves to this user. */
  transfers: boolean;
}

/** A subscription as far as the decision needs it. */
export interface DecidedSubscription {
  id: string;
  user_id: string;
  status: SubscriptionStatus;
  expires_at: string;
}

/** What is stored about the transaction and its purchase. */
export interface StoredPurchase<S extends DecidedSubscription> {
  /** The catalogue product the transaction is for. */
  product: { id: string; price: number; currency: string; billing_period: BillingPeriod } | undefined;
  /** Who owns the store purchase, and the subscription it serves. */
  owned: { user_id: string; subscription_id: string } | undefined;
  /** The subscription the transaction already pays for. */
  binding: { user_id: string; subscription_id: string } | undefined;
  /** The subscription a read_subscription decision asked for, as read. */
  subscription?: S | undefined;
}

/** A purchase moving to another user: whose it was. */
export interface PurchaseTakeOver {
  fromUserId: string;
  fromSubscriptionId: string;
}

/** Taking a purchase over ends the previous owner's subscription first, whatever follows. */
interface TakesOver {
  takeOver?: PurchaseTakeOver | undefined;
}

export type PurchaseDecision<S extends DecidedSubscription> =
  | { kind: 'reject'; code: Extract<ErrorKind, 'INVALID_RECEIPT' | 'RECEIPT_ALREADY_USED'>; message: string }
  /** The store took the money back: the subscription it paid for ends with a refund, and the receipt is refused. */
  | { kind: 'refund'; code: 'INVALID_RECEIPT'; message: string }
  /** The decision rests on this subscription: read it and decide again. */
  | ({ kind: 'read_subscription'; subscriptionId: string } & TakesOver)
  /** Already verified: the same result, nothing changes. */
  | ({ kind: 'answer'; subscription: S } & TakesOver)
  /** A later transaction of a running purchase: the period extends to the transaction's expiry. */
  | { kind: 'renew'; subscription: S; expiresAt: string }
  /** A pending_verification record of this transaction becomes active; bindOwner: it becomes the purchase's. */
  | ({ kind: 'activate'; subscription: S; expiresAt: string; bindOwner: boolean } & TakesOver)
  /**
   * A new subscription, active at once, bound to the transaction and the purchase. A trial is
   * priced at the catalogue's price; a transfer brings no revenue (it was counted when bought).
   */
  | ({
      kind: 'insert';
      productId: string;
      price: number;
      currency: string;
      billingPeriod: BillingPeriod;
      revenue: 'new_purchase' | 'transferred';
    } & TakesOver);

const reject = (code: 'INVALID_RECEIPT' | 'RECEIPT_ALREADY_USED', message: string) =>
  ({ kind: 'reject', code, message }) as const;

/** Another user owns the purchase (also what the caller answers when the table refuses its write for that reason). */
export const ownedByAnotherUser = () => reject('RECEIPT_ALREADY_USED', 'This purchase belongs to another user');

/** A refusal because the purchase is another user's (its owner, its binding or its account token). */
export const refusedAsAnotherUsers = (decision: PurchaseDecision<DecidedSubscription>): boolean =>
  decision.kind === 'reject' && decision.code === 'RECEIPT_ALREADY_USED';

/**
 * The rows on the transaction alone, before anything stored is read: a refusal (or a refund), or
 * undefined when the transaction may be bound to this user.
 */
export function screenTransaction(
  transaction: StoreTransaction,
  claim: PurchaseClaim,
): Extract<PurchaseDecision<never>, { kind: 'reject' | 'refund' }> | undefined {
  if (claim.platform !== undefined && transaction.platform !== claim.platform) {
    return reject('INVALID_RECEIPT', `the receipt was issued for ${transaction.platform}, not ${claim.platform}`);
  }
  if (transaction.revoked) {
    return { kind: 'refund', code: 'INVALID_RECEIPT', message: 'the store has revoked or refunded this purchase' };
  }
  if (
    claim.transactionId &&
    claim.transactionId !== transaction.transaction_id &&
    claim.transactionId !== transaction.original_transaction_id
  ) {
    return reject('INVALID_RECEIPT', 'transaction_id is not a transaction of this receipt');
  }
  if (claim.expectedProductId !== undefined && claim.expectedProductId !== transaction.product_id) {
    return reject(
      'INVALID_RECEIPT',
      `the receipt is for product ${transaction.product_id}, not ${claim.expectedProductId}`,
    );
  }
  if (!accountTokenAllows(transaction.app_account_token, claim.appId, claim.userId)) {
    return reject('RECEIPT_ALREADY_USED', 'This purchase was made for another user (the app account token it carries)');
  }
  return undefined;
}

/** Every row, in order: see the table above. */
export function decidePurchase<S extends DecidedSubscription>(
  transaction: StoreTransaction,
  claim: PurchaseClaim,
  stored: StoredPurchase<S>,
): PurchaseDecision<S> {
  const screened = screenTransaction(transaction, claim);
  if (screened) return screened;
  const { product, owned, binding, subscription } = stored;
  if (!product) {
    return reject('INVALID_RECEIPT', `product ${transaction.product_id} of the receipt is not in this app's catalogue`);
  }
  let takeOver: PurchaseTakeOver | undefined;
  if (owned && owned.user_id !== claim.userId) {
    if (!claim.transfers) return ownedByAnotherUser();
    takeOver = { fromUserId: owned.user_id, fromSubscriptionId: owned.subscription_id };
  }
  // Taken over, the transaction's binding to the previous owner's subscription moves with the purchase.
  const bound = takeOver && binding?.subscription_id === takeOver.fromSubscriptionId ? undefined : binding;
  if (bound && bound.user_id !== claim.userId) return ownedByAnotherUser();

  // The subscription this transaction pays for, or the one its purchase serves.
  const decidedOn = bound?.subscription_id ?? (owned && !takeOver ? owned.subscription_id : undefined);
  if (decidedOn !== undefined && subscription?.id !== decidedOn) {
    return { kind: 'read_subscription', subscriptionId: decidedOn, takeOver };
  }
  if (bound && subscription) {
    return subscription.status === 'pending_verification'
      ? {
          kind: 'activate',
          subscription,
          expiresAt: transaction.expires_at,
          // A record created by POST /subscriptions is not yet known as this purchase's.
          bindOwner: subscription.user_id === claim.userId,
          takeOver,
        }
      : { kind: 'answer', subscription, takeOver };
  }
  // A subscription that takes renewals; an ended one is replaced by a new subscription.
  if (subscription && ['active', 'paused', 'pending_verification'].includes(subscription.status)) {
    // A later transaction of a running purchase renews it; an older one changes nothing.
    const renews =
      subscription.status === 'active' && Date.parse(transaction.expires_at) > Date.parse(subscription.expires_at);
    return renews
      ? { kind: 'renew', subscription, expiresAt: transaction.expires_at }
      : { kind: 'answer', subscription };
  }
  return {
    kind: 'insert',
    productId: product.id,
    price: transaction.trial ? product.price : (transaction.price ?? product.price),
    currency: transaction.trial ? product.currency : (transaction.currency ?? product.currency),
    billingPeriod: product.billing_period,
    revenue: takeOver ? 'transferred' : 'new_purchase',
    takeOver,
  };
}
