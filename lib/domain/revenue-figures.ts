/**
 * Revenue arithmetic (pure): the buckets of a period, the conversion of amounts into the app's
 * reporting currency, and product shares. Amounts are integer micro-units (1 USD = 1,000,000) so
 * that sums are exact; they become decimals only in responses.
 */
import { AppError } from '../core/errors.js';

export const GROUP_BY = ['day', 'week', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Longest period a query may cover. */
export const MAX_PERIOD_DAYS = 3 * 366;

const DAY_MS = 86_400_000;
// Stryker disable next-line Regex: dropping ^ or $ is equivalent, isCalendarDate also requires the 10-character round trip
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const toMicros = (amount: number): number => Math.round(amount * 1_000_000);
export const fromMicros = (micros: number, decimals = 2): number => Number((micros / 1_000_000).toFixed(decimals));

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** A real calendar date in YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** Checks a query period: real dates, start not after end, at most three years. */
export function validatePeriod(start: string, end: string): void {
  for (const [name, value] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (!isCalendarDate(value)) {
      throw new AppError('INVALID_PARAMETER', `${name} must be a date as YYYY-MM-DD`, {
        details: [{ path: `query.${name}`, message: 'must be a date as YYYY-MM-DD' }],
      });
    }
  }
  if (start > end) {
    throw new AppError('INVALID_PARAMETER', 'start_date must not be after end_date', {
      details: [{ path: 'query.start_date', message: 'must not be after end_date' }],
    });
  }
  if (dayNumber(end) - dayNumber(start) + 1 > MAX_PERIOD_DAYS) {
    throw new AppError('INVALID_PARAMETER', 'the period may cover at most 3 years', {
      details: [{ path: 'query.end_date', message: 'at most 3 years after start_date' }],
    });
  }
}

/** Every day of the period, in order. */
export function daysOf(start: string, end: string): string[] {
  const days: string[] = [];
  for (let day = dayNumber(start); day <= dayNumber(end); day++) days.push(dateOf(day));
  return days;
}

/**
 * The bucket a day falls in: the day itself, the Monday of its ISO week, or the first of its
 * month, clipped to the period's start (a bucket's `date` is never before the period).
 */
export function bucketOf(day: string, groupBy: GroupBy, periodStart: string): string {
  let start = day;
  if (groupBy === 'week') {
    const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0
    start = dateOf(dayNumber(day) - weekday);
  } else if (groupBy === 'month') {
    start = `${day.slice(0, 7)}-01`;
  }
  // Stryker disable next-line EqualityOperator: when start equals periodStart both branches return the same string
  return start < periodStart ? periodStart : start;
}

/** The buckets of a period, in order, each with the days it covers. */
export function bucketsOf(start: string, end: string, groupBy: GroupBy): { date: string; days: string[] }[] {
  const buckets = new Map<string, string[]>();
  for (const day of daysOf(start, end)) {
    const bucket = bucketOf(day, groupBy, start);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), day]);
  }
  return [...buckets].map(([date, days]) => ({ date, days }));
}

/**
 * For levels at the end of each bucket (a level now minus every change recorded after the bucket):
 * walks the buckets latest first and the changes newest first, passing each change once to `take`
 * and then calling `atEnd` with the bucket's index once every change after its last day was taken.
 */
export function walkBackFromLatest<C extends { day: string }>(
  buckets: readonly { days: readonly string[] }[],
  changes: readonly C[],
  take: (change: C) => void,
  atEnd: (bucket: number) => void,
): void {
  // Days as times: one subtraction and no branch for ties, whose order is never seen (callers sum).
  const newestFirst = changes.map((change) => ({ change, at: Date.parse(change.day) })).sort((a, b) => b.at - a.at);
  let next = 0;
  for (let i = buckets.length - 1; i >= 0; i--) {
    const last = buckets[i]!.days.at(-1)!;
    for (; next < newestFirst.length && newestFirst[next]!.change.day > last; next++) take(newestFirst[next]!.change);
    atEnd(i);
  }
}

/** Operator-supplied daily rates: units of the reporting currency for one unit of `currency`. */
export type RateTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * An amount in the reporting currency, or null when no rate for that currency and day is known
 * (the caller reports it as unconverted, so nothing silently disappears).
 */
