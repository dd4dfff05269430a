/**
 * Customer info: what a user may use (entitlements) and what they bought, for both APIs. Read on
 * every app launch, so its cost is fixed whatever the app's size (docs/decisions/customer-info-read.md):
 * the user's profile and grants (one Query of the user's partition), the user's newest subscriptions (one
 * Query of the keys-only user index and one batch read), and the app's entitlement definitions,
 * which a warm function keeps for ENTITLEMENTS_CACHE_TTL_SECONDS.
 */
import { config } from '../core/config.js';
import { readThroughCache } from '../core/read-through-cache.js';
import { getEntitlements } from '../data/entitlements.js';
import { readUserItems } from '../data/profiles.js';
import { newestSubscriptionsOfUser } from '../data/subscription-queries.js';
import { entitlementStates } from '../domain/entitlements.js';
import { type CustomerInfo, MAX_CUSTOMER_SUBSCRIPTIONS } from '../schemas/entitlement.js';
import { toListItem } from './subscriptions.js';

/** The app's entitlements, as this instance read them at most ENTITLEMENTS_CACHE_TTL_SECONDS ago. */
export const entitlementsOf = readThroughCache(getEntitlements, () => config.entitlementsCacheTtlSeconds * 1000);

/** What a customer info is decided from, read at once: the profile and grants, the newest subscriptions, the app's entitlements. */
export async function readCustomerFacts(appId: string, userId: string) {
  const [{ profile, grants }, subscriptions, entitlements] = await Promise.all([
    readUserItems(appId, userId),
    newestSubscriptionsOfUser(appId, userId, MAX_CUSTOMER_SUBSCRIPTIONS),
    entitlementsOf(appId),
  ]);
  const known = profile !== undefined || subscriptions.length > 0 || grants.length > 0;
  return { profile, grants, subscriptions, entitlements, known };
}

/** The customer info of a user; undefined for a user this app has never seen (no profile, no subscription). */
export async function customerInfo(appId: string, userId: string, now = new Date()): Promise<CustomerInfo | undefined> {
  const { profile, grants, subscriptions, entitlements, known } = await readCustomerFacts(appId, userId);
  if (!known) return undefined;
  return {
    user_id: userId,
    entitlements: entitlementStates(entitlements, subscriptions, now, grants),
    subscriptions: subscriptions.map(toListItem),
    first_seen_at: (profile?.first_seen as string | undefined) ?? subscriptions.at(-1)?.created_at ?? null,
    last_seen_at: (profile?.last_seen as string | undefined) ?? null,
  };
}
