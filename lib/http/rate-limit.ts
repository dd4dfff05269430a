/**
 * Enforces the caller's per-key rate limit: counts the request in the shared window (DynamoDB),
 * answers 429 RATE_LIMITED past the tier's limit, and returns the RateLimit headers that every
 * response to an authenticated request carries.
 */
import { config } from '../config.js';
import { countRequest } from '../data/rate-limits.js';
import { decideRateLimit, rateLimitHeaders, type RateLimitDecision, type WindowCount } from '../domain/rate-limit.js';
import { AppError } from '../errors.js';
import type { Caller } from './auth.js';

/**
 * Windows this instance has seen exhausted: until they close, further requests of that key are
 * refused without a write (a flood past the limit costs nothing). Refusing is safe because the
 * shared count only grows until the window ends.
 */
const exhausted = new Map<string, WindowCount>();
const MAX_REMEMBERED = 1000;

function refuse(decision: RateLimitDecision): never {
  throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`, {
    headers: rateLimitHeaders(decision),
    retryable: true,
  });
}

export async function enforceRateLimit(caller: Pick<Caller, 'keyId' | 'tier'>, nowMs: number = Date.now()): Promise<Record<string, string>> {
  const limit = config.rateLimits[caller.tier];
  const known = exhausted.get(caller.keyId);
  if (known && known.windowEndsAt > nowMs) refuse(decideRateLimit(caller.tier, limit, { ...known, count: limit + 1 }, nowMs));
  const window = await countRequest(caller.keyId, nowMs);
  const decision = decideRateLimit(caller.tier, limit, window, nowMs);
  if (!decision.allowed) {
    if (exhausted.size >= MAX_REMEMBERED) exhausted.clear();
    exhausted.set(caller.keyId, window);
    refuse(decision);
  }
  return rateLimitHeaders(decision);
}
