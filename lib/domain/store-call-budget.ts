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
  /** `throttled`: a store's 429 holds calls back; else the bucket is empty. */
  | { kind: 'wait'; throttled: boolean; retryAfterSeconds: number };

/** How long a 429 without a Retry-After keeps budgeted calls back. */
export const DEFAULT_BACK_OFF_SECONDS = 60;
/** A store's Retry-After is honoured up to this. */
export const MAX_BACK_OFF_SECONDS = 3600;

/**
 * Whether one budgeted call may go to the store now, and the bucket after it: a missing bucket is
 * full, and a clock that went back refills nothing.
 */
export function decideStoreCall(
  state: StoreCallBudgetState | undefined,
  limits: StoreCallBudgetLimits,
  nowMs: number,
): StoreCallDecision {
  const { tokens = limits.burst, refilledAt = nowMs, backOffUntil = 0 } = state ?? {};
  const now = Math.min(limits.burst, tokens + (Math.max(0, nowMs - refilledAt) * limits.perMinute) / 60_000);
  const wait = (throttled: boolean, ms: number): StoreCallDecision => ({
    kind: 'wait',
    throttled,
    retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
  });
  if (backOffUntil > nowMs) return wait(true, backOffUntil - nowMs);
  if (now < 1) return wait(false, ((1 - now) * 60_000) / limits.perMinute);
  return { kind: 'call', next: { tokens: now - 1, refilledAt: Math.max(nowMs, refilledAt), backOffUntil } };
}

/** How long a store's 429 holds budgeted calls back: its Retry-After (capped), else DEFAULT_BACK_OFF_SECONDS. */
export const backOffSeconds = (retryAfterSeconds: number | undefined): number =>
  // undefined > 0 is false: the default.
  (retryAfterSeconds as number) > 0
    ? Math.min(MAX_BACK_OFF_SECONDS, Math.ceil(retryAfterSeconds as number))
    : DEFAULT_BACK_OFF_SECONDS;

/** A store's Retry-After header in seconds (the stores send delta-seconds); undefined when absent or not that. */
export const retryAfterSecondsOf = (header: string | undefined): number | undefined =>
  header !== undefined && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined;
