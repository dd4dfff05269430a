/**
 * The noise band of a benchmark ratio: the distribution-free confidence interval of the median of
 * repeated measurements (each an alternating pair's ratio), between two order statistics chosen by
 * the binomial distribution. A budget inside the band cannot be judged from these measurements: a
 * rerun of the same code could land on either side of it, so the benchmark measures more pairs.
 */
import { median } from './report.js';

/** Confidence that the median of the pairs' distribution lies in the band. */
export const BAND_CONFIDENCE = 0.95;

export interface Band {
  /** The median of the values (the upper middle one of an even count, as report.ts's `median`). */
  median: number;
  low: number;
  high: number;
  /** How many values it was taken over. */
  n: number;
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
export function binomialHalfCdf(n: number, k: number): number {
  let term = 0.5 ** n;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * The 1-based rank `r` of the band's lower bound: the largest with P(X < r) <= (1 - confidence) / 2,
 * so that [value r, value n + 1 - r] holds the median with at least `confidence`. Below 9 values the
 * 95% band is the whole range (rank 1).
 */
export function bandRank(n: number, confidence = BAND_CONFIDENCE): number {
  const tail = (1 - confidence) / 2;
  let rank = 1;
  while (rank + 1 <= (n + 1) / 2 && binomialHalfCdf(n, rank) <= tail) rank++;
  return rank;
}

export function noiseBand(values: number[], confidence = BAND_CONFIDENCE): Band {
  if (values.length === 0) throw new Error('no values to take a band of');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = bandRank(sorted.length, confidence);
  return {
    median: median(sorted),
    low: sorted[rank - 1]!,
    high: sorted[sorted.length - rank]!,
    n: sorted.length,
  };
}

/** Whether `budget` (an upper limit) can be judged from `band`: `inside` when the band holds it. */
export function judge(band: Pick<Band, 'low' | 'high'>, budget: number): 'pass' | 'fail' | 'inside' {
  if (band.high <= budget) return 'pass';
  if (band.low > budget) return 'fail';
  return 'inside';
}

/**
 * The band of the median over several subjects' medians: if each subject's true median lies in its
 * band, the median of them lies between the median of the lower bounds and that of the upper ones.
 */
export function bandOfMedians(bands: Pick<Band, 'median' | 'low' | 'high'>[]): Omit<Band, 'n'> {
  return {
    median: median(bands.map((b) => b.median)),
    low: median(bands.map((b) => b.low)),
    high: median(bands.map((b) => b.high)),
  };
}
