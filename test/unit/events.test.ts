import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, normalizeEvents } from '../../lib/domain/events.js';
import { reportSessionBody } from '../../lib/schemas/mobile.js';
import { appErrorThrownBy } from '../support/assertions.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

describe('reported events', () => {
  it('normalises Shape A and Shape B to one shape (B: eventName -> name, properties -> extra, user from X-USER-ID)', () => {
    const [a, b] = normalizeEvents(
      [
        { name: 'screen_view', user: 'u-1', sessionId: 's-1', extra: { screen_name: 'home' } },
        { eventName: 'button_click', timestamp: 1_780_000_000_000, properties: { button_name: 'buy' } },
      ],
      'header-user',
      NOW,
    );
    expect(a).toMatchObject({
      name: 'screen_view',
      user: 'u-1',
      session_id: 's-1',
      extra: { screen_name: 'home' },
      timestamp: NOW.toISOString(),
    });
    expect(b).toMatchObject({
      name: 'button_click',
      user: 'header-user',
      session_id: null,
      extra: { button_name: 'buy' },
      timestamp: new Date(1_780_000_000_000).toISOString(),
    });
  });

  it.each([
    [[{ user: 'u', sessionId: 's' }], 'EVENT_NAME_REQUIRED'],
    [[{ name: '', user: 'u', sessionId: 's' }], 'EVENT_NAME_REQUIRED'],
    [[{ name: 'x', sessionId: 's' }], 'USER_REQUIRED'],
    [[{ name: 'x', user: 'u' }], 'SESSION_ID_REQUIRED'],
    [[{ name: 'x', user: 'u', sessionId: 's', extra: [1] }], 'INVALID_PARAMETER'],
    [[{ name: 42, user: 'u', sessionId: 's' }], 'EVENT_NAME_REQUIRED'],
    [[{ eventName: 'x', timestamp: 'yesterday' }], 'INVALID_PARAMETER'],
    [['not an event'], 'INVALID_PARAMETER'],
  ])('%o is %s', (events, code) => {
    expect(appErrorThrownBy(() => normalizeEvents(events, 'h', NOW)).code).toBe(code);
  });

  it('names the index of the offending event, so the whole batch is refused', () => {
    const events = [
      { name: 'ok', user: 'u', sessionId: 's' },
      { name: 'ok', user: 'u', sessionId: 's' },
      { name: 'ok', user: 'u' },
    ];
    const error = appErrorThrownBy(() => normalizeEvents(events, 'h', NOW));
    expect(error.code).toBe('SESSION_ID_REQUIRED');
    expect(error.message).toContain('events[2]');
  });

  it('enforces the limits: 1,000 events, 32 KB per event, non-empty array', () => {
    const event = { name: 'x', user: 'u', sessionId: 's' };
    expect(normalizeEvents(Array(EVENT_LIMITS.maxEvents).fill(event), 'h', NOW)).toHaveLength(1000);
    expect(appErrorThrownBy(() => normalizeEvents(Array(1001).fill(event), 'h', NOW)).message).toContain('1000');
    expect(
      appErrorThrownBy(() => normalizeEvents([{ ...event, extra: { blob: 'x'.repeat(33_000) } }], 'h', NOW)).message,
    ).toContain('32 KB');
    expect(appErrorThrownBy(() => normalizeEvents([], 'h', NOW)).code).toBe('INVALID_PARAMETER');
    expect(appErrorThrownBy(() => normalizeEvents({ name: 'x' }, 'h', NOW)).code).toBe('INVALID_PARAMETER');
  });

  it('gives a resent batch the same keys (a later retry included), and distinct keys to identical events in one batch', () => {
    const batch = [
      { name: 'x', user: 'u', sessionId: 's' },
      { name: 'x', user: 'u', sessionId: 's' },
    ];
    const first = normalizeEvents(batch, 'h', NOW).map((e) => e.key);
    const retry = normalizeEvents(batch, 'h', new Date(NOW.getTime() + 60_000)).map((e) => e.key);
    expect(retry).toEqual(first);
    expect(new Set(first).size).toBe(2);
  });

  it('uses a client-supplied eventId or insert_id as the key', () => {
    const [a, b] = normalizeEvents(
      [
        { name: 'x', user: 'u', sessionId: 's', eventId: 'e-1' },
        { eventName: 'y', insert_id: 'i-1' },
      ],
      'h',
      NOW,
    );
    expect([a!.key, b!.key]).toEqual(['id:e-1', 'id:i-1']);
  });

  it('accepts epoch seconds as well as milliseconds and ISO strings', () => {
    const [s, ms, iso] = normalizeEvents(
      [
        { eventName: 'a', timestamp: 1_780_000_000 },
        { eventName: 'b', timestamp: 1_780_000_000_000 },
        { eventName: 'c', timestamp: '2026-05-28T20:26:40Z' },
      ],
      'h',
      NOW,
    );
    expect(new Set([s!.timestamp, ms!.timestamp, iso!.timestamp]).size).toBe(1);
  });

  it('a session starts between 2000 and now, in seconds or milliseconds; 2^53 ms (beyond any Date) is refused, not a RangeError', () => {
    const session = (startTime: number) =>
      reportSessionBody.safeParse({ sessionId: 's', startTime, duration: 1 }).success;
    expect(session(Date.now())).toBe(true);
    expect(session(Math.floor(Date.now() / 1000))).toBe(true);
    for (const startTime of [Number.MAX_SAFE_INTEGER, 8.64e15, Date.now() + 2 * 86_400_000, 1, 946_684_799])
      expect(session(startTime), String(startTime)).toBe(false);
  });
});
