export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** A money axis tick: whole amounts without cents ("$1,200"), others with them ("$2.50"). */
export function moneyTick(amount: number, currency: string): string {
  try {
    const cents = Number.isInteger(amount) ? 0 : 2;
    return new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      minimumFractionDigits: cents,
      maximumFractionDigits: cents,
    }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

export const count = (value: number): string => new Intl.NumberFormat('en').format(value);

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;

/** "2026-11-27 08:16 UTC": operators compare times across tools, so the console shows UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const ISO_TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})/g;

/** A text with every timestamp in it in the console's one format ("renewed to 2026-12-31 04:35 UTC"). */
export const withTimes = (text: string): string => text.replace(ISO_TIMESTAMP, (iso) => when(iso));

/** A value as the history shows it: timestamps in the console's one format, anything else as it is. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return withTimes(value);
  return JSON.stringify(value);
}

export type GroupBy = 'day' | 'week' | 'month';

/** A bucket's date as the overview shows it: the month of a month ("2026-03"), else the day. */
export const bucketLabel = (date: string, groupBy: GroupBy): string =>
  groupBy === 'month' ? date.slice(0, 7) : date.slice(0, 10);

export const isoDate = (date: Date): string => date.toISOString().slice(0, 10);

export function daysAgo(days: number, from = new Date()): string {
  return isoDate(new Date(from.getTime() - days * 86_400_000));
}

/** The Monday of the ISO week `weeksBack` weeks before the week of `from` (UTC). */
export function mondayWeeksAgo(weeksBack: number, from = new Date()): string {
  const weekday = (from.getUTCDay() + 6) % 7; // Monday = 0
  return daysAgo(weekday + 7 * weeksBack, from);
}

/** The first day of the month `monthsBack` months before the month of `from` (UTC). */
export function firstOfMonthAgo(monthsBack: number, from = new Date()): string {
  return isoDate(new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() - monthsBack, 1)));
}
