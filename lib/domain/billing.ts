/** Calendar arithmetic of billing periods (pure). */
import type { BillingPeriod } from '../schemas/product.js';

const DAY_MS = 86_400_000;

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/**
 * Adds whole calendar months in UTC, clamping to the last day of the target month:
 * Jan 31 + 1 month = Feb 28 (Feb 29 in leap years), as the stores bill.
 */
export function addMonths(from: Date, months: number): Date {
  const target = new Date(from.getTime());
  const day = from.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}

/** End of one billing period that starts at `from`. */
export function addBillingPeriod(from: Date, period: BillingPeriod): Date {
  return period === 'weekly'
    ? addDays(from, 7)
    : addMonths(from, { monthly: 1, quarterly: 3, semiannual: 6, yearly: 12 }[period]);
}
