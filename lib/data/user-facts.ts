/** Everything segment rules may read about a user: the profile and the user's subscriptions. */
import type { UserFacts } from '../domain/segments.js';
import { readProfile } from './profiles.js';
import type { SubscriptionRecord } from './subscription-items.js';
import { listSubscriptions } from './subscription-queries.js';

export interface UserProfileView extends UserFacts {
  attribution_first: Record<string, unknown> | null;
  attribution_latest: Record<string, unknown> | null;
}

/** Undefined for a user this app has never heard of (no profile, no subscription). */
export async function loadUserFacts(appId: string, userId: string): Promise<UserProfileView | undefined> {
  const [profile, { items: subscriptions }] = await Promise.all([
    readProfile(appId, userId),
    listSubscriptions(appId, { user_id: userId }, { skip: 0, limit: 1000 }),
  ]);
  if (!profile && subscriptions.length === 0) return undefined;
  return userFactsOf(profile, subscriptions);
}

/** What segment rules read, from the user's profile (merged, as readUserItems answers it) and subscriptions, newest first. */
export function userFactsOf(
  profile: Record<string, unknown> | undefined,
  subscriptions: readonly Pick<SubscriptionRecord, 'status' | 'trial_period' | 'trial_expires_at' | 'created_at'>[],
): UserProfileView {
  const features = profile?.features as Set<string> | undefined;
  const latest = (profile?.attribution_latest as Record<string, unknown> | undefined) ?? null;
  return {
    first_seen: (profile?.first_seen as string | undefined) ?? subscriptions.at(-1)?.created_at ?? null,
    last_seen: (profile?.last_seen as string | undefined) ?? null,
    attributes: (profile?.attributes as Record<string, unknown> | undefined) ?? {},
    custom_properties: (profile?.custom_properties as Record<string, unknown> | undefined) ?? {},
    counters: {
      total_sessions: Number(profile?.total_sessions ?? 0),
      order_count: Number(profile?.order_count ?? 0),
      conversion_count: Number(profile?.conversion_count ?? 0),
      features_used: features?.size ?? 0,
    },
    attribution_network: (latest?.network as string | undefined) ?? null,
    attribution_first: (profile?.attribution_first as Record<string, unknown> | undefined) ?? null,
    attribution_latest: latest,
    subscriptions: subscriptions.map((s) => ({
      status: s.status,
      trial_period: s.trial_period,
      trial_expires_at: s.trial_expires_at,
    })),
  };
}
