import { useMemo, useState } from 'preact/hooks';
import { get, type RevenueStatistics, type SubscriptionMetrics } from '../api';
import { TimeChart } from '../chart';
import {
  bucketLabel,
  count,
  daysAgo,
  firstOfMonthAgo,
  type GroupBy,
  isoDate,
  mondayWeeksAgo,
  money,
  percent,
} from '../format';
import { Empty, Figure, Show, Table, useLoad } from '../ui';

/**
 * The periods the overview offers. Weeks start on a Monday and months on the 1st, so that every
 * bucket (the first one too) is a whole week or month, named by its own first day.
 */
const PERIODS: readonly { id: string; label: string; group_by: GroupBy; start: () => string }[] = [
  { id: '7d', label: 'Last 7 days', group_by: 'day', start: () => daysAgo(6) },
  { id: '30d', label: 'Last 30 days', group_by: 'day', start: () => daysAgo(29) },
  { id: '13w', label: 'Last 13 weeks', group_by: 'week', start: () => mondayWeeksAgo(12) },
  { id: '12m', label: 'Last 12 months', group_by: 'month', start: () => firstOfMonthAgo(11) },
];

/** A conversion rate as the API gives it (percent, null when no trial ended). */
const rate = (value: number | null) => (value === null ? '—' : percent(value / 100));

/** Both endpoints answer the same buckets for the same period and grouping: one row each. */
function load(query: Record<string, string>) {
  return Promise.all([
    get<{ data: SubscriptionMetrics }>('/v1/subscriptions/metrics', query),
    get<{ data: RevenueStatistics }>('/v1/subscriptions/revenue', query),
  ]).then(([metrics, revenue]) => ({ metrics: metrics.data, revenue: revenue.data }));
}

/** A bucket in which nothing was active and nothing happened. */
const isQuiet = (b: SubscriptionMetrics['breakdown'][number]): boolean =>
  b.mrr === 0 &&
  b.active_subscriptions === 0 &&
  b.active_trials === 0 &&
  b.new_subscriptions === 0 &&
  b.churned === 0 &&
  b.refunds === 0 &&
  b.trials_ended === 0 &&
  b.unconverted_mrr.length === 0;

