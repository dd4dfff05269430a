/**
 * The DingYue SDK's SubscribedObject (pure): what its launch and receipt calls answer of a
 * purchase. A module of its own, so the receipt functions carry it without the rest of the dialect.
 */
import { givesAccess } from './entitlements.js';
import { accessEndsAt, type SubscriptionState } from './subscription-state.js';

/** SubscribedObject.swift: a purchase the user holds; `expiresAt` in epoch milliseconds. */
export interface SubscribedObject {
  platformProductId: string;
  originalTransactionId: string;
  expiresAt: number;
}

/**
 * Our subscription (a record, or a verification's result) as the SDK's SubscribedObject. Its
 * `expiresAt` is when access ends: a store's grace period included, since apps on the SDK compare
 * it with the clock to decide access.
 */
export const subscribedObjectOf = (subscription: {
  product_id: string;
  original_transaction_id: string | null;
  expires_at: string;
  grace_period_expires_at?: string | null;
  id?: string;
  subscription_id?: string;
}): SubscribedObject => ({
  platformProductId: subscription.product_id,
  // A subscription created by an app server has no store transaction: its id stands in.
  originalTransactionId: subscription.original_transaction_id ?? subscription.id ?? subscription.subscription_id ?? '',
  expiresAt: Date.parse(
    accessEndsAt({
      expires_at: subscription.expires_at,
      grace_period_expires_at: subscription.grace_period_expires_at ?? null,
    }),
  ),
});

/** The subscriptions that give access now (active, within their period or grace), newest first as given. */
export const heldSubscriptions = <
  S extends Pick<SubscriptionState, 'status' | 'expires_at' | 'grace_period_expires_at'>,
>(
  subscriptions: readonly S[],
  now: Date,
): S[] => subscriptions.filter((s) => givesAccess(s, now));
