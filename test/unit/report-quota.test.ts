import { describe, expect, it } from 'vitest';
import {
  addAmounts,
  carriedUnflushed,
  DEFAULT_REPORT_QUOTAS,
  flushShare,
  planQuotaCharge,
  planQuotaFlush,
  QUOTA_FLUSH_AGE_MS,
  type QuotaFlushReason,
  type QuotaState,
  type QuotaWrite,
  quotaLimits,
  withUnflushed,
} from '../../lib/domain/report-quota.js';

const NOW = 1_800_000_000_000;
const LIMITS = { events: 100, bytes: 10_000 };
const open = (used: number, secondsLeft: number) => ({ used, endsAt: NOW + secondsLeft * 1000 });

describe('report quotas: the plan for one report', () => {
  it.each<[string, QuotaState | undefined, { events: number; bytes: number }, unknown]>([
    ['no windows yet: both opened', {}, { events: 10, bytes: 500 }, { events: 'open', bytes: 'open' }],
    ['no events: only bytes counted', {}, { events: 0, bytes: 500 }, { events: 'none', bytes: 'open' }],
    [
      'the item not seen yet: the open windows joined',
      undefined,
      { events: 10, bytes: 500 },
      { events: 'join', bytes: 'join' },
    ],
    [
      'not seen yet, no events: only bytes joined',
      undefined,
      { events: 0, bytes: 500 },
      { events: 'none', bytes: 'join' },
    ],
    [
      'open windows with room: added to',
      { events: open(50, 30), bytes: open(9_000, 3600) },
      { events: 50, bytes: 1_000 },
      { events: 'add', bytes: 'add' },
    ],
    [
      'a closed window is opened again, an open one added to',
      { events: open(100, 0), bytes: open(100, 1) },
      { events: 100, bytes: 1 },
      { events: 'open', bytes: 'add' },
    ],
    ['exactly a whole window fits', {}, { events: 100, bytes: 10_000 }, { events: 'open', bytes: 'open' }],
    [
      'not seen yet, a whole window: joined',
      undefined,
      { events: 100, bytes: 10_000 },
      { events: 'join', bytes: 'join' },
    ],
  ])('%s', (_, state, charge, writes) => {
    expect(planQuotaCharge(state, charge, LIMITS, NOW)).toEqual({ allowed: true, writes });
  });

  it.each<[string, QuotaState | undefined, { events: number; bytes: number }, unknown]>([
    [
      'one event past the open minute: until it closes',
      { events: open(91, 12.2) },
      { events: 10, bytes: 1 },
      { counter: 'events', limit: 100, retryAfterSeconds: 13 },
    ],
    [
      'one byte past the open day: until it closes',
      { events: open(0, 30), bytes: open(9_001, 7200) },
      { events: 1, bytes: 1_000 },
      { counter: 'bytes', limit: 10_000, retryAfterSeconds: 7200 },
    ],
    [
      'a window closing within the second: at least 1 s',
      { events: open(100, 0.001) },
      { events: 1, bytes: 0 },
      { counter: 'events', limit: 100, retryAfterSeconds: 1 },
    ],
    [
      'more than a whole minute: a window length',
      undefined,
      { events: 101, bytes: 0 },
      { counter: 'events', limit: 100, retryAfterSeconds: 60 },
    ],
    [
      'more than a whole day: a window length',
      undefined,
      { events: 0, bytes: 10_001 },
      { counter: 'bytes', limit: 10_000, retryAfterSeconds: 86_400 },
    ],
  ])('refuses %s', (_, state, charge, refusal) => {
    expect(planQuotaCharge(state, charge, LIMITS, NOW)).toEqual({ allowed: false, ...(refusal as object) });
  });

  it('a day allows the stored quota over the retention days, at least one day', () => {
    expect(quotaLimits({ eventsPerMinute: 7, storedBytes: 9_000, typesPerUser: 1 }, 90)).toEqual({
      events: 7,
      bytes: 100,
    });
    expect(quotaLimits({ eventsPerMinute: 7, storedBytes: 9_000, typesPerUser: 1 }, 0).bytes).toBe(9_000);
    // The defaults: 10,000 events a minute; 100 GiB stored, about 1.1 GiB a day at 90 days.
    expect(quotaLimits(DEFAULT_REPORT_QUOTAS, 90)).toEqual({ events: 10_000, bytes: 1_193_046_471 });
    expect(DEFAULT_REPORT_QUOTAS.typesPerUser).toBe(32);
  });
});