export function Overview() {
  const [periodId, setPeriodId] = useState('30d');
  const period = PERIODS.find((p) => p.id === periodId) ?? PERIODS[1]!;
  const query = useMemo(
    () => ({ start_date: period.start(), end_date: isoDate(new Date()), group_by: period.group_by }),
    [period],
  );
  const figures = useLoad(() => load(query), [query]);
  return (
    <section>
      <h1>Overview</h1>
      <label for="period">Period</label>{' '}
      <select id="period" value={periodId} onChange={(e) => setPeriodId((e.target as HTMLSelectElement).value)}>
        {PERIODS.map((p) => (
          <option key={p.id} value={p.id}>
            {p.label}
          </option>
        ))}
      </select>
      <Show loaded={figures} what="metrics and revenue">
        {({ metrics, revenue }) => {
          const { currency, breakdown, totals } = metrics;
          const now = breakdown.at(-1)!;
          const dates = breakdown.map((b) => b.date);
          const revenueOf = new Map(revenue.breakdown.map((b) => [b.date, b]));
          const groupBy = period.group_by;
          if (revenue.total_revenue === 0 && breakdown.every(isQuiet))
            return (
              <Empty>
                Nothing to show for {period.label.toLowerCase()}: no active subscription or trial, no purchase, no
                churn, no refund, no revenue. The figures and charts fill in once the app verifies its first purchase.
              </Empty>
            );
          return (
            <>
              <div class="figures">
                <Figure label="MRR" value={money(now.mrr, currency)} testId="mrr" />
                <Figure
                  label="Active subscriptions"
                  value={count(now.active_subscriptions)}
                  testId="active-subscriptions"
                />
                <Figure label="Active trials" value={count(now.active_trials)} testId="active-trials" />
                <Figure label="New subscriptions" value={count(totals.new_subscriptions)} testId="new-subscriptions" />
                <Figure label="Churned" value={count(totals.churned)} testId="churned" />
                <Figure
                  label="Trial conversion"
                  value={rate(totals.trial_conversion_rate)}
                  testId="trial-conversion-rate"
                />
                <Figure label="Revenue" value={money(revenue.total_revenue, revenue.currency)} testId="total-revenue" />
              </div>
              <h2>MRR</h2>
              <TimeChart
                title="MRR"
                dates={dates}
                groupBy={groupBy}
                currency={currency}
                series={[{ label: `MRR (${currency})`, values: breakdown.map((b) => b.mrr), color: '#1f5fbf' }]}
                empty="No paying subscription in this period: MRR is zero."
              />
              {now.unconverted_mrr.length > 0 && (
                <p data-testid="unconverted-mrr">
                  Not in MRR for want of an exchange rate:{' '}
                  {now.unconverted_mrr.map((u) => money(u.amount, u.currency)).join(', ')}.
                </p>
              )}
              <h2>Active subscriptions and trials</h2>
              <TimeChart
                title="Active subscriptions and trials"
                dates={dates}
                groupBy={groupBy}
                empty="No active subscription or trial in this period."
                series={[
                  { label: 'Active', values: breakdown.map((b) => b.active_subscriptions), color: '#16803c' },
                  { label: 'Trials', values: breakdown.map((b) => b.active_trials), color: '#b35900' },
                ]}
              />
              <h2>New and churned</h2>
              <TimeChart
                title="New and churned"
                dates={dates}
                groupBy={groupBy}
                empty="No new or churned subscription in this period."
                series={[
                  { label: 'New', values: breakdown.map((b) => b.new_subscriptions), color: '#16803c' },
                  { label: 'Churned', values: breakdown.map((b) => b.churned), color: '#b3261e' },
                ]}
                bars
              />
              <h2>Revenue</h2>
              <TimeChart
                title="Revenue"
                dates={revenue.breakdown.map((b) => b.date)}
                groupBy={groupBy}
                currency={revenue.currency}
                empty="No revenue in this period."
                series={[
                  {
                    label: `Revenue (${revenue.currency})`,
                    values: revenue.breakdown.map((b) => b.revenue),
                    color: '#1f5fbf',
                  },
                ]}
                bars
              />
              <Table
                testId="breakdown"
                caption={`Per ${groupBy}`}
                columns={[
                  'Date',
                  'MRR',
                  'Active',
                  'Trials',
                  'New',
                  'Churned',
                  'Trial conversion',
                  'Refunds',
                  'Revenue',
                  'Renewals',
                ]}
                rows={breakdown}
                row={(b) => (
                  <tr key={b.date}>
                    <td>{bucketLabel(b.date, groupBy)}</td>
                    <td>{money(b.mrr, currency)}</td>
                    <td>{count(b.active_subscriptions)}</td>
                    <td>{count(b.active_trials)}</td>
                    <td>{count(b.new_subscriptions)}</td>
                    <td>{count(b.churned)}</td>
                    <td>{rate(b.trial_conversion_rate)}</td>
                    <td>{count(b.refunds)}</td>
                    <td>{money(revenueOf.get(b.date)?.revenue ?? 0, revenue.currency)}</td>
                    <td>{count(revenueOf.get(b.date)?.renewals ?? 0)}</td>
                  </tr>
                )}
              />
              <h2>Revenue by product</h2>
              {revenue.products.length === 0 ? (
                <Empty>No revenue in this period.</Empty>
              ) : (
                <Table
                  testId="revenue-by-product"
                  columns={['Product', 'Revenue', 'Share']}
                  rows={revenue.products}
                  row={(p) => (
                    <tr key={p.product_id}>
                      <td>{p.product_id}</td>
                      <td>{money(p.revenue, revenue.currency)}</td>
                      <td>
                        <meter min={0} max={100} value={p.percentage} aria-label={`${p.product_id} share`} />{' '}
                        {percent(p.percentage / 100)}
                      </td>
                    </tr>
                  )}
                />
              )}
            </>
          );
        }}
      </Show>
    </section>
  );
}
