/**
 * Per-API-key rate limiting, the pure part: tiers, the decision for one request and the IETF
 * RateLimit header fields (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` names the
 * quota, `RateLimit` the remaining units and the seconds until the window resets).
 *
 * The window is fixed, 60 s long, and opens at the key's first request after the previous window
 * closed, so "200 per minute" means exactly that: the 201st request within a minute of the first
 * is refused, whichever second of the clock the burst starts at.
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

/** `RateLimit-Policy` and `RateLimit` for a decision; a refused request also gets `Retry-After`. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const policy = `"${decision.tier}"`;
  return {
    'RateLimit-Policy': `${policy};q=${decision.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`,
    RateLimit: `${policy};r=${decision.remaining};t=${decision.resetSeconds}`,
    ...(decision.allowed ? {} : { 'Retry-After': String(decision.resetSeconds) }),
  };
}

export const isRateLimitTier = (value: unknown): value is RateLimitTier =>
  (RATE_LIMIT_TIERS as readonly unknown[]).includes(value);
