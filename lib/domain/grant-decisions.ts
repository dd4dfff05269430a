/**
 * Grants (pure): an entitlement given to a user for a time by the operator's server (a promotion,
 * a support gesture), with no purchase and no money. One grant per user and entitlement:
 *
 * - `duration` (ISO 8601, e.g. P1M) counts from now, or from the end of a grant still running:
 *   granting a month twice gives two months.
 * - `expires_at` sets the end of the grant, running or not (it may shorten one).
 * - A grant gives access until its expires_at; a revoke ends it now; the sweeper records the end
 *   of one that ran out. A grant that has ended is kept, so customer info can describe it.
 */
import { AppError } from '../core/errors.js';
import { addMonths } from './billing.js';

export type GrantEndReason = 'revoked' | 'expired';

/** A grant as stored (version: its writes, for the condition of the next). */
export interface GrantRecord {
  entitlement_id: string;
  /** When the grant that runs (or ran last) started: a grant extended while running keeps it. */
  granted_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: GrantEndReason | null;
  version: number;
}

export interface GrantRequest {
  duration?: string | undefined;
  expires_at?: string | undefined;
}

/** A grant ends at most this many years ahead: far enough for "lifetime", near enough for a Date and the due index. */
export const MAX_GRANT_YEARS = 100;

const invalid = (field: 'duration' | 'expires_at' | null, message: string): AppError =>
  new AppError('INVALID_PARAMETER', `${field ?? 'body'}: ${message}`, {
    details: [{ path: field ? `body.${field}` : 'body', message }],
  });

export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** An ISO 8601 duration of whole units (PnYnMnWnDTnHnMnS); undefined when malformed or empty. */
export function parseDuration(text: string): Duration | undefined {
  // Whole numbers only (P1.5D is refused), at most 6 digits each: a bound that no grant needs to reach.
  const duration =
    /^P(?:(\d{1,6})Y)?(?:(\d{1,6})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,6})M)?(?:(\d{1,6})S)?)?$/;
  const match = duration.exec(text);
  // "P" and "PT" name no unit; "P1DT" has a T with nothing after it.
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { years, months, weeks, days, hours, minutes, seconds };
}

/** `from` plus the duration: years and months on the UTC calendar (Jan 31 + P1M = Feb 28), the rest in exact time. */
export function addDuration(from: Date, duration: Duration): Date {
  const months = addMonths(from, duration.years * 12 + duration.months);
  const ms =
    (((duration.weeks * 7 + duration.days) * 24 + duration.hours) * 60 + duration.minutes) * 60_000 +
    duration.seconds * 1000;
  return new Date(months.getTime() + ms);
}

/** Whether the grant gives access at `now`: a revoke or the sweeper sets ended_at, and expires_at is never past it. */
export const grantRuns = (grant: Pick<GrantRecord, 'expires_at' | 'ended_at'>, now: Date): boolean =>
  grant.ended_at === null && Date.parse(grant.expires_at) > now.getTime();

export interface GrantDecision {
  granted_at: string;
  expires_at: string;
  /** The end of the grant this one extends or changes; null for a new grant. */
  previous_expires_at: string | null;
}

/** What a grant request makes of the user's grant of this entitlement (none, running or ended); a bad request throws 400. */
export function decideGrant(current: GrantRecord | undefined, request: GrantRequest, now: Date): GrantDecision {
  const hasDuration = request.duration !== undefined;
  const hasEnd = request.expires_at !== undefined;
  if (hasDuration === hasEnd) throw invalid(null, 'give exactly one of duration and expires_at');
  const running = current !== undefined && grantRuns(current, now);
  let end: Date;
  if (hasDuration) {
    const duration = parseDuration(request.duration!);
    if (!duration) throw invalid('duration', 'must be an ISO 8601 duration of whole units, e.g. P1M, P7D, PT12H');
    end = addDuration(running ? new Date(current.expires_at) : now, duration);
    if (end.getTime() <= (running ? Date.parse(current.expires_at) : now.getTime()))
      throw invalid('duration', 'must be longer than zero');
  } else {
    end = new Date(request.expires_at!);
    if (Number.isNaN(end.getTime())) throw invalid('expires_at', 'must be an ISO 8601 date-time');
    if (end.getTime() <= now.getTime()) throw invalid('expires_at', 'must be in the future');
  }
  // Negated, so that an end past what a Date holds (NaN) is refused too.
  if (!(end.getTime() <= addMonths(now, MAX_GRANT_YEARS * 12).getTime()))
    throw invalid(hasDuration ? 'duration' : 'expires_at', `must end at most ${MAX_GRANT_YEARS} years from now`);
  return {
    granted_at: running ? current.granted_at : now.toISOString(),
    expires_at: end.toISOString(),
    previous_expires_at: running ? current.expires_at : null,
  };
}

/** The grant after a revoke at `now`, or undefined when no grant runs (a revoke then changes nothing). */
export function decideRevoke(current: GrantRecord | undefined, now: Date): GrantRecord | undefined {
  if (!current || !grantRuns(current, now)) return undefined;
  const at = now.toISOString();
  return { ...current, expires_at: at, ended_at: at, end_reason: 'revoked', version: current.version + 1 };
}

/** The grant once the sweeper has recorded its end, or undefined when it is not due (running, or already ended). */
export function decideExpiry(current: GrantRecord | undefined, now: Date): GrantRecord | undefined {
  if (!current || current.ended_at !== null || Date.parse(current.expires_at) > now.getTime()) return undefined;
  return { ...current, ended_at: current.expires_at, end_reason: 'expired', version: current.version + 1 };
}
