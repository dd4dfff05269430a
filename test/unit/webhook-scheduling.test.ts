/** The retry job's choice of attempts and the endpoint breaker (lib/domain/webhook-scheduling.ts). */
import { describe, expect, it } from 'vitest';
import {
  chooseNextAttempts,
  DEFAULT_BREAKER,
  type DueAttempt,
  isPaused,
  pauseAfterTimeout,
  retryRunDeadline,
} from '../../lib/domain/webhook-scheduling.js';

/** `a1 a2 b1` -> attempts of apps a and b, oldest first. */
const queue = (text: string): DueAttempt[] =>
  text.split(' ').map((id) => ({ event_id: id, app_id: id.replace(/\d+$/, '') }));
const ids = (attempts: DueAttempt[]) => attempts.map((a) => a.event_id).join(' ');

describe('chooseNextAttempts', () => {
  it.each([
    // [what, queued oldest first, in flight, slots, cap, last served, chosen]
    ['round robin, not oldest first', 'a1 a2 a3 a4 b1 c1', {}, 4, 2, undefined, 'a1 b1 c1 a2'],
    [
      "an app's 60 old attempts do not go before another's one",
      `${Array.from({ length: 60 }, (_, i) => `a${i + 1}`).join(' ')} b1`,
      {},
      8,
      2,
      undefined,
      'a1 b1 a2',
    ],
    ['an app at its cap is skipped', 'a1 a2 b1 b2 b3', { a: 2 }, 4, 2, undefined, 'b1 b2'],
    ['cap 1: one each', 'a1 a2 b1 b2 c1', {}, 8, 1, undefined, 'a1 b1 c1'],
    ['fewer slots than apps: the oldest apps first', 'a1 b1 c1', {}, 2, 2, undefined, 'a1 b1'],
    ['starts after the app served last', 'a1 b1 c1', {}, 2, 2, 'a', 'b1 c1'],
    [
      'each round serves every app once, from the one after the last served',
      'a1 a2 a3 b1 b2 c1 c2 c3',
      {},
      6,
      3,
      'b',
      'c1 a1 b1 c2 a2 b2',
    ],
    ['wraps around after the last app', 'a1 b1 c1', {}, 2, 2, 'c', 'a1 b1'],
    ['a last served app no longer queued starts from the oldest', 'a1 b1', {}, 1, 2, 'z', 'a1'],
    ['in flight elsewhere, the cap counts them too', 'a1 a2 a3', { a: 1 }, 8, 2, undefined, 'a1'],
    ['no slots', 'a1 b1', {}, 0, 2, undefined, ''],
  ] as const)('%s', (_what, queued, inFlight, slots, cap, last, chosen) => {
    expect(ids(chooseNextAttempts(queue(queued), new Map(Object.entries(inFlight)), slots, cap, last))).toBe(chosen);
  });

  it('nothing queued, nothing chosen', () => {
    expect(chooseNextAttempts([], new Map(), 8, 2)).toEqual([]);
  });
});

describe('the endpoint breaker', () => {
  const NOW = new Date('2026-12-01T08:00:00.000Z');
  it.each([
    [1, null],
    [2, null],
    [3, '2026-12-01T08:10:00.000Z'], // the third timeout in a row pauses it for 10 minutes
    [4, '2026-12-01T08:10:00.000Z'], // a probe after the pause that timed out again
  ])('%i timeouts in a row: paused until %s', (timeouts, until) => {
    expect(pauseAfterTimeout(timeouts, NOW, DEFAULT_BREAKER)).toBe(until);
  });

  it.each([
    [null, false],
    ['2026-12-01T08:00:00.001Z', true],
    ['2026-12-01T08:00:00.000Z', false], // the pause has ended: the next attempt is the probe
    ['2026-12-01T07:00:00.000Z', false],
  ])('paused until %s: paused now is %s', (until, paused) => {
    expect(isPaused({ consecutive_timeouts: 3, paused_until: until }, NOW)).toBe(paused);
  });
});

describe('retryRunDeadline', () => {
  const START = 1_000_000;
  it.each([
    // [what, function time left, attempt timeout, deadline after the start]
    [
      'deployed (300 s, 15 s attempts): the 40 s start window, so runs a minute apart do not pile up',
      300_000,
      15_000,
      40_000,
    ],
    ['little time left: an attempt timeout and the 5 s margin before the end', 30_000, 15_000, 10_000],
    ['too little for one attempt: nothing starts', 15_000, 15_000, -5_000],
    ['tests (8 s left, 2 s attempts)', 8_000, 2_000, 1_000],
  ])('%s', (_what, remaining, timeout, after) => {
    expect(retryRunDeadline(START, remaining, timeout)).toBe(START + after);
  });
});
