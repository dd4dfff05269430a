import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, epochMillis, isReportedTime, normalizeEvents } from '../../lib/domain/events.js';
import { reportSessionBody } from '../../lib/schemas/mobile.js';
import { appErrorThrownBy } from '../support/assertions.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
/** X-USER-ID of an app without signed user tokens. */
const SENDER = { userId: 'h', userProven: false };

describe('reported events', () => {
  it('normalises Shape A and Shape B to one shape (B: eventName -> name, properties -> extra, user from X-USER-ID)', () => {
    const [a, b] = normalizeEvents(
      [
        { name: 'screen_view', user: 'u-1', sessionId: 's-1', extra: { screen_name: 'home' } },
        { eventName: 'button_click', timestamp: 1_780_000_000_000, properties: { button_name: 'buy' } },
      ],
      { userId: 'header-user', userProven: false },
      NOW,
    );
    expect(a).toMatchObject({
      name: 'screen_view',
      session_id: 's-1',
      extra: { screen_name: 'home' },
      timestamp: NOW.toISOString(),
    });
    expect(b).toMatchObject({
      name: 'button_click',
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
    expect(appErrorThrownBy(() => normalizeEvents(events, SENDER, NOW)).code).toBe(code);
  });

  it('names the index of the offending event, so the whole batch is refused', () => {
    const events = [
      { name: 'ok', user: 'u', sessionId: 's' },
      { name: 'ok', user: 'u', sessionId: 's' },
      { name: 'ok', user: 'u' },
    ];
    const error = appErrorThrownBy(() => normalizeEvents(events, SENDER, NOW));
    expect(error.code).toBe('SESSION_ID_REQUIRED');
    expect(error.message).toContain('events[2]');
  });

  it('enforces the limits: 1,000 events, 32 KB per event, non-empty array', () => {
    const event = { name: 'x', user: 'u', sessionId: 's' };
    expect(normalizeEvents(Array(EVENT_LIMITS.maxEvents).fill(event), SENDER, NOW)).toHaveLength(1000);
    expect(appErrorThrownBy(() => normalizeEvents(Array(1001).fill(event), SENDER, NOW)).message).toContain('1000');
    expect(
      appErrorThrownBy(() => normalizeEvents([{ ...event, extra: { blob: 'x'.repeat(33_000) } }], SENDER, NOW)).message,
    ).toContain('32 KB');
    expect(appErrorThrownBy(() => normalizeEvents([], SENDER, NOW)).code).toBe('INVALID_PARAMETER');
    expect(appErrorThrownBy(() => normalizeEvents({ name: 'x' }, SENDER, NOW)).code).toBe('INVALID_PARAMETER');
  });

  it('gives a resent batch the same keys (a later retry included), and distinct keys to identical events in one batch', () => {
    const batch = [
      { name: 'x', user: 'u', sessionId: 's' },
      { name: 'x', user: 'u', sessionId: 's' },
    ];
    const first = normalizeEvents(batch, SENDER, NOW).map((e) => e.key);
    const retry = normalizeEvents(batch, SENDER, new Date(NOW.getTime() + 60_000)).map((e) => e.key);
    expect(retry).toEqual(first);
    expect(new Set(first).size).toBe(2);
  });

  it('uses a client-supplied eventId or insert_id as the key', () => {
    const [a, b] = normalizeEvents(
      [
        { name: 'x', user: 'u', sessionId: 's', eventId: 'e-1' },
        { eventName: 'y', insert_id: 'i-1' },
      ],
      SENDER,
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
      SENDER,
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

/** The error eventsModule.normalizeEvents throws, as clients see it in the body. */
const refusal = (events: unknown, now: Date = NOW) => {
  const error = appErrorThrownBy(() => normalizeEvents(events, SENDER, now));
  return { code: error.code, message: error.message, details: error.details };
};

const A = { name: 'x', user: 'u', sessionId: 's' };

describe('reported events: what each refusal says', () => {
  it.each([
    ['not an array', { name: 'x' }, 'events must be an array', 'must be an array'],
    ['empty', [], 'events must not be empty', 'must not be empty'],
    ['1,001 events', Array(1001).fill(A), 'at most 1000 events per request', 'at most 1000'],
  ])('a batch that is %s: INVALID_PARAMETER at body.events', (_, events, message, detail) => {
    expect(refusal(events)).toEqual({
      code: 'INVALID_PARAMETER',
      message,
      details: [{ path: 'body.events', message: detail }],
    });
  });

  // [event, code, message after "events[1]: "]; the refused event is the second, so the index shows.
  it.each([
    ['a string', 'not an event', 'INVALID_PARAMETER', 'an event must be an object'],
    ['an array', [A], 'INVALID_PARAMETER', 'an event must be an object'],
    ['null', null, 'INVALID_PARAMETER', 'an event must be an object'],
    ['without a name', { user: 'u', sessionId: 's' }, 'EVENT_NAME_REQUIRED', 'name is required'],
    ['with a blank name', { ...A, name: ' \t ' }, 'EVENT_NAME_REQUIRED', 'name is required'],
    ['Shape B with a blank eventName', { eventName: '  ' }, 'EVENT_NAME_REQUIRED', 'eventName is required'],
    [
      'with a 129-character name',
      { ...A, name: 'n'.repeat(129) },
      'INVALID_PARAMETER',
      'name must be at most 128 characters',
    ],
    ['without a user', { name: 'x', sessionId: 's' }, 'USER_REQUIRED', 'user is required'],
    ['with a blank user', { ...A, user: '   ' }, 'USER_REQUIRED', 'user is required'],
    [
      'with a 257-character user',
      { ...A, user: 'u'.repeat(257) },
      'INVALID_PARAMETER',
      'user must be at most 256 characters',
    ],
    ['without a sessionId', { name: 'x', user: 'u' }, 'SESSION_ID_REQUIRED', 'sessionId is required'],
    ['with a blank sessionId', { ...A, sessionId: ' ' }, 'SESSION_ID_REQUIRED', 'sessionId is required'],
    [
      'with a 257-character sessionId',
      { ...A, sessionId: 's'.repeat(257) },
      'INVALID_PARAMETER',
      'sessionId must be at most 256 characters',
    ],
    ['with extra a string', { ...A, extra: 'abc' }, 'INVALID_PARAMETER', 'extra must be an object'],
    ['with extra a number', { ...A, extra: 7 }, 'INVALID_PARAMETER', 'extra must be an object'],
    ['with extra an array', { ...A, extra: [1] }, 'INVALID_PARAMETER', 'extra must be an object'],
    [
      'Shape B with properties a string',
      { eventName: 'x', properties: 'abc' },
      'INVALID_PARAMETER',
      'properties must be an object',
    ],
    [
      'with a number DynamoDB cannot store in extra',
      { ...A, extra: { n: 1e-200 } },
      'INVALID_PARAMETER',
      'extra.n: must be 0 or of magnitude 1e-130 to 9007199254740991',
    ],
    [
      'Shape B with a number DynamoDB cannot store in properties',
      { eventName: 'x', properties: { deep: { n: Number.POSITIVE_INFINITY } } },
      'INVALID_PARAMETER',
      'properties.deep.n: must be 0 or of magnitude 1e-130 to 9007199254740991',
    ],
    [
      'with an empty eventId',
      { ...A, eventId: '' },
      'INVALID_PARAMETER',
      'eventId must be a string of 1-256 characters',
    ],
    [
      'with a numeric eventId',
      { ...A, eventId: 42 },
      'INVALID_PARAMETER',
      'eventId must be a string of 1-256 characters',
    ],
    [
      'with a 257-character eventId',
      { ...A, eventId: 'e'.repeat(257) },
      'INVALID_PARAMETER',
      'eventId must be a string of 1-256 characters',
    ],
    [
      'with a 257-character insert_id',
      { eventName: 'x', insert_id: 'i'.repeat(257) },
      'INVALID_PARAMETER',
      'eventId must be a string of 1-256 characters',
    ],
    [
      'with a timestamp that is no time',
      { ...A, timestamp: 'yesterday' },
      'INVALID_PARAMETER',
      'timestamp must be epoch milliseconds (or an ISO 8601 time) between 2000 and now',
    ],
    [
      'with a boolean timestamp',
      { ...A, timestamp: true },
      'INVALID_PARAMETER',
      'timestamp must be epoch milliseconds (or an ISO 8601 time) between 2000 and now',
    ],
    [
      'of 32,769 bytes as JSON',
      { ...A, extra: { blob: 'b'.repeat(32_710) } },
      'INVALID_PARAMETER',
      'an event must be at most 32768 bytes (32 KB) as JSON',
    ],
  ])('an event %s', (_, event, code, message) => {
    expect(refusal([A, event])).toEqual({
      code,
      message: `events[1]: ${message}`,
      details: [{ path: 'body.events.1', message }],
    });
  });
});

describe('reported events: the limits are inclusive', () => {
  it('accepts a name of 128, a user, sessionId and eventId of 256 characters, and 32,768 bytes as JSON', () => {
    const atLimits = {
      name: 'n'.repeat(128),
      user: 'u'.repeat(256),
      sessionId: 's'.repeat(256),
      eventId: 'e'.repeat(256),
    };
    const [event] = normalizeEvents([atLimits], SENDER, NOW);
    expect(event).toMatchObject({ name: 'n'.repeat(128), session_id: 's'.repeat(256) });
    expect(event!.key).toBe(`id:${'e'.repeat(256)}`);

    const largest = { ...A, extra: { blob: 'b'.repeat(32_709) } };
    expect(Buffer.byteLength(JSON.stringify(largest))).toBe(32_768);
    expect(normalizeEvents([largest], SENDER, NOW)[0]!.extra).toEqual({ blob: 'b'.repeat(32_709) });
  });

  it('takes a null extra or properties as none, and a null timestamp as the receive time', () => {
    const [a, b] = normalizeEvents(
      [
        { ...A, extra: null, timestamp: null },
        { eventName: 'y', properties: null },
      ],
      SENDER,
      NOW,
    );
    expect(a).toMatchObject({ extra: {}, timestamp: '2026-06-01T12:00:00.000Z' });
    expect(b).toMatchObject({ extra: {}, timestamp: '2026-06-01T12:00:00.000Z' });
  });
});

describe('reported events: timestamps', () => {
  // NOW is 2026-06-01T12:00:00Z; a day ahead is 2026-06-02T12:00:00Z = 1_780_401_600_000 ms.
  it.each([
    ['2000-01-01T00:00:00.000Z in ms', 946_684_800_000, '2000-01-01T00:00:00.000Z'],
    ['2000-01-01T00:00:00Z in seconds', 946_684_800, '2000-01-01T00:00:00.000Z'],
    ['2000-01-01 as ISO 8601', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z'],
    ['a day ahead of now, in ms', 1_780_401_600_000, '2026-06-02T12:00:00.000Z'],
    ['a day ahead of now, in seconds', 1_780_401_600, '2026-06-02T12:00:00.000Z'],
    ['a day ahead of now as ISO 8601', '2026-06-02T12:00:00.000Z', '2026-06-02T12:00:00.000Z'],
  ])('accepts %s', (_, timestamp, expected) => {
    expect(normalizeEvents([{ ...A, timestamp }], SENDER, NOW)[0]!.timestamp).toBe(expected);
  });

  it.each([
    ['1999-12-31T23:59:59.999Z in ms', 946_684_799_999],
    ['1999-12-31T23:59:59Z in seconds', 946_684_799],
    ['1999-12-31T23:59:59.999Z as ISO 8601', '1999-12-31T23:59:59.999Z'],
    ['a day and 1 ms ahead of now', 1_780_401_600_001],
    ['a day and 1 s ahead of now, in seconds', 1_780_401_601],
    ['a day and 1 ms ahead of now as ISO 8601', '2026-06-02T12:00:00.001Z'],
    ['1e11 (taken as ms: 1973-03-03)', 1e11],
    ['2^53 ms, beyond any Date', 2 ** 53],
    ['NaN', Number.NaN],
  ])('refuses %s', (_, timestamp) => {
    expect(refusal([{ ...A, timestamp }]).code).toBe('INVALID_PARAMETER');
  });

  it('epochMillis reads values below 1e11 as seconds and from 1e11 on as milliseconds', () => {
    expect(epochMillis(99_999_999_999)).toBe(99_999_999_999_000);
    expect(epochMillis(1e11)).toBe(100_000_000_000);
    expect(epochMillis(1_780_000_000)).toBe(1_780_000_000_000);
    expect(epochMillis(1_780_000_000_000)).toBe(1_780_000_000_000);
  });

  it('isReportedTime: from 2000-01-01T00:00:00.000Z to exactly a day after now, both included', () => {
    expect(isReportedTime(946_684_800_000, NOW)).toBe(true);
    expect(isReportedTime(946_684_799_999, NOW)).toBe(false);
    expect(isReportedTime(1_780_401_600_000, NOW)).toBe(true);
    expect(isReportedTime(1_780_401_600_001, NOW)).toBe(false);
    expect(isReportedTime(Number.POSITIVE_INFINITY, NOW)).toBe(false);
  });
});

describe('reported events: keys', () => {
  it('derives the key of an event without an id from its place and content (stored keys: the format is fixed)', () => {
    // A change of this derivation would store a batch resent across a deploy twice.
    expect(normalizeEvents([A], SENDER, NOW)[0]!.key).toBe('h:fJ5EwfmWHd9fzrJVvhW2IiydF9tFChxE');
  });
});

describe("reported events: every event is the sender's (X-USER-ID)", () => {
  const proven = { userId: 'h', userProven: true };
  it.each([
    ['with a user token, its own user', proven, { ...A, user: 'h' }],
    ['with a user token, its own user with surrounding spaces', proven, { ...A, user: ' h ' }],
    ['with a user token, Shape B (no user)', proven, { eventName: 'y' }],
    ['without user tokens, another user (filed under X-USER-ID)', SENDER, { ...A, user: 'victim' }],
  ])('accepts an event %s, and names no other user', (_, sender, event) => {
    const [normalized] = normalizeEvents([event], sender, NOW);
    expect(Object.keys(normalized!).sort()).toEqual(['extra', 'key', 'name', 'session_id', 'timestamp']);
  });

  it.each([
    ['another user', { ...A, user: 'victim' }],
    ['its own user in another case', { ...A, user: 'H' }],
  ])('with a user token refuses an event naming %s: INVALID_PARAMETER at its index', (_, event) => {
    const error = appErrorThrownBy(() => normalizeEvents([{ ...A, user: 'h' }, event], proven, NOW));
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'events[1]: user must be X-USER-ID: an event belongs to the user who sends it',
      details: [
        { path: 'body.events.1', message: 'user must be X-USER-ID: an event belongs to the user who sends it' },
      ],
    });
  });

  it("checks the user last: a malformed event naming another user gets the spec's own code", () => {
    const error = appErrorThrownBy(() => normalizeEvents([{ user: 'victim', sessionId: 's' }], proven, NOW));
    expect(error.code).toBe('EVENT_NAME_REQUIRED');
  });
});
