/**
 * What happens after a webhook delivery attempt (pure). Only a 2xx counts as delivered; 410 Gone
 * disables the endpoint; anything else (other status, timeout, network error) is retried on a
 * schedule of at least 24 hours, never sooner than the receiver's Retry-After, then dead-lettered.
 */

import type { DeliveryError } from './webhook-errors.js';

/** Delays before retries 1..7 (seconds): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h; ~41.6 h in all. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 86400] as const;

/** Timeout of the webhook deliverer function: one attempt (the HTTP timeout) plus its bookkeeping. */
export const WEBHOOK_DELIVERER_TIMEOUT_SECONDS = 30;

/** Longest Retry-After we honour; a receiver asking for more is retried after this. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfterSeconds?: number | undefined }
  | { kind: 'error'; error: DeliveryError };

export type Decision = { kind: 'delivered' } | { kind: 'disable' } | { kind: 'retry'; at: Date } | { kind: 'dead' };

/** `attempts` counts this attempt too (1 after the first). */
export function decideAfterAttempt(
  outcome: AttemptOutcome,
  attempts: number,
  now: Date,
  schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_SECONDS,
): Decision {
  if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) return { kind: 'delivered' };
  if (outcome.kind === 'response' && outcome.status === 410) return { kind: 'disable' };
  const delay = schedule[attempts - 1];
  if (delay === undefined) return { kind: 'dead' };
  const asked = outcome.kind === 'response' ? Math.min(outcome.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS) : 0;
  return { kind: 'retry', at: new Date(now.getTime() + Math.max(delay, asked) * 1000) };
}

/** Retry-After is seconds or an HTTP date. */
export function parseRetryAfter(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  // Number() ignores surrounding whitespace as trim() does.
  if (/^\d+$/.test(header.trim())) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** WEBHOOK_RETRY_SCHEDULE_SECONDS="1,1,2" shortens the schedule (tests, local experiments). */
export function retryScheduleFrom(value: string | undefined): readonly number[] {
  if (!value) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  // Number() ignores the whitespace around each delay.
  const delays = value.split(',').map((part) => Number(part));
  if (delays.some((d) => !Number.isFinite(d) || d < 0))
    throw new Error(`WEBHOOK_RETRY_SCHEDULE_SECONDS must be a comma-separated list of seconds, got "${value}"`);
  return delays;
}