describe('report quotas: when an instance writes what it accepted', () => {
  const ADD: Record<'events' | 'bytes', QuotaWrite> = { events: 'add', bytes: 'add' };
  const written = NOW - 1000;

  it('a share is 1 % of the limit, at least 1: a small limit writes every report', () => {
    expect([flushShare(10_000), flushShare(1_193_046_471), flushShare(199), flushShare(30), flushShare(0)]).toEqual([
      100, 11_930_464, 1, 1, 1,
    ]);
  });

  it.each<
    [
      string,
      Record<'events' | 'bytes', QuotaWrite>,
      { events: number; bytes: number },
      number | undefined,
      QuotaFlushReason | undefined,
    ]
  >([
    [
      'a window to open (none on the item)',
      { events: 'open', bytes: 'open' },
      { events: 1, bytes: 1 },
      undefined,
      'window',
    ],
    [
      'the item not seen yet (first report of an instance): joined at once',
      { events: 'join', bytes: 'join' },
      { events: 1, bytes: 1 },
      undefined,
      'window',
    ],
    ['only bytes to join', { events: 'none', bytes: 'join' }, { events: 0, bytes: 1 }, written, 'window'],
    [
      'a window closed since: opened at once',
      { events: 'open', bytes: 'add' },
      { events: 1, bytes: 1 },
      written,
      'window',
    ],
    ['below both shares, written a second ago: waits', ADD, { events: 0, bytes: 99 }, written, undefined],
    ['events reach their share (1 of 100)', ADD, { events: 1, bytes: 0 }, written, 'share'],
    ['bytes reach their share (100 of 10,000)', ADD, { events: 0, bytes: 100 }, written, 'share'],
    [
      'below the shares, last write just under the age: waits',
      ADD,
      { events: 0, bytes: 1 },
      NOW - QUOTA_FLUSH_AGE_MS + 1,
      undefined,
    ],
    ['below the shares, last write at the age: written', ADD, { events: 0, bytes: 1 }, NOW - QUOTA_FLUSH_AGE_MS, 'age'],
    ['below the shares, never written by this instance: written', ADD, { events: 0, bytes: 1 }, undefined, 'age'],
    [
      'nothing pending: nothing to write, however old',
      { events: 'none', bytes: 'none' },
      { events: 0, bytes: 0 },
      undefined,
      undefined,
    ],
  ])('%s', (_, writes, pending, writtenAt, reason) => {
    expect(planQuotaFlush(writes, pending, LIMITS, writtenAt, NOW)).toBe(reason);
  });

  it('decides on the item plus its unflushed amounts of open windows; a closed window drops them', () => {
    const local = {
      state: { events: open(50, 30), bytes: open(9_000, -1) },
      unflushed: { events: 40, bytes: 500 },
      writtenAt: written,
    };
    expect(withUnflushed(local, NOW)).toEqual({ events: open(90, 30), bytes: open(9_000, -1) });
    // 90 of 100 counted here: 11 more refused without a write, 10 fit.
    expect(planQuotaCharge(withUnflushed(local, NOW), { events: 11, bytes: 0 }, LIMITS, NOW)).toMatchObject({
      allowed: false,
      counter: 'events',
    });
    expect(planQuotaCharge(withUnflushed(local, NOW), { events: 10, bytes: 0 }, LIMITS, NOW)).toMatchObject({
      allowed: true,
    });
    // A newer view of the item: kept where it is the same window, dropped where the window closed or changed.
    expect(carriedUnflushed(local, { events: open(70, 30), bytes: open(100, 60) }, NOW)).toEqual({
      events: 40,
      bytes: 0,
    });
    expect(carriedUnflushed(local, { events: open(5, 50) }, NOW)).toEqual({ events: 0, bytes: 0 });
  });

  it('a window that ends this very millisecond is closed: its unflushed amounts count and carry no more', () => {
    const local = { state: { events: open(50, 0) }, unflushed: { events: 40, bytes: 0 }, writtenAt: written };
    expect(withUnflushed(local, NOW)).toEqual({ events: open(50, 0) });
    expect(carriedUnflushed(local, { events: open(50, 0) }, NOW)).toEqual({ events: 0, bytes: 0 });
    // A millisecond before its end it is open.
    expect(withUnflushed(local, NOW - 1)).toEqual({ events: open(90, 0) });
    expect(carriedUnflushed(local, { events: open(50, 0) }, NOW - 1)).toEqual({ events: 40, bytes: 0 });
  });

  it('amounts add up per counter', () => {
    expect(addAmounts({ events: 3, bytes: 400 }, { events: 2, bytes: 0 })).toEqual({ events: 5, bytes: 400 });
    expect(addAmounts({ events: 0, bytes: 0 }, { events: 0, bytes: 7 })).toEqual({ events: 0, bytes: 7 });
  });
});
