/**
 * The outbound store call budget of one app at one store, the pure part: a token bucket (`burst`
 * calls at once, refilled at `perMinute`) and a back-off window a store's 429 opens. Google's
 * Play Developer API quota is per Google Cloud project and Apple's App Store Server API limits per
 * key: receipts anyone with the sdk key can make up must not spend what real verifications and the
 * stores' own notifications need (docs/security.md#outbound-store-calls).
 */

export interface StoreCallBudgetLimits {
  /** Calls the bucket holds when full: what a burst may spend at once. */
  burst: number;
  /** Calls the bucket regains per minute. */
  perMinute: number;
}

/** The bucket as stored (lib/data/store-call-budget.ts); times in epoch milliseconds. */
export interface StoreCallBudgetState {
  /** Calls left at `refilledAt` (fractional: refilled continuously). */
  tokens: number;
  refilledAt: number;
  /** No budgeted call before this time: the store answered 429. */
  backOffUntil: number;
}

export type StoreCallDecision =
  | { kind: 'call'; next: StoreCallBudgetState }
  | { kind: 'wait'; reason: 'budget_spent' | 'store_throttled'; retryAfterSeconds: number };

/** How long a 429 without a Retry-After keeps budgeted calls back. */
export const DEFAULT_BACK_OFF_SECONDS = 60;
/** A store's Retry-After is honoured up to this. */
export const MAX_BACK_OFF_SECONDS = 3600;

/** The bucket at `nowMs`: a missing one is full; a clock that went back refills nothing. */
export function refilled(
  state: StoreCallBudgetState | undefined,
  limits: StoreCallBudgetLimits,
  nowMs: number,
): StoreCallBudgetState {
  if (!state) return { tokens: limits.burst, refilledAt: nowMs, backOffUntil: 0 };
  const elapsed = Math.max(0, nowMs - state.refilledAt);
  const tokens = Math.min(limits.burst, state.tokens + (elapsed * limits.perMinute) / 60_000);
  return { tokens, refilledAt: Math.max(nowMs, state.refilledAt), backOffUntil: state.backOffUntil };
}

/** Whether one budgeted call may go to the store now, and the bucket after it. */
export function decideStoreCall(
  state: StoreCallBudgetState | undefined,
  limits: StoreCallBudgetLimits,
  nowMs: number,
): StoreCallDecision {
  const now = refilled(state, limits, nowMs);
  if (now.backOffUntil > nowMs)
    return {
      kind: 'wait',
      reason: 'store_throttled',
      retryAfterSeconds: Math.max(1, Math.ceil((now.backOffUntil - nowMs) / 1000)),
    };
  if (now.tokens >= 1) return { kind: 'call', next: { ...now, tokens: now.tokens - 1 } };
  return {
    kind: 'wait',
    reason: 'budget_spent',
    retryAfterSeconds: Math.max(1, Math.ceil(((1 - now.tokens) * 60) / limits.perMinute)),
  };
}

/**
 * The bucket after the store answered 429 at `nowMs`: no budgeted call for its Retry-After (capped),
 * else DEFAULT_BACK_OFF_SECONDS; a longer window already open stays.
 */
export function backedOff(
  state: StoreCallBudgetState | undefined,
  limits: StoreCallBudgetLimits,
  nowMs: number,
  retryAfterSeconds: number | undefined,
): StoreCallBudgetState {
  const now = refilled(state, limits, nowMs);
  const seconds =
    retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.min(MAX_BACK_OFF_SECONDS, Math.ceil(retryAfterSeconds))
      : DEFAULT_BACK_OFF_SECONDS;
  return { ...now, backOffUntil: Math.max(now.backOffUntil, nowMs + seconds * 1000) };
}

/** A store's Retry-After header as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSecondsOf(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