export function convertMicros(
  micros: number,
  currency: string,
  day: string,
  reportingCurrency: string,
  rates: RateTable,
): number | null {
  if (currency === reportingCurrency) return micros;
  const rate = rates.get(day)?.get(currency);
  return rate === undefined ? null : Math.round(micros * rate);
}

/**
 * Shares of a total in percent with two decimals that add up to exactly 100 (largest remainder),
 * or all 0 when the total is 0.
 */
export function percentages(values: number[]): number[] {
  const total = values.reduce((sum, value) => sum + value, 0);
  if (total === 0) return values.map(() => 0);
  const hundredths = values.map((value) => (value / total) * 10_000);
  const floors = hundredths.map(Math.floor);
  let remaining = 10_000 - floors.reduce((sum, value) => sum + value, 0);
  const order = hundredths
    .map((value, i) => ({ i, remainder: value - floors[i]! }))
    .sort((a, b) => b.remainder - a.remainder);
  for (const { i } of order) {
    if (remaining <= 0) break;
    floors[i]! += 1;
    remaining -= 1;
  }
  return floors.map((value) => value / 100);
}

/** What one change of one subscription adds to its day's revenue counters. */
export interface RevenueDelta {
  amount_micros: number;
  new_subscriptions: number;
  renewals: number;
  refunds: number;
  /** +1 when the subscription became active, -1 when it stopped being active. */
  net_active: number;
}

export interface MoneyFacts {
  /** The change: the lifecycle operation that was applied. */
  operation: 'activate' | 'renew' | 'cancel' | 'other';
  refund: boolean;
  /** The store reversed a refund: the price it took back is revenue again. */
  refundReversed: boolean;
  statusBefore: string;
  statusAfter: string;
  price: number;
  trial: boolean;
  trialExpiresAt: string | null;
  /** expires_at before the change: whether the period that ends now was the trial. */
  expiresAtBefore: string;
}

/**
 * Where money moves: a store-verified purchase (not a trial) is a new subscription; the first
 * renewal after a trial is the trial converting (a new subscription too, its first payment); other
 * renewals are renewals; a refund takes the price back. Trials record no revenue.
 * Returns null when the change moves neither money nor the active count.
 */
export function revenueDelta(facts: MoneyFacts): RevenueDelta | null {
  const delta: RevenueDelta = { amount_micros: 0, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: 0 };
  const price = toMicros(facts.price);
  if (facts.operation === 'activate' && facts.statusAfter === 'active' && !facts.trial) {
    delta.amount_micros += price;
    delta.new_subscriptions += 1;
  }
  if (facts.operation === 'renew') {
    const converting = facts.trial && facts.trialExpiresAt !== null && facts.expiresAtBefore <= facts.trialExpiresAt;
    delta.amount_micros += price;
    if (converting) delta.new_subscriptions += 1;
    else delta.renewals += 1;
  }
  if (facts.refund) {
    delta.amount_micros -= price;
    delta.refunds += 1;
  }
  // The refund stays counted on its own day; the money comes back on the day of the reversal.
  if (facts.refundReversed) delta.amount_micros += price;
  if (facts.statusBefore !== 'active' && facts.statusAfter === 'active') delta.net_active += 1;
  if (facts.statusBefore === 'active' && facts.statusAfter !== 'active') delta.net_active -= 1;
  const moves = Object.values(delta).some((value) => value !== 0);
  return moves ? delta : null;
}

/** Two changes written at once (a new purchase and an earlier period's refund): what they move together, field by field. */
export function addRevenueDeltas(a: RevenueDelta | null, b: RevenueDelta | null): RevenueDelta | null {
  if (!a || !b) return a ?? b;
  const sum = { ...a };
  for (const field of Object.keys(b) as (keyof RevenueDelta)[]) sum[field] += b[field];
  return sum;
}

/**
 * A purchase handed to another user (a restore under the transfer policy) brings no money: it was
 * counted when first bought. Only the active count moves (the previous owner's went down).
 */
export function transferredRevenue(delta: RevenueDelta | null): RevenueDelta | null {
  if (!delta || delta.net_active === 0) return null;
  return { amount_micros: 0, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: delta.net_active };
}
