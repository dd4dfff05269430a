import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  decideAfterAttempt,
  parseRetryAfter,
  retryScheduleFrom,
} from '../../lib/domain/webhook-retry.js';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe('webhook retry decisions', () => {
  it('only a 2xx counts as delivered', () => {
    expect(decideAfterAttempt({ kind: 'response', status: 204 }, 1, NOW)).toEqual({ kind: 'delivered' });
    for (const status of [100, 301, 400, 404, 429, 500, 503])
      expect(decideAfterAttempt({ kind: 'response', status }, 1, NOW).kind).toBe('retry');
  });

  it('410 Gone disables the endpoint', () => {
    expect(decideAfterAttempt({ kind: 'response', status: 410 }, 3, NOW)).toEqual({ kind: 'disable' });
  });

  it('retries follow the schedule and cover at least 24 hours before the dead letter', () => {
    const delays = DEFAULT_RETRY_SCHEDULE_SECONDS.map((_, i) => {
      const decision = decideAfterAttempt({ kind: 'error', error: 'timeout' }, i + 1, NOW);
      if (decision.kind !== 'retry') throw new Error('expected a retry');
      return (decision.at.getTime() - NOW.getTime()) / 1000;
    });
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 86400]);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(86_400);
    expect(
      decideAfterAttempt({ kind: 'error', error: 'timeout' }, DEFAULT_RETRY_SCHEDULE_SECONDS.length + 1, NOW),
    ).toEqual({ kind: 'dead' });
  });

  it('honours a Retry-After longer than the schedule, up to 24 hours', () => {
    expect(decideAfterAttempt({ kind: 'response', status: 503, retryAfterSeconds: 600 }, 1, NOW)).toEqual({
      kind: 'retry',
      at: later(600),
    });
    expect(decideAfterAttempt({ kind: 'response', status: 429, retryAfterSeconds: 1 }, 2, NOW)).toEqual({
      kind: 'retry',
      at: later(300),
    });
    expect(decideAfterAttempt({ kind: 'response', status: 429, retryAfterSeconds: 10 ** 9 }, 1, NOW)).toEqual({
      kind: 'retry',
      at: later(86_400),
    });
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120);
    expect(parseRetryAfter('Mon, 01 Jun 2026 00:01:00 GMT', NOW)).toBe(60);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
  });

  it('the schedule can be shortened by configuration, and nonsense is refused', () => {
    expect(retryScheduleFrom('1, 2,3')).toEqual([1, 2, 3]);
    expect(retryScheduleFrom(undefined)).toBe(DEFAULT_RETRY_SCHEDULE_SECONDS);
    expect(() => retryScheduleFrom('1,x')).toThrow(/WEBHOOK_RETRY_SCHEDULE_SECONDS/);
  });
});

describe('webhook retry decisions at the edges', () => {
  it.each([
    [199, 'retry'],
    [200, 'delivered'],
    [299, 'delivered'],
    [300, 'retry'],
  ])('status %i: %s', (status, kind) => {
    expect(decideAfterAttempt({ kind: 'response', status }, 1, NOW).kind).toBe(kind);
  });

  it.each([
    [' 120 ', 120],
    ['\t45\n', 45],
    ['0', 0],
    ['x120', undefined],
    ['120x', undefined],
    ['12 0', undefined],
    ['', undefined],
  ])('Retry-After %o is %o seconds', (header, seconds) => {
    expect(parseRetryAfter(header, NOW)).toBe(seconds);
  });

  it('takes a schedule with 0-second delays and spaces, and refuses a negative delay, naming the value', () => {
    expect(retryScheduleFrom('0, 0 ,1')).toEqual([0, 0, 1]);
    expect(() => retryScheduleFrom('1,-1')).toThrow(
      new Error('WEBHOOK_RETRY_SCHEDULE_SECONDS must be a comma-separated list of seconds, got "1,-1"'),
    );
  });
});
