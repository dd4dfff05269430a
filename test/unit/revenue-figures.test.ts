import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addRevenueDeltas,
  bucketOf,
  bucketsOf,
  convertMicros,
  fromMicros,
  isCalendarDate,
  percentages,
  revenueDelta,
  toMicros,
  transferredRevenue,
  validatePeriod,
  walkBackFromLatest,
} from '../../lib/domain/revenue-figures.js';
import { appErrorThrownBy } from '../support/assertions.js';

describe('revenue buckets', () => {
  it('weeks are ISO weeks starting Monday, months calendar months; a bucket date is clipped to the period', () => {
    // 2026-01-01 is a Thursday: its week began Monday 2025-12-29, which is before the period.
    expect(bucketOf('2026-01-01', 'week', '2026-01-01')).toBe('2026-01-01');
    expect(bucketOf('2026-01-05', 'week', '2026-01-01')).toBe('2026-01-05');
    expect(bucketOf('2026-01-11', 'week', '2026-01-01')).toBe('2026-01-05'); // Sunday belongs to the week of Monday the 5th
    expect(bucketOf('2026-03-17', 'month', '2026-03-10')).toBe('2026-03-10');
    expect(bucketOf('2026-04-17', 'month', '2026-03-10')).toBe('2026-04-01');
    expect(bucketOf('2026-04-17', 'day', '2026-03-10')).toBe('2026-04-17');
  });

  it('cross year boundaries: the ISO week of 2026-12-31 starts 2026-12-28 and holds 2027-01-03', () => {
    const weeks = bucketsOf('2026-12-28', '2027-01-10', 'week');
    expect(weeks.map((w) => w.date)).toEqual(['2026-12-28', '2027-01-04']);
    expect(weeks[0]!.days).toEqual([
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
      '2027-01-03',
    ]);
  });

  it('leap years: February 2028 has 29 days, 2026 has 28', () => {
    expect(bucketsOf('2028-02-01', '2028-03-01', 'month').map((m) => [m.date, m.days.length])).toEqual([
      ['2028-02-01', 29],
      ['2028-03-01', 1],
    ]);
    expect(bucketsOf('2026-02-01', '2026-02-28', 'month')[0]!.days).toHaveLength(28);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
  });

  it('every day of the period is in exactly one bucket, in order (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom('day', 'week', 'month') as fc.Arbitrary<'day' | 'week' | 'month'>,
        (offset, length, groupBy) => {
          const start = new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
          const end = new Date(Date.UTC(2024, 0, 1) + (offset + length) * 86_400_000).toISOString().slice(0, 10);
          const buckets = bucketsOf(start, end, groupBy);
          const days = buckets.flatMap((b) => b.days);
          expect(days).toHaveLength(length + 1);
          expect(days[0]).toBe(start);
          expect(days.at(-1)).toBe(end);
          expect(new Set(days).size).toBe(days.length);
          for (const bucket of buckets) expect(bucket.date).toBe(bucket.days[0]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('revenue periods', () => {
  it.each([
    ['2026-13-01', '2026-12-31', 'start_date'],
    ['2026-02-30', '2026-03-01', 'start_date'],
    ['2026-01-01', 'tomorrow', 'end_date'],
    ['2026-05-02', '2026-05-01', 'start_date'],
    ['2020-01-01', '2023-12-31', 'end_date'],
  ])('%s .. %s is a 400 naming %s', (start, end, field) => {
    const error = appErrorThrownBy(() => validatePeriod(start, end));
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.details?.[0]?.path).toBe(`query.${field}`);
  });

  it('three years is allowed', () => {
    expect(() => validatePeriod('2024-01-01', '2026-12-31')).not.toThrow();
  });

  it.each([
    ['one day', '2026-05-01', '2026-05-01'],
    ['exactly 1098 days (3 x 366)', '2024-01-01', '2027-01-02'],
  ])('%s is allowed (%s .. %s)', (_, start, end) => {
    expect(() => validatePeriod(start, end)).not.toThrow();
  });

  it.each([
    [
      '2026-13-01',
      '2026-12-31',
      'start_date must be a date as YYYY-MM-DD',
      { path: 'query.start_date', message: 'must be a date as YYYY-MM-DD' },
    ],
    [
      '2026-01-01',
      '2026-02-30',
      'end_date must be a date as YYYY-MM-DD',
      { path: 'query.end_date', message: 'must be a date as YYYY-MM-DD' },
    ],
    [
      '2026-05-02',
      '2026-05-01',
      'start_date must not be after end_date',
      { path: 'query.start_date', message: 'must not be after end_date' },
    ],
    [
      '2024-01-01',
      '2027-01-03',
      'the period may cover at most 3 years',
      { path: 'query.end_date', message: 'at most 3 years after start_date' },
    ],
  ])('%s .. %s is refused with "%s"', (start, end, message, detail) => {
    const error = appErrorThrownBy(() => validatePeriod(start, end));
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.message).toBe(message);
    expect(error.details).toEqual([detail]);
  });
});

describe('calendar dates', () => {
  it.each([
    ['2026-06-01', true],
    ['2028-02-29', true],
    ['0001-01-01', true],
    ['2026-02-29', false],
    ['2026-04-31', false],
    ['2026-6-01', false],
    ['2026-06-01T00:00:00Z', false],
    [' 2026-06-01', false],
    // Date.parse accepts ISO extended years; these round-trip through toISOString but are not YYYY-MM-DD.
    ['+012026-01', false],
    ['-000001-01', false],
  ])('%s -> %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});

describe('currency conversion', () => {
  const rates = new Map([
    [
      '2026-06-01',
      new Map([
        ['EUR', 1.08],
        ['JPY', 0.0064],
      ]),
    ],
  ]);

  it('converts with the rate of the day, and leaves amounts without a rate unconverted', () => {
    expect(convertMicros(toMicros(10), 'EUR', '2026-06-01', 'USD', rates)).toBe(toMicros(10.8));
    expect(convertMicros(toMicros(1000), 'JPY', '2026-06-01', 'USD', rates)).toBe(toMicros(6.4));
    expect(convertMicros(toMicros(10), 'USD', '2026-06-01', 'USD', rates)).toBe(toMicros(10));
    expect(convertMicros(toMicros(10), 'EUR', '2026-06-02', 'USD', rates)).toBeNull();
    expect(convertMicros(toMicros(10), 'GBP', '2026-06-01', 'USD', rates)).toBeNull();
  });

  it('micro-units keep sums exact where floats drift', () => {
    const micros = Array(10)
      .fill(toMicros(0.1))
      .reduce((a: number, b: number) => a + b, 0);
    expect(fromMicros(micros)).toBe(1);
  });
});

describe('product percentages', () => {
  it('add up to exactly 100 with two decimals (property)', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.integer({ min: 0, max: 10 ** 9 }), { minLength: 1, maxLength: 30 })
          .filter((v) => v.some((x) => x > 0)),
        (values) => {
          const shares = percentages(values);
          expect(Math.round(shares.reduce((a, b) => a + b, 0) * 100)).toBe(10_000);
          for (const share of shares) expect(Number(share.toFixed(2))).toBe(share);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('thirds round so that they still add to 100; nothing sold is 0 each', () => {
    expect(percentages([1, 1, 1])).toEqual([33.34, 33.33, 33.33]);
    expect(percentages([0, 0])).toEqual([0, 0]);
  });

  it.each([
    // 33.333.. and 66.666..: the larger remainder (the second) gets the spare hundredth.
    [
      [1, 2],
      [33.33, 66.67],
    ],
    [
      [2, 1],
      [66.67, 33.33],
    ],
    // 14.2857.. x3 and 57.1428..: two spare hundredths go to the first two of the three equal remainders (.57),
    // not to the largest share (remainder .28).
    [
      [1, 1, 1, 4],
      [14.29, 14.29, 14.28, 57.14],
    ],
    [
      [4, 1, 1, 1],
      [57.14, 14.29, 14.29, 14.28],
    ],
    [
      [1, 0],
      [100, 0],
    ],
  ])('the largest remainders get the spare hundredths: %o -> %o', (values, expected) => {
    expect(percentages(values)).toEqual(expected);
  });
});

describe('where money moves (revenueDelta)', () => {
  const base = {
    refund: false,
    refundReversed: false,
    price: 9.99,
    trial: false,
    trialExpiresAt: null,
    expiresAtBefore: '2026-07-01T00:00:00.000Z',
  };

  it('a store-verified purchase is a new subscription with its price; a trial records no money', () => {
    expect(
      revenueDelta({
        ...base,
        operation: 'activate',
        statusBefore: 'pending_verification',
        statusAfter: 'active',
      }),
    ).toEqual({ amount_micros: 9_990_000, new_subscriptions: 1, renewals: 0, refunds: 0, net_active: 1 });
    expect(
      revenueDelta({
        ...base,
        trial: true,
        trialExpiresAt: '2026-07-01T00:00:00.000Z',
        operation: 'activate',
        statusBefore: 'pending_verification',
        statusAfter: 'active',
      }),
    ).toEqual({ amount_micros: 0, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: 1 });
  });

  it('an already-expired purchase moves nothing', () => {
    expect(
      revenueDelta({
        ...base,
        operation: 'activate',
        statusBefore: 'pending_verification',
        statusAfter: 'expired',
      }),
    ).toBeNull();
  });

  it('the first renewal after a trial is the conversion (new), later ones are renewals', () => {
    const trial = {
      ...base,
      trial: true,
      trialExpiresAt: '2026-07-01T00:00:00.000Z',
      operation: 'renew' as const,
      statusBefore: 'active',
      statusAfter: 'active',
    };
    expect(revenueDelta(trial)).toMatchObject({
      amount_micros: 9_990_000,
      new_subscriptions: 1,
      renewals: 0,
    });
    expect(revenueDelta({ ...trial, expiresAtBefore: '2026-08-01T00:00:00.000Z' })).toMatchObject({
      new_subscriptions: 0,
      renewals: 1,
    });
  });

  it('a renewal of a subscription that was not a trial is a renewal, whatever its trial end says', () => {
    expect(
      revenueDelta({
        ...base,
        trial: false,
        trialExpiresAt: '2026-07-01T00:00:00.000Z',
        expiresAtBefore: '2026-07-01T00:00:00.000Z',
        operation: 'renew',
        statusBefore: 'active',
        statusAfter: 'active',
      }),
    ).toEqual({ amount_micros: 9_990_000, new_subscriptions: 0, renewals: 1, refunds: 0, net_active: 0 });
  });

  it('a refund takes the price back; leaving active counts down', () => {
    expect(
      revenueDelta({
        ...base,
        operation: 'cancel',
        refund: true,
        statusBefore: 'active',
        statusAfter: 'cancelled',
      }),
    ).toEqual({ amount_micros: -9_990_000, new_subscriptions: 0, renewals: 0, refunds: 1, net_active: -1 });
    expect(revenueDelta({ ...base, operation: 'other', statusBefore: 'active', statusAfter: 'paused' })).toMatchObject({
      amount_micros: 0,
      net_active: -1,
    });
    expect(revenueDelta({ ...base, operation: 'other', statusBefore: 'active', statusAfter: 'active' })).toBeNull();
  });

  it('a reversed refund gives the price back on its day, counts no refund, and counts up when access returns', () => {
    expect(
      revenueDelta({
        ...base,
        operation: 'other',
        refundReversed: true,
        statusBefore: 'cancelled',
        statusAfter: 'active',
      }),
    ).toEqual({ amount_micros: 9_990_000, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: 1 });
    expect(
      revenueDelta({
        ...base,
        operation: 'other',
        refundReversed: true,
        statusBefore: 'expired',
        statusAfter: 'expired',
      }),
    ).toEqual({ amount_micros: 9_990_000, new_subscriptions: 0, renewals: 0, refunds: 0, net_active: 0 });
  });
});

describe('a purchase handed to another user', () => {
  it('moves no money, only the active count', () => {
    expect(
      transferredRevenue({
        amount_micros: 9_990_000,
        new_subscriptions: 1,
        renewals: 0,
        refunds: 0,
        net_active: 1,
      }),
    ).toEqual({
      amount_micros: 0,
      new_subscriptions: 0,
      renewals: 0,
      refunds: 0,
      net_active: 1,
    });
  });

  it('moves nothing when the handed-over purchase is not active (an expired one)', () => {
    expect(
      transferredRevenue({
        amount_micros: 0,
        new_subscriptions: 0,
        renewals: 0,
        refunds: 0,
        net_active: 0,
      }),
    ).toBeNull();
    expect(transferredRevenue(null)).toBeNull();
  });
});

describe('two changes written at once (addRevenueDeltas)', () => {
  const purchase = { amount_micros: 12_990_000, new_subscriptions: 1, renewals: 0, refunds: 0, net_active: 1 };
  // Not a real change: each count differs, so every sum shows.
  const earlierRefund = { amount_micros: -9_990_000, new_subscriptions: 3, renewals: 2, refunds: 1, net_active: -1 };
  const rows: [string, typeof purchase | null, typeof purchase | null, typeof purchase | null][] = [
    ['neither moves anything: null', null, null, null],
    ['only the first moves: the first', purchase, null, purchase],
    ['only the second moves: the second', null, earlierRefund, earlierRefund],
    [
      'both: every count summed',
      purchase,
      earlierRefund,
      { amount_micros: 3_000_000, new_subscriptions: 4, renewals: 2, refunds: 1, net_active: 0 },
    ],
  ];
  for (const [name, a, b, sum] of rows) {
    it(name, () => expect(addRevenueDeltas(a, b)).toEqual(sum));
  }
});

describe('walkBackFromLatest (levels at the end of each bucket)', () => {
  /** What the walk does, in order: each change taken and each bucket closed. */
  const stepsOf = (buckets: ReturnType<typeof bucketsOf>, changes: { day: string }[]) => {
    const steps: string[] = [];
    walkBackFromLatest(
      buckets,
      changes,
      (change) => steps.push(`take ${change.day}`),
      (i) => steps.push(`end ${buckets[i]!.date}`),
    );
    return steps;
  };

  it('takes each change once, newest first, and closes a bucket once every change after its last day is taken', () => {
    const buckets = bucketsOf('2026-03-02', '2026-03-08', 'day').slice(0, 3); // Mar 2, 3, 4
    const changes = [
      { day: '2026-03-03', n: 2 },
      { day: '2026-03-10', n: 5 },
      { day: '2026-03-02', n: 1 },
      { day: '2026-03-04', n: 3 },
    ];
    expect(stepsOf(buckets, changes)).toEqual([
      'take 2026-03-10',
      'end 2026-03-04',
      'take 2026-03-04',
      'end 2026-03-03',
      'take 2026-03-03',
      'end 2026-03-02',
    ]);
  });

  it('takes every change before the first bucket closes when all are later, oldest given first', () => {
    const buckets = bucketsOf('2026-03-02', '2026-03-04', 'day');
    const later = ['2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08'].map((day) => ({ day }));
    expect(stepsOf(buckets, later)).toEqual([
      'take 2026-03-08',
      'take 2026-03-07',
      'take 2026-03-06',
      'take 2026-03-05',
      'end 2026-03-04',
      'end 2026-03-03',
      'end 2026-03-02',
    ]);
  });
});

describe('toMicros', () => {
  it.each([
    [9.99, 9_990_000],
    [0.99, 990_000],
    [1234.5, 1_234_500_000],
    [0, 0],
    // Binary fractions round to the whole micro: 0.1 + 0.2 is not 0.3.
    [0.1 + 0.2, 300_000],
  ])('%s -> %s micros', (price, micros) => {
    expect(toMicros(price)).toBe(micros);
  });
});
