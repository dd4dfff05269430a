/**
 * A user's customer info as RevenueCat's SDKs decode it (their CustomerInfo): the subscriber with
 * its `subscriptions`, `non_subscriptions` and `entitlements`, and the server's `request_date`.
 * Pure: the same decision as every other API's (lib/domain/entitlements.ts), written in the
 * SDKs' shape. What the three decoders require (docs/sdk-revenuecat.md, with file and line):
 *
 * - iOS: `request_date`, `subscriber.original_app_user_id`, `first_seen`, each subscription's
 *   `purchase_date`, each entitlement's `product_identifier`; dates without fractional seconds.
 * - Android: `subscriptions` and `non_subscriptions` present (even empty); an entitlement is
 *   dropped unless its product is a key of one of them, whose entry has `store`, `is_sandbox` and
 *   `original_purchase_date`.
 * - The SDKs decide `isActive` themselves, comparing `expires_date` with `request_date` (or the
 *   device clock): whatever gives no access now has an `expires_date` no later than now.
 */
import type { EntitlementState } from '../schemas/entitlement.js';
import {
  type EntitledGrant,
  type EntitledSubscription,
  type EntitlementDefinition,
  entitlementStates,
  givesAccess,
  isTrial,
} from './entitlements.js';
import type { AttributeError } from './revenuecat-attributes.js';
import type { StoreName } from './store-purchase.js';
import { accessEndsAt } from './subscription-state.js';

/** RevenueCat's names of the stores (its Store enums); `external` for a purchase recorded through our API. */
export type RevenueCatStore = 'app_store' | 'play_store' | 'test_store' | 'promotional' | 'external';

/** RevenueCat's name of a store: ours, but Google Play's; a store of ours it has no name for fails to type-check. */
const revenuecatStoreOf = (store: StoreName | null): RevenueCatStore =>
  store === null ? 'external' : store === 'google_play' ? 'play_store' : store;

/** What the mapping reads of a subscription, beyond what decides entitlements. */
export interface RevenueCatSubscriptionInput extends EntitledSubscription {
  started_at: string;
  updated_at: string;
  price: number;
  currency: string;
  original_transaction_id: string | null;
}

export interface RevenueCatSubscriberInput {
  userId: string;
  /** When the app first saw the user (their profile); the request time for a user seen first now. */
  firstSeen: string | null;
  lastSeen: string | null;
  /** Newest first, as lib/data/subscription-queries.ts reads them. */
  subscriptions: readonly RevenueCatSubscriptionInput[];
  grants: readonly EntitledGrant[];
  definitions: readonly EntitlementDefinition[];
}

export interface RevenueCatSubscription {
  purchase_date: string;
  original_purchase_date: string;
  expires_date: string | null;
  store: RevenueCatStore;
  is_sandbox: boolean;
  period_type: 'normal' | 'trial';
  ownership_type: 'PURCHASED';
  unsubscribe_detected_at: string | null;
  billing_issues_detected_at: string | null;
  grace_period_expires_date: string | null;
  refunded_at: string | null;
  auto_resume_date: string | null;
  store_transaction_id: string | null;
  price?: { amount: number; currency: string };
}

export interface RevenueCatEntitlement {
  product_identifier: string;
  purchase_date: string;
  expires_date: string | null;
  grace_period_expires_date: string | null;
}

export interface RevenueCatSubscriber {
  original_app_user_id: string;
  original_application_version: null;
  original_purchase_date: null;
  first_seen: string;
  last_seen: string;
  management_url: null;
  subscriptions: Record<string, RevenueCatSubscription>;
  non_subscriptions: Record<string, never[]>;
  entitlements: Record<string, RevenueCatEntitlement>;
  other_purchases: Record<string, never>;
}

export interface RevenueCatCustomerInfo {
  request_date: string;
  request_date_ms: number;
  subscriber: RevenueCatSubscriber;
  /** A receipt's attributes that were not kept, as the SDKs log them (purchases-android backendHelpers.kt). */
  attributes_error_response?: { code: number; message: string; attribute_errors: AttributeError[] };
}

/** ISO 8601 in UTC without fractional seconds: iOS's JSONDecoder (`.iso8601`) accepts no other form. */
export const revenuecatDate = (at: string | number | Date): string =>
  // Stryker disable next-line Regex: toISOString always ends in .sssZ, so the anchor changes nothing
  new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The product id a grant's entitlement names: RevenueCat's promotional products are `rc_promo_…`. */
export const promotionalProductOf = (entitlementId: string): string => `rc_promo_${entitlementId}`;

/**
 * An end the SDK compares with now: what gives no access ended when it stopped (refund,
 * cancellation, pause, revocation: a time of the past, so the answer and its ETag stay the same).
 */
const endFor = (end: string, gives: boolean, stoppedAt: string | null, now: Date): string =>
  // Stryker disable next-line StringLiteral: Date.parse of any text that is not a date is NaN alike
  revenuecatDate(gives ? end : Math.min(Date.parse(end), Date.parse(stoppedAt ?? '') || now.getTime()));

/** When a subscription that gives no access stopped giving it, if before its end. */
const stoppedAtOf = (s: RevenueCatSubscriptionInput): string =>
  s.refunded_at ?? s.cancelled_at ?? s.paused_at ?? s.updated_at;

