/**
 * What an app shows and what one user is shown, for both APIs. A launch reads it, so its cost is
 * fixed: the app's offerings, switches and rule segments (one BatchGetItem, kept by a warm function
 * for OFFERINGS_CACHE_TTL_SECONDS), the user's profile (one Query of the user's partition) and
 * newest subscriptions (the user index, then one batch read): two round trips, the app's read in
 * parallel with the user's first.
 */
import { offeringsConfig, paywallsBaseUrl } from '../core/config.js';
import { readThroughCache } from '../core/read-through-cache.js';
import { readShownSettings } from '../data/offerings.js';
import { readUserItems } from '../data/profiles.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import { newestSubscriptionsOfUser } from '../data/subscription-queries.js';
import { userFactsOf } from '../data/user-facts.js';
import { shownTo } from '../domain/offering-choice.js';
import { answerPaywall } from '../domain/paywall-answer.js';
import { segmentsOf } from '../domain/segments.js';
import type { Platform } from '../schemas/common.js';
import { MAX_CUSTOMER_SUBSCRIPTIONS } from '../schemas/entitlement.js';
import type { AppOfferings, CustomerOfferings, OfferingsDocument, RemoteSwitch } from '../schemas/offering.js';
import type { Paywall, PaywallAnswer } from '../schemas/paywall.js';
import type { OfferedProduct } from '../schemas/product.js';

const shownSettingsOf = readThroughCache(readShownSettings, () => offeringsConfig.offeringsCacheTtlSeconds * 1000);

/** The app's offerings, placements and switches as stored, read now (not from a warm function's copy). */
export async function appOfferings(appId: string): Promise<AppOfferings> {
  const { offerings, switches, paywalls, updated_at } = await readShownSettings(appId);
  const baseUrl = paywallsBaseUrl();
  return {
    current_offering_id: offerings?.current ?? null,
    offerings: offerings?.offerings ?? [],
    placements: offerings?.placements ?? [],
    switches,
    paywalls: paywalls.map((paywall) => answerPaywall(appId, paywall, baseUrl)),
    updated_at,
  };
}

/** The bundles the document's offerings and placements name, as answered. */
function namedPaywalls(appId: string, document: OfferingsDocument | undefined, paywalls: Paywall[]): PaywallAnswer[] {
  const named = new Set([
    ...(document?.offerings ?? []).flatMap((offering) => (offering.paywall ? [offering.paywall] : [])),
    ...(document?.placements ?? []).flatMap((placement) =>
      [placement.guide_page, ...placement.rules.map((rule) => rule.guide_page)].flatMap((guide) =>
        guide ? [guide.id] : [],
      ),
    ),
  ]);
  const baseUrl = paywallsBaseUrl();
  return paywalls.filter((paywall) => named.has(paywall.id)).map((paywall) => answerPaywall(appId, paywall, baseUrl));
}

/**
 * What a launch reads about one user: what they are shown, the app's switches as set, what its
 * paywalls show of each product, and the user's newest subscriptions.
 */
export interface LaunchView {
  shown: CustomerOfferings;
  switches: RemoteSwitch[];
  products: Record<string, OfferedProduct>;
  subscriptions: SubscriptionRecord[];
}

/**
 * What the user is shown on `platform` (the request's; undefined: rules naming a platform do not
 * match), with the segments it was decided on. A user the app has never seen is shown what a new
 * user would be (the launch of a fresh install asks before anything is reported).
 */
export async function launchViewOf(
  appId: string,
  userId: string,
  platform: Platform | undefined,
  now = new Date(),
): Promise<LaunchView> {
  const [settings, { profile }, subscriptions] = await Promise.all([
    shownSettingsOf(appId),
    readUserItems(appId, userId),
    newestSubscriptionsOfUser(appId, userId, MAX_CUSTOMER_SUBSCRIPTIONS),
  ]);
  const facts = userFactsOf(profile, subscriptions);
  const { builtIn, rules } = segmentsOf(facts, settings.segments, now);
  const segments = [...builtIn, ...rules.map((segment) => segment.id)];
  const chosen = shownTo(settings.offerings, settings.switches, { segments: new Set(segments), platform });
  return {
    shown: {
      user_id: userId,
      platform: platform ?? null,
      segments,
      current_offering_id: chosen.current_offering_id,
      offerings: settings.offerings?.offerings ?? [],
      placements: chosen.placements,
      switches: chosen.switches,
      paywalls: namedPaywalls(appId, settings.offerings, settings.paywalls),
    },
    switches: settings.switches,
    products: settings.products,
    subscriptions,
  };
}

/** What the user is shown (launchViewOf), as both APIs answer it. */
export async function offeringsForUser(
  appId: string,
  userId: string,
  platform: Platform | undefined,
  now = new Date(),
): Promise<CustomerOfferings> {
  return (await launchViewOf(appId, userId, platform, now)).shown;
}
