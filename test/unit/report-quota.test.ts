import { describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_QUOTAS, planQuotaCharge, type QuotaState, quotaLimits } from '../../lib/domain/report-quota.js';

const NOW = 1_800_000_000_000;
const LIMITS = { events: 100, bytes: 10_000 };
const open = (used: number, secondsLeft: number) => ({ used, endsAt: NOW + secondsLeft * 1000 });

describe('report quotas: the plan for one report', () => {
  it.each<[string, QuotaState | undefined, { events: number; bytes: number }, unknown]>([
    ['no windows yet: both opened', undefined, { events: 10, bytes: 500 }, { events: 'open', bytes: 'open' }],
    ['no events: only bytes counted', undefined, { events: 0, bytes: 500 }, { events: 'none', bytes: 'open' }],
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
    ['exactly a whole window fits', undefined, { events: 100, bytes: 10_000 }, { events: 'open', bytes: 'open' }],
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
