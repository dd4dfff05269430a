/**
 * What one change adds to the metrics counters (lib/data/metrics-counters.ts), written out: the
 * day's counter always, with only the amounts that moved; the levels now only when a level moved.
 */
import { describe, expect, it } from 'vitest';
import { metricsContributions } from '../../lib/data/metrics-counters.js';
import { EMPTY_METRICS_DELTA } from '../../lib/domain/metrics.js';

const DAY_KEY = { pk: 'METRICS#app_1#2026-03', sk: '2026-03-09#EUR' };
const NOW_KEY = { pk: 'METRICS#app_1', sk: 'NOW#EUR' };
const DAY_NAMES = { type: 'metrics_counter', day: '2026-03-09', currency: 'EUR' };
const NOW_NAMES = { type: 'metrics_now', currency: 'EUR' };

describe('metrics contributions of one change', () => {
  it.each([
    [
      'a new paid subscription: the day counts it, the levels move',
      { mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 },
      [
        { key: DAY_KEY, set: DAY_NAMES, add: { mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 } },
        { key: NOW_KEY, set: NOW_NAMES, add: { mrr_micros: 9_990_000, active: 1 } },
      ],
    ],
    [
      'a refund alone: the day counts it, no level moves',
      { refunds: 1 },
      [{ key: DAY_KEY, set: DAY_NAMES, add: { refunds: 1 } }],
    ],
    [
      'a trial converted: one level down, another up',
      { trials: -1, active: 1, trial_conversions: 1 },
      [
        { key: DAY_KEY, set: DAY_NAMES, add: { trials: -1, active: 1, trial_conversions: 1 } },
        { key: NOW_KEY, set: NOW_NAMES, add: { trials: -1, active: 1 } },
      ],
    ],
    ['nothing moved: the day is written, with nothing to add', {}, [{ key: DAY_KEY, set: DAY_NAMES, add: {} }]],
  ])('%s', (_name, moved, expected) => {
    expect(metricsContributions('app_1', '2026-03-09', 'EUR', { ...EMPTY_METRICS_DELTA, ...moved })).toEqual(expected);
  });
});
