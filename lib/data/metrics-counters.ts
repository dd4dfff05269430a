/**
 * The metrics counters (lib/domain/metrics.ts): per app, day and currency what the day's writes
 * changed, and per app and currency the levels now. The aggregator adds to both from the table's
 * stream; the metrics endpoint reads the days of a period and the levels, never a subscription.
 */
import { EMPTY_METRICS_DELTA, type MetricsDelta } from '../domain/metrics.js';
import type { Contribution } from './aggregates.js';
import { queryPrefix } from './query.js';
import { queryDaysByMonth } from './revenue-reads.js';
import {
  METRICS_NOW_SK_PREFIX,
  metricsDayKey,
  metricsMonthPartition,
  metricsNowKey,
  metricsNowPartition,
} from './table-keys.js';

const LEVEL_NAMES = ['mrr_micros', 'active', 'trials'] as const;
export type MetricsLevels = Pick<MetricsDelta, (typeof LEVEL_NAMES)[number]>;

const nonZero = (amounts: Partial<MetricsDelta>): Record<string, number> =>
  Object.fromEntries(Object.entries(amounts).filter(([, amount]) => amount !== 0));

/** What one change in one currency adds: the day's counter, and the levels now when they move. */
export function metricsContributions(
  appId: string,
  day: string,
  currency: string,
  delta: MetricsDelta,
): Contribution[] {
  const contributions: Contribution[] = [
    { key: metricsDayKey(appId, day, currency), set: { type: 'metrics_counter', day, currency }, add: nonZero(delta) },
  ];
  const levels = nonZero(Object.fromEntries(LEVEL_NAMES.map((name) => [name, delta[name]])));
  if (Object.keys(levels).length > 0)
    contributions.push({ key: metricsNowKey(appId, currency), set: { type: 'metrics_now', currency }, add: levels });
  return contributions;
}

export interface MetricsCounter extends MetricsDelta {
  day: string;
  currency: string;
}

const amountsOf = (item: Record<string, unknown>): MetricsDelta =>
  Object.fromEntries(
    Object.keys(EMPTY_METRICS_DELTA).map((name) => [name, Number(item[name] ?? 0)]),
  ) as unknown as MetricsDelta;

/** The counters of every day from `start` to `end`: one query per month. */
export async function readMetricsCounters(appId: string, start: string, end: string): Promise<MetricsCounter[]> {
  const items = await queryDaysByMonth((month) => metricsMonthPartition(appId, month), start, end);
  return items.map((item) => ({ ...amountsOf(item), day: item.day as string, currency: item.currency as string }));
}

/** The app's levels now, per currency. */
export async function readMetricsNow(appId: string): Promise<Map<string, MetricsLevels>> {
  const items = await queryPrefix(metricsNowPartition(appId), METRICS_NOW_SK_PREFIX);
  return new Map(
    items.map((item) => {
      const { mrr_micros, active, trials } = amountsOf(item);
      return [item.currency as string, { mrr_micros, active, trials }];
    }),
  );
}
