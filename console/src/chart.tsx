/**
 * A time chart drawn by uPlot (about 20 KB gzipped: the smallest well-kept canvas chart library
 * that draws time series and bars). A chart is a picture: every page shows its numbers beside it
 * in a table, and the canvas carries a label for screen readers. Its legend names the series only
 * (the values are in the table), the x axis speaks the table's date format, and a money chart's y
 * axis its currency.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { bucketLabel, count, type GroupBy, moneyTick } from './format';
import { Empty } from './ui';

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

/** Steps of a count axis: whole numbers only. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000];

export function TimeChart({
  title,
  dates,
  groupBy,
  series,
  currency,
  bars = false,
  empty,
}: {
  title: string;
  /** YYYY-MM-DD, one per point: each bucket's first day. */
  dates: string[];
  groupBy: GroupBy;
  series: ChartSeries[];
  /** Set for a money chart: the y axis shows amounts in it. */
  currency?: string;
  bars?: boolean;
  /** Shown instead of a flat line at zero when every value is zero. */
  empty: string;
}) {
  const target = useRef<HTMLDivElement>(null);
  const flat = series.every((s) => s.values.every((v) => v === 0));
  useEffect(() => {
    const element = target.current;
    if (!element || flat) return;
    const xs = dates.map((date) => Date.parse(`${date}T00:00:00Z`) / 1000);
    const widthOf = () => Math.max(element.clientWidth, 240);
    // The y axis's labels as last drawn: the canvas's accessible name says what they span.
    let yTicks: string[] = [];
    const describe = () =>
      `${title}: ${series.map((s) => s.label).join(', ')}, ${bucketLabel(dates[0]!, groupBy)} to ` +
      `${bucketLabel(dates.at(-1)!, groupBy)}, axis ${yTicks[0] ?? ''} to ${yTicks.at(-1) ?? ''}`;
    // A tick on every bucket, labelled as far apart as the labels need: the axis names the table's rows.
    const labelWidth = groupBy === 'month' ? 70 : 95;
    const stride = (u: uPlot) => Math.max(1, Math.ceil((xs.length * labelWidth) / Math.max(u.width - 100, 1)));
    // Bars are centred on their bucket: half a bucket of room at each end keeps the outer ones whole.
    const half = xs.length > 1 ? (xs[1]! - xs[0]!) / 2 : 43_200;
    const plot = new uPlot(
      {
        width: widthOf(),
        height: 220,
        // Room on the right for the last date's label, centred on the plot's edge.
        padding: [12, 48, 0, 0],
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true, live: false },
        cursor: { show: false },
        scales: { x: { time: true, ...(bars ? { range: () => [xs[0]! - half, xs.at(-1)! + half] } : {}) } },
        axes: [
          {
            splits: () => xs,
            values: (u, ticks) =>
              ticks.map((ts, i) =>
                i % stride(u) === 0 ? bucketLabel(new Date(ts * 1000).toISOString(), groupBy) : '',
              ),
          },
          currency
            ? { size: 80, values: (_, ticks) => (yTicks = ticks.map((v) => moneyTick(v, currency))) }
            : { size: 60, incrs: COUNT_STEPS, values: (_, ticks) => (yTicks = ticks.map(count)) },
        ],
        hooks: { draw: [(u) => u.root.querySelector('canvas')?.setAttribute('aria-label', describe())] },
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            ...(bars ? { fill: `${s.color}99`, paths: uPlot.paths.bars?.({ size: [0.6, 40] }) } : {}),
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      element,
    );
    plot.root.querySelector('canvas')?.setAttribute('role', 'img');
    // A phone turned or a window resized: the chart keeps to its column.
    const resized = new ResizeObserver(() => {
      if (widthOf() !== plot.width) plot.setSize({ width: widthOf(), height: 220 });
    });
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [title, dates, groupBy, series, currency, bars, flat]);
  if (flat)
    return (
      <div data-testid={`chart-${title}`}>
        <Empty>{empty}</Empty>
      </div>
    );
  return <div class="chart" ref={target} data-testid={`chart-${title}`} />;
}
