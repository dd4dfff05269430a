import { describe, expect, it } from 'vitest';
import type { HandledDueDay } from '../../lib/domain/due-checkpoint.js';
import { checkpointAfter, DUE_DAY_SETTLE_MS } from '../../lib/domain/due-checkpoint.js';

const done = (day: string): HandledDueDay => ({ day, complete: true, failed: false });

describe('where the due-work checkpoint moves after a run', () => {
  it('a day settles 15 minutes after it ends', () => {
    expect(DUE_DAY_SETTLE_MS).toBe(900_000);
  });

  it.each([
    // [days the run handled, now, checkpoint]
    ['nothing read', [], '2026-03-11T12:00:00.000Z', undefined],
    ['today alone stays', [done('2026-03-11')], '2026-03-11T23:59:59.999Z', undefined],
    ['yesterday, 1 ms after midnight', [done('2026-03-10'), done('2026-03-11')], '2026-03-11T00:00:00.001Z', undefined],
    [
      'yesterday, 1 ms before it settles',
      [done('2026-03-10'), done('2026-03-11')],
      '2026-03-11T00:14:59.999Z',
      undefined,
    ],
    [
      'yesterday, the moment it settles',
      [done('2026-03-10'), done('2026-03-11')],
      '2026-03-11T00:15:00.000Z',
      '2026-03-11',
    ],
    [
      'a backlog of settled days',
      [done('2026-03-07'), done('2026-03-08'), done('2026-03-09'), done('2026-03-10')],
      '2026-03-10T09:00:00.000Z',
      '2026-03-10',
    ],
    [
      'a failed day stops it at that day',
      [done('2026-03-07'), { day: '2026-03-08', complete: true, failed: true }],
      '2026-03-10T09:00:00.000Z',
      '2026-03-08',
    ],
    [
      'a failure on the first day leaves it',
      [{ day: '2026-03-07', complete: true, failed: true }],
      '2026-03-10T09:00:00.000Z',
      undefined,
    ],
    [
      'a day cut short by the limit is read again',
      [done('2026-03-07'), { day: '2026-03-08', complete: false, failed: false }],
      '2026-03-10T09:00:00.000Z',
      '2026-03-08',
    ],
    [
      'nothing moves past an unfinished day, whatever follows',
      [{ day: '2026-03-07', complete: false, failed: false }, done('2026-03-08')],
      '2026-03-10T09:00:00.000Z',
      undefined,
    ],
    ['across a month end', [done('2026-02-28')], '2026-03-01T00:15:00.000Z', '2026-03-01'],
    ['across a leap day', [done('2028-02-28'), done('2028-02-29')], '2028-03-01T01:00:00.000Z', '2028-03-01'],
    ['across a year end', [done('2026-12-31')], '2027-01-01T00:30:00.000Z', '2027-01-01'],
  ] as const)('%s', (_, days, now, expected) => {
    expect(checkpointAfter(days, new Date(now))).toBe(expected);
  });
});
