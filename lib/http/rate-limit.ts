/**
 * The caller's rate limit, decided on the count that authentication made (lib/http/auth.ts):
 * 429 RATE_LIMITED past the tier's limit, and the RateLimit headers that every response to a
 * counted request carries. A counter is named by its caller: `secret:<key hash>` on the
 * subscription API, `user:<app>#<user>` on the mobile API.
 */
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import {
  decideRateLimit,
  type RateLimitDecision,
  type RateLimitTier,
  rateLimitHeaders,
  type WindowCount,
} from '../domain/rate-limit.js';

/**
 * Windows this instance has seen exhausted, by counter: until they close, further requests counted
 * there are refused without a write (a flood past the limit costs nothing). Refusing is safe
 * because the shared count only grows until the window ends.
 */
const exhausted = new Map<string, { window: WindowCount; tier: RateLimitTier }>();
/** Exhausted windows remembered per instance; a full map starts over (bounded memory). */
export const MAX_REMEMBERED = 1000;

function refuse(decision: RateLimitDecision): never {
  throw new AppError(
    'RATE_LIMITED',
    `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
    {
      headers: rateLimitHeaders(decision),
      retryable: true,
    },
  );
}

/** Refuses, without any I/O, a request on a counter whose window this instance knows is exhausted. */
export function refuseIfExhausted(counter: string, nowMs: number): void {
  const known = exhausted.get(counter);
  if (!known || known.window.windowEndsAt <= nowMs) return;
  const limit = config.rateLimits[known.tier];
  refuse(decideRateLimit(known.tier, limit, { ...known.window, count: limit + 1 }, nowMs));
}

/** Allows the counted request (its RateLimit headers) or refuses it with 429. */
export function limitRequest(
  counter: string,
  tier: RateLimitTier,
  window: WindowCount,
  nowMs: number,
): Record<string, string> {
  const decision = decideRateLimit(tier, config.rateLimits[tier], window, nowMs);
  if (!decision.allowed) {
    if (exhausted.size >= MAX_REMEMBERED) exhausted.clear();
    exhausted.set(counter, { window, tier });
    refuse(decision);
  }
  return rateLimitHeaders(decision);
}
