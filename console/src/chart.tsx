/**
 * A time chart drawn by uPlot (about 20 KB gzipped: the smallest well-kept canvas chart library
 * that draws time series and bars). A chart is a picture: every page shows its numbers beside it
 * in a table, and the canvas carries a label for screen readers.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

export function TimeChart({
  title,
  dates,
  series,
  bars = false,
}: {
  title: string;
  /** YYYY-MM-DD, one per point. */
  dates: string[];
  series: ChartSeries[];
  bars?: boolean;
}) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const xs = dates.map((date) => Date.parse(`${date}T00:00:00Z`) / 1000);
    const width = Math.max(element.clientWidth, 320);
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true },
        scales: { x: { time: true } },
        axes: [{}, { size: 70 }],
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
    plot.root.querySelector('canvas')?.setAttribute('aria-label', title);
    plot.root.querySelector('canvas')?.setAttribute('role', 'img');
    return () => plot.destroy();
  }, [title, dates, series, bars]);
  return <div class="chart" ref={target} data-testid={`chart-${title}`} />;
}
