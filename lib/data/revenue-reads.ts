/** Revenue counters (written with each state change, see revenue-counters.ts) and exchange rates, read by month. */
import type { RateTable } from '../domain/revenue-figures.js';
import { batchWriteAll, putRequest } from './batch.js';
import * as keys from './entity-keys.js';
import { queryAll } from './query.js';

export interface RevenueCounter {
  day: string;
  product_id: string;
  currency: string;
  amount_micros: number;
  new_subscriptions: number;
  renewals: number;
  refunds: number;
  net_active: number;
}

const monthsBetween = (start: string, end: string): string[] => {
  const months: string[] = [];
  // Stryker disable next-line MethodExpression: a month (YYYY-MM) is <= the day YYYY-MM-DD exactly when it is <= that day's month
  for (let month = start.slice(0, 7); month <= end.slice(0, 7); ) {
    months.push(month);
    const [year, m] = month.split('-').map(Number) as [number, number];
    month = m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
  }
  return months;
};

/**
 * The items of every day from `start` to `end` in partitions by month whose sort keys start with
 * the day: one query per month, whatever the app's size.
 */
export async function queryDaysByMonth(
  partitionOf: (month: string) => string,
  start: string,
  end: string,
): Promise<Record<string, unknown>[]> {
  const months = await Promise.all(
    monthsBetween(start, end).map((month) =>
      queryAll({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': partitionOf(month), ':from': start, ':to': `${end}~` },
      }),
    ),
  );
  return months.flat();
}

/** The counters of every day from `start` to `end`. */
export async function readRevenueCounters(appId: string, start: string, end: string): Promise<RevenueCounter[]> {
  const items = await queryDaysByMonth((month) => keys.revenueMonth(appId, month), start, end);
  return items.map((item) => ({
    day: item.day as string,
    product_id: item.product_id as string,
    currency: item.currency as string,
    amount_micros: Number(item.amount_micros ?? 0),
    new_subscriptions: Number(item.new_subscriptions ?? 0),
    renewals: Number(item.renewals ?? 0),
    refunds: Number(item.refunds ?? 0),
    net_active: Number(item.net_active ?? 0),
  }));
}

export interface ExchangeRate {
  date: string;
  from: string;
  to: string;
  /** Units of `to` for one unit of `from`. */
  rate: number;
}

export async function putExchangeRates(rates: ExchangeRate[]): Promise<void> {
  await batchWriteAll(rates.map((r) => putRequest({ ...keys.fxRate(r.to, r.date, r.from), type: 'fx_rate', ...r })));
}

/** Rates into `to` for the days of the period, as day -> currency -> rate. */
export async function readExchangeRates(to: string, start: string, end: string): Promise<RateTable> {
  const items = await queryDaysByMonth((month) => keys.fxMonth(to, month), start, end);
  const table = new Map<string, Map<string, number>>();
  for (const item of items) {
    const day = item.date as string;
    if (!table.has(day)) table.set(day, new Map());
    table.get(day)!.set(item.from as string, Number(item.rate));
  }
  return table;
}
