/** What purchases-ios (StoreKit 1) reads of a user's introductory offers: apart, so no other bundle carries it. */
import { newestSubscriptionsOfUser } from '../data/subscription-queries.js';
import { introEligibilityOf } from '../domain/revenuecat-intro-eligibility.js';
import { MAX_CUSTOMER_SUBSCRIPTIONS } from '../schemas/entitlement.js';

/** POST /v1/subscribers/{app_user_id}/intro_eligibility: each product asked, decided by the user's subscriptions. */
export async function revenuecatIntroEligibility(
  appId: string,
  userId: string,
  productIds: readonly string[],
): Promise<Record<string, false | null>> {
  if (productIds.length === 0) return {};
  return introEligibilityOf(productIds, await newestSubscriptionsOfUser(appId, userId, MAX_CUSTOMER_SUBSCRIPTIONS));
}
