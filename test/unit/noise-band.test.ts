/** The cold-start benchmark's noise band: the order-statistic interval of a median, and the verdicts it allows. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandOfMedians, bandRank, binomialHalfCdf, judge, noiseBand } from '../../bench/support/noise-band.js';

describe('noise band', () => {
  it('binomial tail of a fair coin, exactly', () => {
    // 15 tosses: (1 + 15 + 105 + 455) / 2^15 heads three times or fewer.
    expect(binomialHalfCdf(15, 3)).toBeCloseTo(576 / 32_768, 12);
    expect(binomialHalfCdf(15, 15)).toBeCloseTo(1, 12);
    expect(binomialHalfCdf(1, 0)).toBe(0.5);
  });

  it('the 95% band of 15 values is the 4th to the 12th; below 9 values the whole range', () => {
    expect(bandRank(15)).toBe(4);
    expect(bandRank(31)).toBe(10);
    expect(bandRank(63)).toBe(24);
    expect(bandRank(9)).toBe(2);
    expect(bandRank(8)).toBe(1);
    expect(bandRank(1)).toBe(1);
    const values = [1.31, 1.2, 1.25, 1.22, 1.28, 1.19, 1.4, 1.24, 1.23, 1.3, 1.21, 1.26, 1.27, 1.18, 1.29];
    expect(noiseBand(values)).toEqual({ median: 1.25, low: 1.21, high: 1.29, n: 15 });
    expect(noiseBand([2, 1])).toEqual({ median: 2, low: 1, high: 2, n: 2 });
    expect(() => noiseBand([])).toThrow('no values');
  });

  it('each band holds at least 95% of the outcomes: no smaller rank would, every larger one falls short', () => {
    for (let n = 1; n <= 80; n++) {
      const rank = bandRank(n);
      const coverage = (r: number) => 1 - 2 * binomialHalfCdf(n, r - 1);
      expect(rank).toBeLessThanOrEqual((n + 1) / 2);
      if (rank > 1) expect(coverage(rank)).toBeGreaterThanOrEqual(0.95);
      if (rank + 1 <= (n + 1) / 2) expect(coverage(rank + 1)).toBeLessThan(0.95);
    }
  });

  it('the band holds the median, inside the values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { minLength: 1, maxLength: 70 }), (values) => {
        const band = noiseBand(values);
        expect(band.low).toBeLessThanOrEqual(band.median);
        expect(band.median).toBeLessThanOrEqual(band.high);
        expect(band.low).toBeGreaterThanOrEqual(Math.min(...values));
        expect(band.high).toBeLessThanOrEqual(Math.max(...values));
      }),
    );
  });

  it('judges an upper limit only outside the band', () => {
    expect(judge({ low: 1.1, high: 1.2 }, 1.2)).toBe('pass');
    expect(judge({ low: 1.1, high: 1.2 }, 1.25)).toBe('pass');
    expect(judge({ low: 1.1, high: 1.2 }, 1.19)).toBe('inside');
    expect(judge({ low: 1.1, high: 1.2 }, 1.1)).toBe('inside');
    expect(judge({ low: 1.1, high: 1.2 }, 1.09)).toBe('fail');
  });

  it('the band of the median function is the median of the lower bounds to that of the upper ones', () => {
    expect(
      bandOfMedians([
        { median: 1.2, low: 1.1, high: 1.3 },
        { median: 1.4, low: 1.35, high: 1.5 },
        { median: 1.25, low: 1.24, high: 1.26 },
      ]),
    ).toEqual({ median: 1.25, low: 1.24, high: 1.3 });
  });
});
