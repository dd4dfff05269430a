import { useMemo, useState } from 'preact/hooks';
import { get, type Pagination, type RevenueStatistics } from '../api';
import { TimeChart } from '../chart';
import { count, daysAgo, isoDate, money, percent } from '../format';
import { Figure, Show, useLoad } from '../ui';

const PERIODS = [
  { days: 7, label: 'Last 7 days', group_by: 'day' },
  { days: 30, label: 'Last 30 days', group_by: 'day' },
  { days: 90, label: 'Last 90 days', group_by: 'week' },
  { days: 365, label: 'Last 12 months', group_by: 'month' },
] as const;

export function Overview() {
  const [days, setDays] = useState<number>(30);
  const period = PERIODS.find((p) => p.days === days) ?? PERIODS[1];
  const range = useMemo(() => ({ start_date: daysAgo(period.days - 1), end_date: isoDate(new Date()) }), [period]);
  const revenue = useLoad(
    () => get<{ data: RevenueStatistics }>('/v1/subscriptions/revenue', { ...range, group_by: period.group_by }),
    [range, period.group_by],
  );
  const active = useLoad(
    () => get<{ pagination: Pagination }>('/v1/subscriptions', { status: 'active', limit: 1 }),
    [],
  );
  return (
    <section>
      <h1>Overview</h1>
      <label for="period">Period</label>{' '}
      <select id="period" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
        {PERIODS.map((p) => (
          <option key={p.days} value={String(p.days)}>
            {p.label}
          </option>
        ))}
      </select>
      <div class="figures">
        <Show loaded={active} what="active subscriptions">
          {({ pagination }) => (
            <Figure label="Active subscriptions" value={count(pagination.total)} testId="active-subscriptions" />
          )}
        </Show>
        <Show loaded={revenue} what="revenue">
          {({ data }) => (
            <>
              <Figure label="Revenue" value={money(data.total_revenue, data.currency)} testId="total-revenue" />
              <Figure
                label="New subscriptions"
                value={count(data.breakdown.reduce((sum, b) => sum + b.new_subscriptions, 0))}
                testId="new-subscriptions"
              />
              <Figure
                label="Renewals"
                value={count(data.breakdown.reduce((sum, b) => sum + b.renewals, 0))}
                testId="renewals"
              />
            </>
          )}
        </Show>
      </div>
      <Show loaded={revenue} what="revenue">
        {({ data }) => (
          <>
            <h2>Revenue</h2>
            <TimeChart
              title="Revenue"
              dates={data.breakdown.map((b) => b.date)}
              series={[
                { label: `Revenue (${data.currency})`, values: data.breakdown.map((b) => b.revenue), color: '#1f5fbf' },
              ]}
              bars
            />
            <h2>New subscriptions and renewals</h2>
            <TimeChart
              title="New subscriptions and renewals"
              dates={data.breakdown.map((b) => b.date)}
              series={[
                { label: 'New', values: data.breakdown.map((b) => b.new_subscriptions), color: '#16803c' },
                { label: 'Renewals', values: data.breakdown.map((b) => b.renewals), color: '#8a4baf' },
              ]}
            />
            <table data-testid="revenue-breakdown">
              <caption>Per {period.group_by}</caption>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Revenue</th>
                  <th scope="col">New</th>
                  <th scope="col">Renewals</th>
                </tr>
              </thead>
              <tbody>
                {data.breakdown.map((b) => (
                  <tr key={b.date}>
                    <td>{b.date}</td>
                    <td>{money(b.revenue, data.currency)}</td>
                    <td>{count(b.new_subscriptions)}</td>
                    <td>{count(b.renewals)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h2>Revenue by product</h2>
            <table data-testid="revenue-by-product">
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Revenue</th>
                  <th scope="col">Share</th>
                </tr>
              </thead>
              <tbody>
                {data.products.map((p) => (
                  <tr key={p.product_id}>
                    <td>{p.product_id}</td>
                    <td>{money(p.revenue, data.currency)}</td>
                    <td>
                      <meter min={0} max={100} value={p.percentage} aria-label={`${p.product_id} share`} />{' '}
                      {percent(p.percentage / 100)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Show>
    </section>
  );
}
