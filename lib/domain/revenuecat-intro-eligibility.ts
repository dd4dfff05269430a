/**
 * Whether a user may still get a product's introductory offer (pure), as purchases-ios decodes the
 * answer of `POST /v1/subscribers/{app_user_id}/intro_eligibility` (its
 * GetIntroEligibilityResponse.swift: `true` eligible, `false` ineligible, `null` unknown).
 */

/** What the decision reads of a subscription. */
export interface TrialEvidence {
  product_id: string;
  /** The subscription started with a free trial. */
  trial_period: boolean;
}

/**
 * `false` for a product the user has had a free trial of: its subscription group's introductory
 * offer is spent. `null` (unknown) for any other: the catalogue has no subscription groups, so a
 * trial of another product, or a purchase without one, proves nothing, and StoreKit decides at
 * purchase. Never `true`.
 */
export function introEligibilityOf(
  productIds: readonly string[],
  subscriptions: readonly TrialEvidence[],
): Record<string, false | null> {
  const trialled = new Set(subscriptions.filter((s) => s.trial_period).map((s) => s.product_id));
  return Object.fromEntries(productIds.map((id) => [id, trialled.has(id) ? false : null]));
}
