/**
 * The caller's per-key rate limit, decided on the count that authentication made
 * (lib/http/auth.ts): 429 RATE_LIMITED past the tier's limit, and the RateLimit headers that
 * every response to an authenticated request carries.
 */
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import type { ApiKeyKind } from '../data/keys.js';
import {
  decideRateLimit,
  type RateLimitDecision,
  type RateLimitTier,
  rateLimitHeaders,
  type WindowCount,
} from '../domain/rate-limit.js';

/**
 * Windows this instance has seen exhausted, by key hash: until they close, further requests with
 * that key (of the kind it was used as) are refused without a write (a flood past the limit costs
 * nothing). Refusing is safe because the shared count only grows until the window ends; a key
 * revoked meanwhile is answered 429 rather than 401 until then.
 */
const exhausted = new Map<string, { window: WindowCount; tier: RateLimitTier; kind: ApiKeyKind }>();
const MAX_REMEMBERED = 1000;

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

/** Refuses, without any I/O, a request with a key whose window this instance knows is exhausted. */
export function refuseIfExhausted(keyHash: string, kind: ApiKeyKind, nowMs: number): void {
  const known = exhausted.get(keyHash);
  if (!known || known.kind !== kind || known.window.windowEndsAt <= nowMs) return;
  const limit = config.rateLimits[known.tier];
  refuse(decideRateLimit(known.tier, limit, { ...known.window, count: limit + 1 }, nowMs));
}

/** Allows the counted request (its RateLimit headers) or refuses it with 429. */
export function limitRequest(
  keyHash: string,
  caller: { tier: RateLimitTier; kind: ApiKeyKind },
  window: WindowCount,
  nowMs: number,
): Record<string, string> {
  const decision = decideRateLimit(caller.tier, config.rateLimits[caller.tier], window, nowMs);
  if (!decision.allowed) {
    if (exhausted.size >= MAX_REMEMBERED) exhausted.clear();
    exhausted.set(keyHash, { window, tier: caller.tier, kind: caller.kind });
    refuse(decision);
  }
  return rateLimitHeaders(decision);
}
