/**
 * GET /v1/subscriptions/revenue from the write-time counters: reads O(days x products) counter
 * items (one query per month), never the subscriptions, next to the app and its active count;
 * exchange rates only when some money is in another currency than the app's reporting one.
 *
 * - revenue: money that moved in the bucket (new purchases, trial conversions, renewals, minus
 *   refunds), converted into the app's reporting currency with the day's operator-supplied rate;
 *   amounts with no rate are listed under `unconverted` instead of being dropped.
 * - subscriptions: subscriptions active at the end of the bucket (today's active count from the
 *   list counters, minus the net changes recorded after the bucket).
 * - new_subscriptions: first payments (a purchase without trial, or a trial converting).
 * - renewals: later payments of the same subscription.
 */

import { AppError } from '../core/errors.js';
import { getApp } from '../data/apps.js';
import { getProduct } from '../data/products.js';
import { readExchangeRates, readRevenueCounters } from '../data/revenue-reads.js';
import { countMatching } from '../data/subscription-queries.js';
import {
  bucketsOf,
  convertMicros,
  fromMicros,
  percentages,
  validatePeriod,
  walkBackFromLatest,
} from '../domain/revenue-figures.js';
import type { RevenueStatistics } from '../schemas/responses.js';
import type { RevenueQuery } from '../schemas/subscription.js';

export async function revenueStatistics(
  appId: string,
  query: RevenueQuery,
  now = new Date(),
): Promise<RevenueStatistics> {
  validatePeriod(query.start_date, query.end_date);
  if (query.product_id && !(await getProduct(appId, query.product_id))) {
    throw new AppError('PRODUCT_NOT_FOUND', `Product ${query.product_id} not found`);
  }
  const today = now.toISOString().slice(0, 10);
  // biome-ignore lint/complexity/useMathMinMax: ISO dates compare as strings; Math.max would make them NaN
  const readUntil = query.end_date > today ? query.end_date : today;
  const [app, counters, activeNow] = await Promise.all([
    getApp(appId),
    readRevenueCounters(appId, query.start_date, readUntil),
    countMatching(appId, { status: 'active', product_id: query.product_id }),
  ]);
  const currency = app?.reporting_currency ?? 'USD';
  const relevant = counters.filter((c) => !query.product_id || c.product_id === query.product_id);
  const foreign = relevant.some((c) => c.currency !== currency && c.day <= query.end_date);
  const rates = foreign ? await readExchangeRates(currency, query.start_date, query.end_date) : new Map();

  const byDay = new Map<string, { revenue: number; newSubs: number; renewals: number; netActive: number }>();
  const byProduct = new Map<string, number>();
  const unconverted = new Map<string, number>();
  for (const counter of relevant) {
    const day = byDay.get(counter.day) ?? { revenue: 0, newSubs: 0, renewals: 0, netActive: 0 };
    day.netActive += counter.net_active;
    if (counter.day <= query.end_date) {
      const converted = convertMicros(counter.amount_micros, counter.currency, counter.day, currency, rates);
      if (converted === null) {
        unconverted.set(counter.currency, (unconverted.get(counter.currency) ?? 0) + counter.amount_micros);
      } else {
        day.revenue += converted;
        byProduct.set(counter.product_id, (byProduct.get(counter.product_id) ?? 0) + converted);
      }
      day.newSubs += counter.new_subscriptions;
      day.renewals += counter.renewals;
    }
    byDay.set(counter.day, day);
  }

  // Active at the end of day D = active now - every net change recorded after D.
  const periodBuckets = bucketsOf(query.start_date, query.end_date, query.group_by);
  const changesAfterEnd: number[] = [];
  let changes = 0;
  walkBackFromLatest(
    periodBuckets,
    [...byDay].map(([day, v]) => ({ day, netActive: v.netActive })),
    (change) => (changes += change.netActive),
    (i) => (changesAfterEnd[i] = changes),
  );
  const breakdown = periodBuckets.map(({ date, days }, i) => {
    const totals = days.reduce(
      (acc, d) => {
        const v = byDay.get(d);
        return v
          ? { revenue: acc.revenue + v.revenue, newSubs: acc.newSubs + v.newSubs, renewals: acc.renewals + v.renewals }
          : acc;
      },
      { revenue: 0, newSubs: 0, renewals: 0 },
    );
    const last = days.at(-1)!;
    return {
      date,
      revenue: fromMicros(totals.revenue),
      subscriptions: last >= today ? activeNow : activeNow - changesAfterEnd[i]!,
      new_subscriptions: totals.newSubs,
      renewals: totals.renewals,
    };
  });

  const totalMicros = [...byProduct.values()].reduce((a, b) => a + b, 0);
  const ranked = [...byProduct].sort((a, b) => b[1] - a[1]);
  const shares = percentages(ranked.map(([, micros]) => micros));
  return {
    total_revenue: fromMicros(totalMicros),
    currency,
    period: { start: query.start_date, end: query.end_date },
    breakdown,
    products: ranked.map(([product_id, micros], i) => ({
      product_id,
      revenue: fromMicros(micros),
      percentage: shares[i]!,
    })),
    unconverted: [...unconverted]
      .filter(([, micros]) => micros !== 0)
      .map(([code, micros]) => ({ currency: code, amount: fromMicros(micros) })),
  };
}