const optionalDate = (at: string | null) => (at === null ? null : revenuecatDate(at));

/** What an entry says of what is unknown or does not apply (a grant has no store, price or renewal). */
const ENTRY_DEFAULTS = {
  period_type: 'normal',
  ownership_type: 'PURCHASED',
  unsubscribe_detected_at: null,
  billing_issues_detected_at: null,
  grace_period_expires_date: null,
  refunded_at: null,
  auto_resume_date: null,
  store_transaction_id: null,
} as const satisfies Partial<RevenueCatSubscription>;

function subscriptionEntry(subscription: RevenueCatSubscriptionInput, now: Date): RevenueCatSubscription {
  const gives = givesAccess(subscription, now);
  const willRenew = subscription.auto_renew && !subscription.cancel_at_period_end;
  const started = revenuecatDate(subscription.started_at);
  return {
    purchase_date: started,
    original_purchase_date: started,
    expires_date: endFor(subscription.expires_at, gives, stoppedAtOf(subscription), now),
    store: revenuecatStoreOf(subscription.store),
    is_sandbox: subscription.environment !== 'production',
    period_type: isTrial(subscription, now) ? 'trial' : 'normal',
    ownership_type: 'PURCHASED',
    unsubscribe_detected_at: willRenew ? null : revenuecatDate(subscription.cancelled_at ?? subscription.updated_at),
    billing_issues_detected_at: optionalDate(subscription.billing_issue_at),
    grace_period_expires_date: gives ? optionalDate(subscription.grace_period_expires_at) : null,
    refunded_at: optionalDate(subscription.refunded_at),
    auto_resume_date: optionalDate(subscription.paused_until),
    store_transaction_id: subscription.original_transaction_id,
    ...(subscription.price > 0 ? { price: { amount: subscription.price, currency: subscription.currency } } : {}),
  };
}

function grantEntry(grant: EntitledGrant, active: boolean, now: Date): RevenueCatSubscription {
  const granted = revenuecatDate(grant.granted_at);
  return {
    ...ENTRY_DEFAULTS,
    purchase_date: granted,
    original_purchase_date: granted,
    expires_date: endFor(grant.expires_at, active, grant.ended_at, now),
    store: 'promotional',
    is_sandbox: false,
  };
}

/** An entitlement the user has or had, with the subscription entry of the product that decides it. */
function entitlementOf(
  id: string,
  state: EntitlementState,
  input: RevenueCatSubscriberInput,
  now: Date,
): { entitlement: RevenueCatEntitlement; product: string; entry?: RevenueCatSubscription } | undefined {
  if (state.period_type === 'grant') {
    const grant = input.grants.find((g) => g.entitlement_id === id && g.expires_at === state.expires_at);
    if (!grant) return undefined;
    const entry = grantEntry(grant, state.active, now);
    const entitlement = {
      product_identifier: promotionalProductOf(id),
      purchase_date: entry.purchase_date,
      expires_date: entry.expires_date,
      grace_period_expires_date: null,
    };
    return { entitlement, product: entitlement.product_identifier, entry };
  }
  const decider = input.subscriptions.find(
    (s) =>
      s.product_id === state.product_id && s.expires_at === state.expires_at && s.status !== 'pending_verification',
  );
  if (!decider) return undefined;
  return {
    entitlement: {
      product_identifier: decider.product_id,
      purchase_date: revenuecatDate(decider.started_at),
      expires_date: endFor(accessEndsAt(decider), state.active, stoppedAtOf(decider), now),
      grace_period_expires_date: state.active ? optionalDate(decider.grace_period_expires_at) : null,
    },
    product: decider.product_id,
  };
}

export function revenuecatCustomerInfoOf(input: RevenueCatSubscriberInput, now: Date): RevenueCatCustomerInfo {
  const subscriptions: Record<string, RevenueCatSubscription> = {};
  // One entry per product, as RevenueCat keeps it: the newest purchase of it.
  for (const subscription of input.subscriptions) {
    if (subscription.status === 'pending_verification' || subscription.product_id in subscriptions) continue;
    subscriptions[subscription.product_id] = subscriptionEntry(subscription, now);
  }
  const entitlements: Record<string, RevenueCatEntitlement> = {};
  const states = entitlementStates(input.definitions, input.subscriptions, now, input.grants);
  for (const [id, state] of Object.entries(states)) {
    const decided = entitlementOf(id, state, input, now);
    if (!decided) continue;
    entitlements[id] = decided.entitlement;
    if (decided.entry) subscriptions[decided.product] = decided.entry;
  }
  const seen = revenuecatDate(input.firstSeen ?? now);
  return {
    request_date: revenuecatDate(now),
    request_date_ms: now.getTime(),
    subscriber: {
      original_app_user_id: input.userId,
      original_application_version: null,
      original_purchase_date: null,
      first_seen: seen,
      last_seen: revenuecatDate(input.lastSeen ?? input.firstSeen ?? now),
      management_url: null,
      subscriptions,
      non_subscriptions: {},
      entitlements,
      other_purchases: {},
    },
  };
}
