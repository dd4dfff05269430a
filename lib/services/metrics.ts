/**
 * GET /v1/subscriptions/metrics from the write-time metrics counters (lib/data/metrics-counters.ts):
 * reads one item per day and currency of the period (one query per month) and the levels now,
 * never the subscriptions, so its cost does not grow with them. Definitions: lib/domain/metrics.ts
 * and docs/api.md#subscription-metrics.
 *
 * Levels (MRR, active subscriptions, active trials) are those at the end of each bucket: the level
 * now minus every change recorded after the bucket. Flows (new, churned, trials ended and
 * converted, refunds) are the changes recorded in the bucket. MRR is converted into the app's
 * reporting currency at the rate of the bucket's last day (today's for a bucket not over yet);
 * MRR with no rate is listed per bucket under `unconverted_mrr`.
 */
import { getApp } from '../data/apps.js';
import { type MetricsLevels, readMetricsCounters, readMetricsNow } from '../data/metrics-counters.js';
import { readExchangeRates } from '../data/revenue-reads.js';
import { conversionRate, EMPTY_METRICS_DELTA, type MetricsDelta } from '../domain/metrics.js';
import {
  bucketsOf,
  convertMicros,
  fromMicros,
  type RateTable,
  validatePeriod,
  walkBackFromLatest,
} from '../domain/revenue-figures.js';
import type { SubscriptionMetrics } from '../schemas/responses.js';
import type { MetricsQuery } from '../schemas/subscription.js';

const FLOWS = ['new_subscriptions', 'churned', 'trials_ended', 'trial_conversions', 'refunds'] as const;
type Flows = Pick<MetricsDelta, (typeof FLOWS)[number]>;

const noFlows = (): Flows => ({ new_subscriptions: 0, churned: 0, trials_ended: 0, trial_conversions: 0, refunds: 0 });
const addFlows = (into: Flows, from: Flows) => {
  for (const name of FLOWS) into[name] += from[name];
};
const flowFigures = (flows: Flows) => ({
  new_subscriptions: flows.new_subscriptions,
  churned: flows.churned,
  trial_conversions: flows.trial_conversions,
  trials_ended: flows.trials_ended,
  trial_conversion_rate: conversionRate(flows.trial_conversions, flows.trials_ended),
  refunds: flows.refunds,
});

// ISO dates compare as strings.
const earlier = (a: string, b: string) => (a < b ? a : b);
const later = (a: string, b: string) => (a > b ? a : b);

export async function subscriptionMetrics(
  appId: string,
  query: MetricsQuery,
  now = new Date(),
): Promise<SubscriptionMetrics> {
  validatePeriod(query.start_date, query.end_date);
  const today = now.toISOString().slice(0, 10);
  const [app, counters, levelsNow] = await Promise.all([
    getApp(appId),
    readMetricsCounters(appId, query.start_date, later(query.end_date, today)),
    readMetricsNow(appId),
  ]);
  const reporting = app?.reporting_currency ?? 'USD';

  // Per currency, the changes of each day from the period's start to today.
  const byDay = new Map<string, Map<string, MetricsDelta>>();
  for (const counter of counters) {
    const days = byDay.get(counter.currency) ?? new Map<string, MetricsDelta>();
    days.set(counter.day, counter);
    byDay.set(counter.currency, days);
  }

  // Levels at the end of a bucket: the levels now, minus every change recorded after its last day.
  const periodBuckets = bucketsOf(query.start_date, query.end_date, query.group_by);
  const running = new Map<string, MetricsLevels>(
    [...new Set([...levelsNow.keys(), ...byDay.keys()])].map((currency) => [
      currency,
      { ...(levelsNow.get(currency) ?? { mrr_micros: 0, active: 0, trials: 0 }) },
    ]),
  );
  const levelsAtEnd: (MetricsLevels & { currency: string })[][] = [];
  walkBackFromLatest(
    periodBuckets,
    counters,
    ({ currency, mrr_micros, active, trials }) => {
      const levels = running.get(currency)!;
      levels.mrr_micros -= mrr_micros;
      levels.active -= active;
      levels.trials -= trials;
    },
    (i) => (levelsAtEnd[i] = [...running].map(([currency, levels]) => ({ currency, ...levels }))),
  );

  const buckets = periodBuckets.map(({ date, days }, i) => {
    const flows = noFlows();
    for (const currencyDays of byDay.values())
      for (const day of days) addFlows(flows, currencyDays.get(day) ?? EMPTY_METRICS_DELTA);
    return { date, rateDay: earlier(days.at(-1)!, today), flows, levels: levelsAtEnd[i]! };
  });

  const foreign = buckets.some((b) => b.levels.some((l) => l.currency !== reporting && l.mrr_micros !== 0));
  const rateDays = buckets.map((b) => b.rateDay);
  const rates: RateTable = foreign
    ? await readExchangeRates(reporting, rateDays.reduce(earlier), rateDays.reduce(later))
    : new Map();

  const total = noFlows();
  const breakdown = buckets.map(({ date, rateDay, flows, levels }) => {
    addFlows(total, flows);
    let mrr = 0;
    const unconverted: { currency: string; amount: number }[] = [];
    for (const level of levels) {
      if (level.mrr_micros === 0) continue;
      const converted = convertMicros(level.mrr_micros, level.currency, rateDay, reporting, rates);
      if (converted === null) unconverted.push({ currency: level.currency, amount: fromMicros(level.mrr_micros) });
      else mrr += converted;
    }
    return {
      date,
      mrr: fromMicros(mrr),
      active_subscriptions: levels.reduce((sum, l) => sum + l.active, 0),
      active_trials: levels.reduce((sum, l) => sum + l.trials, 0),
      ...flowFigures(flows),
      unconverted_mrr: unconverted,
    };
  });

  return {
    currency: reporting,
    period: { start: query.start_date, end: query.end_date },
    breakdown,
    totals: flowFigures(total),
  };
}
