/** Reads about a user for the mobile API: segment membership and ad-network information. */

import { AppError } from '../core/errors.js';
import { getAdsConfig, getSegments } from '../data/app-config.js';
import { loadUserFacts } from '../data/user-facts.js';
import { secretInPublicSetting } from '../domain/public-settings.js';
import { segmentsOf } from '../domain/segments.js';
import type { AdsInfo, Attribution, SegmentInfo } from '../schemas/responses.js';
import type { BuiltInSegment } from '../schemas/segment.js';

const BUILT_IN_NAMES: Record<BuiltInSegment, string> = {
  new_user: 'New user (first seen in the last 7 days)',
  active_7d: 'Active in the last 7 days',
  dormant_30d: 'Not seen for over 30 days',
  trialing: 'In a free trial',
  paying: 'Paying subscriber',
  churned: 'Churned (every subscription ended)',
  never_subscribed: 'Never subscribed',
};

export async function segmentInfo(appId: string, userId: string, now = new Date()): Promise<SegmentInfo> {
  const [facts, segments] = await Promise.all([loadUserFacts(appId, userId), getSegments(appId)]);
  if (!facts) throw new AppError('USER_NOT_FOUND', `User ${userId} has never been seen by this app`);
  const { builtIn, rules } = segmentsOf(facts, segments, now);
  return {
    user_id: userId,
    segments: [
      ...builtIn.map((id) => ({ id, name: BUILT_IN_NAMES[id], type: 'built_in' as const })),
      ...rules.map((segment) => ({ id: segment.id, name: segment.name, type: 'custom' as const })),
    ],
  };
}

export async function adsInfo(
  appId: string,
  userId: string,
  platform: 'ios' | 'android',
  storeId: string,
): Promise<AdsInfo> {
  const [facts, config] = await Promise.all([loadUserFacts(appId, userId), getAdsConfig(appId)]);
  return {
    platform,
    app_id: appId,
    store_id: storeId,
    user: {
      user_id: userId,
      // The profile holds what reporting recorded there (lib/services/reporting.ts recordAttribution).
      attribution: {
        first: (facts?.attribution_first as Attribution | null | undefined) ?? null,
        latest: (facts?.attribution_latest as Attribution | null | undefined) ?? null,
      },
    },
    // Settings stored before `ads put` refused credentials may hold one: never served.
    networks: (config?.[platform]?.networks ?? []).map((network) => ({
      ...network,
      settings: Object.fromEntries(
        Object.entries(network.settings).filter(([name, value]) => !secretInPublicSetting(name, value)),
      ),
    })),
  };
}
