/**
 * Rate limiting, the pure part: tiers, the decision for one request and the IETF RateLimit
 * header fields (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` names the quota,
 * `RateLimit` the remaining units and the seconds until the window resets).
 *
 * Who is counted: on the subscription API the secret key; on the mobile API each user of an app
 * (the key's app and `X-USER-ID`), with the limit of the sdk key's tier. The window is fixed,
 * 60 s long, and opens at the counted one's first request after the previous window closed, so
 * "200 per minute" means exactly that: the 201st request within a minute of the first is refused,
 * whichever second of the clock the burst starts at.
 */

export const RATE_LIMIT_TIERS = ['standard', 'premium'] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];

export const DEFAULT_RATE_LIMIT_TIER: RateLimitTier = 'standard';

/** Length of one counting window. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** Requests per window of each tier when the configuration does not say otherwise. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitTier, number>> = { standard: 200, premium: 2000 };

/** Where a key stands in its current window, as the shared counter reports it. */
export interface WindowCount {
  /** Requests counted in this window, this one included. */
  count: number;
  /** When the window closes (epoch milliseconds). */
  windowEndsAt: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  tier: RateLimitTier;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while it is open). */
  resetSeconds: number;
}

export function decideRateLimit(
  tier: RateLimitTier,
  limit: number,
  window: WindowCount,
  nowMs: number,
): RateLimitDecision {
  const resetSeconds = Math.max(1, Math.ceil((window.windowEndsAt - nowMs) / 1000));
  return { allowed: window.count <= limit, tier, limit, remaining: Math.max(0, limit - window.count), resetSeconds };
}

/** `RateLimit-Policy` alone: the quota that applies, for a response to a request not counted (yet). */
export function rateLimitPolicyHeader(tier: RateLimitTier, limit: number): Record<string, string> {
  return { 'RateLimit-Policy': `"${tier}";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}` };
}

/** `RateLimit-Policy` and `RateLimit` for a decision; a refused request also gets `Retry-After`. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    ...rateLimitPolicyHeader(decision.tier, decision.limit),
    RateLimit: `"${decision.tier}";r=${decision.remaining};t=${decision.resetSeconds}`,
    ...(decision.allowed ? {} : { 'Retry-After': String(decision.resetSeconds) }),
  };
}

export const isRateLimitTier = (value: unknown): value is RateLimitTier =>
  (RATE_LIMIT_TIERS as readonly unknown[]).includes(value);

/**
 * The two conditional writes that count a request on a window item: `count` adds it to the open
 * window, `open` starts a new window with it (the item is absent, or its window has closed). Each
 * one's condition fails exactly when the other's holds, so guessing right costs one write and
 * guessing wrong two.
 */
export type WindowWrite = 'count' | 'open';

/**
 * Which write to try first, from the end of the window this instance last counted in for the
 * same counter (undefined: none seen). A window known to be open is counted in; otherwise the
 * window most likely closed long ago (a mobile user's requests come in bursts, minutes apart),
 * so a new one is opened.
 */
export function firstWindowWrite(knownWindowEndsAt: number | undefined, nowMs: number): WindowWrite {
  return knownWindowEndsAt !== undefined && knownWindowEndsAt > nowMs ? 'count' : 'open';
}
