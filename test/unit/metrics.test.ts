import { describe, expect, it } from 'vitest';
import {
  conversionRate,
  EMPTY_METRICS_DELTA,
  inTrial,
  isPaying,
  type MetricsDelta,
  type MetricsSubject,
  metricsChange,
  monthlyMicros,
} from '../../lib/domain/metrics.js';

const sub = (overrides: Partial<MetricsSubject> = {}): MetricsSubject => ({
  status: 'active',
  environment: 'production',
  price: 9.99,
  currency: 'USD',
  billing_period: 'monthly',
  trial_period: false,
  trial_expires_at: null,
  expires_at: '2026-12-01T00:00:00.000Z',
  refunded_at: null,
  ...overrides,
});

const TRIAL_END = '2026-11-08T00:00:00.000Z';
const trial = (overrides: Partial<MetricsSubject> = {}) =>
  sub({ trial_period: true, trial_expires_at: TRIAL_END, expires_at: TRIAL_END, ...overrides });
/** The same trial after its first paid renewal: the period now ends after the trial. */
const converted = (overrides: Partial<MetricsSubject> = {}) =>
  trial({ expires_at: '2026-12-08T00:00:00.000Z', ...overrides });

const zero: MetricsDelta = EMPTY_METRICS_DELTA;
const usd = (delta: Partial<MetricsDelta>) => [{ currency: 'USD', delta: { ...zero, ...delta } }];

describe('a price normalised to a month', () => {
  it.each([
    ['weekly', 2.99, 12_956_667], // 2.99 x 52 / 12
    ['monthly', 9.99, 9_990_000],
    ['quarterly', 24.99, 8_330_000],
    ['semiannual', 44.99, 7_498_333],
    ['yearly', 59.99, 4_999_167],
  ] as const)('%s at %d is %d micro-units a month', (period, price, micros) => {
    expect(monthlyMicros(price, period)).toBe(micros);
  });
});

describe('trial and paying', () => {
  it.each([
    ['active, no trial', sub(), false, true],
    ['active trial, period ends with the trial', trial(), true, false],
    ['a trial converted: its period ends after the trial', converted(), false, true],
    ['a trial that is expired', trial({ status: 'expired' }), false, false],
    ['paused', sub({ status: 'paused' }), false, false],
    ['pending_verification', sub({ status: 'pending_verification' }), false, false],
    ['cancelled', sub({ status: 'cancelled' }), false, false],
  ])('%s: in trial %s, paying %s', (_, subject, trialing, paying) => {
    expect(inTrial(subject)).toBe(trialing);
    expect(isPaying(subject)).toBe(paying);
  });
});

describe('what one write changes in the metrics', () => {
  it.each<[string, MetricsSubject | undefined, MetricsSubject | undefined, ReturnType<typeof metricsChange>]>([
    [
      'a purchase recorded active: new, paying',
      undefined,
      sub(),
      usd({ mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 }),
    ],
    [
      'a pending purchase verified: new, paying',
      sub({ status: 'pending_verification' }),
      sub(),
      usd({ mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 }),
    ],
    ['a pending purchase recorded: nothing yet', undefined, sub({ status: 'pending_verification' }), []],
    ['a trial starts: a trial, not new', undefined, trial(), usd({ trials: 1 })],
    [
      'a trial converts: new, converted, paying',
      trial(),
      converted(),
      usd({
        mrr_micros: 9_990_000,
        active: 1,
        trials: -1,
        new_subscriptions: 1,
        trials_ended: 1,
        trial_conversions: 1,
      }),
    ],
    [
      'a trial expires unconverted: ended, not churned',
      trial(),
      trial({ status: 'expired' }),
      usd({ trials: -1, trials_ended: 1 }),
    ],
    ['a renewal: nothing moves', sub(), sub({ expires_at: '2027-01-01T00:00:00.000Z' }), []],
    ['a renewal at a new price: MRR follows', sub(), sub({ price: 12.99 }), usd({ mrr_micros: 3_000_000 })],
    [
      'an upgrade to yearly: MRR of the yearly price',
      sub(),
      sub({ price: 59.99, billing_period: 'yearly' }),
      usd({ mrr_micros: 4_999_167 - 9_990_000 }),
    ],
    ['auto-renew turned off: still paying', sub(), sub({ auto_renew: false } as Partial<MetricsSubject>), []],
    ['expired: churned', sub(), sub({ status: 'expired' }), usd({ mrr_micros: -9_990_000, active: -1, churned: 1 })],
    [
      'cancelled with a refund: churned and refunded',
      sub(),
      sub({ status: 'cancelled', refunded_at: '2026-11-20T00:00:00.000Z' }),
      usd({ mrr_micros: -9_990_000, active: -1, churned: 1, refunds: 1 }),
    ],
    [
      'a refund that leaves the subscription active (a store that keeps access): counted',
      sub(),
      sub({ refunded_at: '2026-11-20T00:00:00.000Z' }),
      usd({ refunds: 1 }),
    ],
    [
      'a refunded subscription written again: not counted twice',
      sub({ status: 'cancelled', refunded_at: '2026-11-20T00:00:00.000Z' }),
      sub({ status: 'cancelled', refunded_at: '2026-11-20T00:00:00.000Z', price: 1 }),
      [],
    ],
    [
      'a refund the store reversed: active again, no refund counted, not new',
      sub({ status: 'cancelled', refunded_at: '2026-11-20T00:00:00.000Z' }),
      sub(),
      usd({ mrr_micros: 9_990_000, active: 1 }),
    ],
    [
      'paused: leaves the levels, not churned',
      sub(),
      sub({ status: 'paused' }),
      usd({ mrr_micros: -9_990_000, active: -1 }),
    ],
    ['resumed: back, not new', sub({ status: 'paused' }), sub(), usd({ mrr_micros: 9_990_000, active: 1 })],
    [
      'an expired subscription recovered by the store: back, not new',
      sub({ status: 'expired' }),
      sub(),
      usd({ mrr_micros: 9_990_000, active: 1 }),
    ],
    [
      'a trial cancelled while still running: nothing until it ends',
      trial(),
      trial({ cancelled_at: 'x' } as Partial<MetricsSubject>),
      [],
    ],
    ['removed: leaves the levels, no event', sub(), undefined, usd({ mrr_micros: -9_990_000, active: -1 })],
    ['a sandbox purchase: nothing', undefined, sub({ environment: 'sandbox' }), []],
    [
      'a sandbox subscription expiring: nothing',
      sub({ environment: 'sandbox' }),
      sub({ environment: 'sandbox', status: 'expired' }),
      [],
    ],
    [
      'the test store counts',
      undefined,
      sub({ environment: 'test' }),
      usd({ mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 }),
    ],
  ])('%s', (_, before, after, expected) => {
    expect(metricsChange(before, after)).toEqual(expected);
  });

  it('a store changing the currency moves the MRR from one currency to the other', () => {
    expect(metricsChange(sub(), sub({ price: 8.99, currency: 'EUR' }))).toEqual([
      { currency: 'USD', delta: { ...zero, mrr_micros: -9_990_000, active: -1 } },
      { currency: 'EUR', delta: { ...zero, mrr_micros: 8_990_000, active: 1 } },
    ]);
  });
});

describe('the trial conversion rate', () => {
  it.each([
    [0, 0, null],
    [0, 3, 0],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [3, 3, 100],
  ])('%d of %d trials converted: %s', (conversions, ended, rate) => {
    expect(conversionRate(conversions, ended)).toBe(rate);
  });
});
