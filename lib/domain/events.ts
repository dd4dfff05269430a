/**
 * Reported analytics events (pure): the batch is validated as a whole before anything is stored,
 * both shapes of the spec are normalised to one, and every event gets a stable key so that a
 * retried batch stores nothing twice.
 *
 * Shape A: {name, user, sessionId, extra?}          (the dedicated event interface)
 * Shape B: {eventName, timestamp, properties}        (the overview example; user = X-USER-ID)
 * Either may carry `eventId` (or `insert_id`) and `timestamp` (epoch ms, or ISO 8601).
 *
 * Every event belongs to the caller (X-USER-ID): a request writes one user's history and profile,
 * never another's. An event whose `user` names someone else is refused when the app requires
 * signed user tokens (it would be a way round the token); otherwise X-USER-ID is as unproven as
 * `user`, and the event is filed under X-USER-ID all the same (docs/security.md).
 */
import { createHash } from 'node:crypto';
import { AppError, type ErrorKind } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { unstorablePlace } from '../schemas/common.js';

export const EVENT_LIMITS = {
  /** Events in one request. */
  maxEvents: 1000,
  /** Serialised size of one event. */
  maxEventBytes: 32 * 1024,
  maxNameLength: 128,
  maxIdLength: 256,
} as const;

export interface NormalizedEvent {
  /** Stable identity: the client's id, or a hash of the event's content and place in the batch. */
  key: string;
  name: string;
  session_id: string | null;
  /** When it happened (ISO 8601); the receive time when the client sent none. */
  timestamp: string;
  extra: Record<string, unknown>;
}

function fail(kind: ErrorKind, index: number, message: string): never {
  throw new AppError(kind, `events[${index}]: ${message}`, { details: [{ path: `body.events.${index}`, message }] });
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** Seconds or milliseconds since the epoch (SDKs send both), as milliseconds. */
export const epochMillis = (value: number): number => (value < 1e11 ? value * 1000 : value);

/** A time a client reports (event, session start): from 2000 to a day ahead of us (clock skew), never beyond what a Date holds. */
export const isReportedTime = (ms: number, now: Date): boolean =>
  Number.isFinite(ms) && ms >= Date.UTC(2000, 0, 1) && ms <= now.getTime() + 86_400_000;

function timestampOf(value: unknown, index: number, now: Date): string {
  if (value === undefined || value === null) return now.toISOString();
  // Epoch seconds or milliseconds, or an ISO 8601 string.
  const ms =
    typeof value === 'number' ? epochMillis(value) : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!isReportedTime(ms, now)) {
    fail('INVALID_PARAMETER', index, 'timestamp must be epoch milliseconds (or an ISO 8601 time) between 2000 and now');
  }
  return new Date(ms).toISOString();
}

/** Who sends the batch: X-USER-ID, and whether a signed user token proved it. */
export interface EventSender {
  userId: string;
  /** The app requires signed user tokens: an event naming another user is refused, not refiled. */
  userProven: boolean;
}

function normalizeOne(
  raw: unknown,
  index: number,
  sender: EventSender,
  now: Date,
): Omit<NormalizedEvent, 'key'> & { clientId?: string } {
  if (!isJsonObject(raw)) fail('INVALID_PARAMETER', index, 'an event must be an object');
  if (Buffer.byteLength(JSON.stringify(raw)) > EVENT_LIMITS.maxEventBytes) {
    fail('INVALID_PARAMETER', index, `an event must be at most ${EVENT_LIMITS.maxEventBytes} bytes (32 KB) as JSON`);
  }
  const shapeB = 'eventName' in raw;
  const name = text(shapeB ? raw.eventName : raw.name);
  if (name === undefined) fail('EVENT_NAME_REQUIRED', index, shapeB ? 'eventName is required' : 'name is required');
  if (name.length > EVENT_LIMITS.maxNameLength)
    fail('INVALID_PARAMETER', index, `name must be at most ${EVENT_LIMITS.maxNameLength} characters`);
  const user = text(raw.user) ?? (shapeB ? sender.userId : undefined);
  if (user === undefined) fail('USER_REQUIRED', index, 'user is required');
  const sessionId = text(raw.sessionId);
  if (sessionId === undefined && !shapeB) fail('SESSION_ID_REQUIRED', index, 'sessionId is required');
  for (const [field, value] of [
    ['user', user],
    ['sessionId', sessionId],
  ] as const) {
    if (value !== undefined && value.length > EVENT_LIMITS.maxIdLength)
      fail('INVALID_PARAMETER', index, `${field} must be at most ${EVENT_LIMITS.maxIdLength} characters`);
  }
  const extra = shapeB ? raw.properties : raw.extra;
  if (extra !== undefined && extra !== null && !isJsonObject(extra))
    fail('INVALID_PARAMETER', index, `${shapeB ? 'properties' : 'extra'} must be an object`);
  const unstorable = unstorablePlace(extra, [shapeB ? 'properties' : 'extra']);
  if (unstorable) fail('INVALID_PARAMETER', index, `${unstorable.path.join('.')}: ${unstorable.message}`);
  const clientId = raw.eventId ?? raw.insert_id;
  if (
    clientId !== undefined &&
    (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > EVENT_LIMITS.maxIdLength)
  ) {
    fail('INVALID_PARAMETER', index, `eventId must be a string of 1-${EVENT_LIMITS.maxIdLength} characters`);
  }
  // Checked last, so a malformed event gets the spec's own code first.
  if (sender.userProven && user.trim() !== sender.userId) {
    fail('INVALID_PARAMETER', index, 'user must be X-USER-ID: an event belongs to the user who sends it');
  }
  return {
    name,
    session_id: sessionId ?? null,
    timestamp: timestampOf(raw.timestamp, index, now),
    extra: (extra as Record<string, unknown> | undefined) ?? {},
    // Stryker disable next-line ConditionalExpression: the caller destructures clientId away; undefined = absent
    ...(clientId !== undefined ? { clientId: clientId as string } : {}),
  };
}

/**
 * Validates and normalises a whole batch, or throws for the first offending event (naming its
 * index) so that nothing of an invalid batch is stored. Every event is the sender's.
 */
export function normalizeEvents(events: unknown, sender: EventSender, now: Date): NormalizedEvent[] {
  if (!Array.isArray(events))
    throw new AppError('INVALID_PARAMETER', 'events must be an array', {
      details: [{ path: 'body.events', message: 'must be an array' }],
    });
  if (events.length === 0)
    throw new AppError('INVALID_PARAMETER', 'events must not be empty', {
      details: [{ path: 'body.events', message: 'must not be empty' }],
    });
  if (events.length > EVENT_LIMITS.maxEvents) {
    throw new AppError('INVALID_PARAMETER', `at most ${EVENT_LIMITS.maxEvents} events per request`, {
      details: [{ path: 'body.events', message: `at most ${EVENT_LIMITS.maxEvents}` }],
    });
  }
  return events.map((raw, index) => {
    const { clientId, ...event } = normalizeOne(raw, index, sender, now);
    // Without a client id, the same event at the same place of a resent batch gets the same key;
    // the receive time is left out, so a retry minutes later still matches.
    const key =
      clientId !== undefined
        ? `id:${clientId}`
        : `h:${createHash('sha256')
            .update(JSON.stringify([index, raw]))
            .digest('base64url')
            .slice(0, 32)}`;
    return { key, ...event };
  });
}
