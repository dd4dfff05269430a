import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The deployed default is 30 s; the other tests run with 0 so a revocation shows at once.
  process.env.KEY_CACHE_TTL_SECONDS = '30';
});

import { AppError } from '../../lib/core/errors.js';
import { sha256Hex } from '../../lib/core/ids.js';
import { revokeKey } from '../../lib/data/api-keys.js';
import { batchWriteAll, putRequest } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import {
  authenticateAndLimit,
  authenticateSdkKey,
  EVENTUAL_MISS_MS,
  MAX_REMEMBERED_KEYS,
} from '../../lib/http/auth.js';
import { interceptCommands, stopIntercepting } from '../support/ddb-intercept.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';

/** The outcome of one authentication at `nowMs`, with the DynamoDB round trips it cost. */
async function authenticateAt(rawKey: string, nowMs: number) {
  let outcome = 'ok';
  const calls = await dynamoDbRoundTrips(async () => {
    try {
      await authenticateAndLimit(rawKey, 'secret', nowMs);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcome = error.code;
    }
  });
  return { outcome, calls };
}

describe('the unknown-key cache with KEY_CACHE_TTL_SECONDS=30 (injected clock)', () => {
  let app: TestApp;
  const T0 = Date.parse('2026-03-10T12:00:00.000Z');
  beforeAll(async () => {
    app = await createTestApp([]);
  });

  // A secret key is looked up eventually consistent (no write, no consistent read for a made-up
  // one), which may miss a key issued within the last second: a miss is remembered EVENTUAL_MISS_MS.
  it('a secret key found unknown is refused without I/O for EVENTUAL_MISS_MS (1 s), then looked up again', async () => {
    expect(EVENTUAL_MISS_MS).toBe(1000);
    const madeUp = `sk_${'x'.repeat(40)}${Date.now()}`;
    expect(await authenticateAt(madeUp, T0)).toEqual({ outcome: 'INVALID_API_KEY', calls: [['GetItem']] });
    expect(await authenticateAt(madeUp, T0 + 999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    expect(await authenticateAt(madeUp, T0 + 1_000)).toEqual({ outcome: 'INVALID_API_KEY', calls: [['GetItem']] });
    // Remembered again from the new lookup.
    expect(await authenticateAt(madeUp, T0 + 1_999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
  });

  it('a secret key that appears after it was found unknown (a lookup racing its creation) is served a second later', async () => {
    const key = keys.apiKey(sha256Hex(app.secretKey));
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    expect(Item).toBeDefined();
    // The key item missing (as when a lookup races the key's creation): found unknown.
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: key }));
    expect((await authenticateAt(app.secretKey, T0)).outcome).toBe('INVALID_API_KEY');
    await ddb.send(new PutCommand({ TableName: tableName, Item: Item! }));

    expect(await authenticateAt(app.secretKey, T0 + 999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    // Read once by this instance (it found the key missing before), then counted.
    expect(await authenticateAt(app.secretKey, T0 + 1_000)).toEqual({
      outcome: 'ok',
      calls: [['GetItem'], ['UpdateItem']],
    });
    // A known key is never cached as unknown: every request is counted.
    expect(await authenticateAt(app.secretKey, T0 + 1_001)).toEqual({ outcome: 'ok', calls: [['UpdateItem']] });
  });
});

describe('a made-up secret key costs no write and no strongly consistent read', () => {
  afterEach(() => stopIntercepting());

  it('ever-new made-up keys are each refused after one eventually consistent read of the key alone', async () => {
    const sent = interceptCommands();
    for (let i = 0; i < 5; i++) {
      const madeUp = `sk_${randomBytes(24).toString('hex')}`;
      await expect(authenticateAndLimit(madeUp, 'secret')).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    }
    expect(sent.map(({ command }) => command)).toEqual(Array(5).fill('GetItemCommand'));
    for (const { input } of sent) {
      expect(input.ConsistentRead).not.toBe(true);
      expect(input.ProjectionExpression).toBe('pk');
    }
  });

  it('a genuine key is read once per instance, then each request is the one counting write', async () => {
    const app = await createTestApp([]);
    const sent = interceptCommands();
    for (let i = 0; i < 3; i++) await authenticateAndLimit(app.secretKey, 'secret');
    expect(sent.map(({ command }) => command)).toEqual([
      'GetItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
    ]);
  });
});

/**
 * The outcome of one sdk key authentication at `nowMs` (the app it resolved to, or the refusal's
 * code), with its round trips; `auth` is this file's lib/http/auth.ts unless a fresh copy is given.
 */
async function authenticateSdkAt(
  rawKey: string,
  nowMs: number,
  auth: Pick<typeof import('../../lib/http/auth.js'), 'authenticateSdkKey'> & {
    dynamoDbRoundTrips: typeof dynamoDbRoundTrips;
  } = { authenticateSdkKey, dynamoDbRoundTrips },
) {
  let outcome = '';
  const calls = await auth.dynamoDbRoundTrips(async () => {
    try {
      outcome = (await auth.authenticateSdkKey(rawKey, nowMs)).caller.appId;
    } catch (error) {
      // A fresh module's AppError is another class than this file's: a refusal is known by its code.
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string') throw error;
      outcome = code;
    }
  });
  return { outcome, calls };
}

describe('the sdk key cache with KEY_CACHE_TTL_SECONDS=30 (injected clock)', () => {
  const T0 = Date.parse('2026-03-10T13:00:00.000Z');

  it('reads an sdk key once per 30 s, so a revocation reaches a warm instance within 30 s', async () => {
    const app = await createTestApp([]);
    expect(await authenticateSdkAt(app.sdkKey, T0)).toEqual({ outcome: app.appId, calls: [['GetItem']] });
    await revokeKey(app.sdkKey);
    // The copy read at T0 serves until T0 + 30 s, the revocation notwithstanding.
    expect(await authenticateSdkAt(app.sdkKey, T0 + 29_999)).toEqual({ outcome: app.appId, calls: [] });
    expect(await authenticateSdkAt(app.sdkKey, T0 + 30_000)).toEqual({
      outcome: 'INVALID_API_KEY',
      calls: [['GetItem']],
    });
    // The revoked key is remembered as read: refused without I/O until its copy is 30 s old.
    expect(await authenticateSdkAt(app.sdkKey, T0 + 59_999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
  });

  it("keeps each key's own app: two apps' keys used in turn never resolve to the other's", async () => {
    const [a, b] = [await createTestApp([]), await createTestApp([])];
    for (let i = 0; i < 3; i++) {
      expect((await authenticateSdkAt(a.sdkKey, T0 + i)).outcome).toBe(a.appId);
      expect((await authenticateSdkAt(b.sdkKey, T0 + i)).outcome).toBe(b.appId);
    }
    // A secret key is not an sdk key, cached or not.
    expect((await authenticateSdkAt(a.secretKey, T0)).outcome).toBe('INVALID_API_KEY');
    expect((await authenticateSdkAt(a.secretKey, T0 + 1)).outcome).toBe('INVALID_API_KEY');
  });

  it('an sdk key found unknown is refused without I/O for 30 s', async () => {
    const madeUp = `pk_${'y'.repeat(40)}${Date.now()}`;
    expect(await authenticateSdkAt(madeUp, T0)).toEqual({ outcome: 'INVALID_API_KEY', calls: [['GetItem']] });
    expect(await authenticateSdkAt(madeUp, T0 + 29_999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
  });
});

describe('what authentication refuses without I/O, and the bounds of its caches (KEY_CACHE_TTL_SECONDS=30)', () => {
  const T0 = Date.parse('2026-03-10T14:00:00.000Z');

  /**
   * lib/http/auth.ts loaded anew, its caches empty whatever the tests before remembered, with a
   * recorder of the DynamoDB client it loaded.
   */
  const freshAuth = async () => {
    vi.resetModules();
    const [auth, calls] = await Promise.all([import('../../lib/http/auth.js'), import('../support/dynamodb-calls.js')]);
    return { ...auth, dynamoDbRoundTrips: calls.dynamoDbRoundTrips };
  };
  /** Authenticates every key, a few at a time (one DynamoDB Local round trip each). */
  const authenticateAll = async (rawKeys: string[], authenticate: (raw: string) => Promise<unknown>) => {
    for (let i = 0; i < rawKeys.length; i += 25)
      await Promise.all(rawKeys.slice(i, i + 25).map((raw) => authenticate(raw).catch(() => undefined)));
  };
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('refuses a key over 200 characters unread; one of 200 is looked up', async () => {
    expect(await authenticateAt(`sk_${'z'.repeat(198)}`, T0)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    expect(await authenticateAt(`sk_${'z'.repeat(197)}`, T0)).toEqual({
      outcome: 'INVALID_API_KEY',
      calls: [['GetItem']],
    });
  });

  it('forgets every unknown key once it has remembered the most it may, and keeps the newest', async () => {
    const auth = await freshAuth();
    const madeUp = (i: number) => `pk_bound_${i}_${'w'.repeat(30)}_${T0}`;
    await authenticateAll(range(MAX_REMEMBERED_KEYS).map(madeUp), (raw) => auth.authenticateSdkKey(raw, T0));
    // Full, and still holding the first.
    expect(await authenticateSdkAt(madeUp(0), T0 + 1, auth)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    // The next unknown key starts the cache over, with itself in it.
    expect(await authenticateSdkAt(madeUp(MAX_REMEMBERED_KEYS), T0 + 2, auth)).toEqual({
      outcome: 'INVALID_API_KEY',
      calls: [['GetItem']],
    });
    expect(await authenticateSdkAt(madeUp(MAX_REMEMBERED_KEYS), T0 + 3, auth)).toEqual({
      outcome: 'INVALID_API_KEY',
      calls: [],
    });
    expect(await authenticateSdkAt(madeUp(0), T0 + 4, auth)).toEqual({
      outcome: 'INVALID_API_KEY',
      calls: [['GetItem']],
    });
  });

  it('forgets every sdk key copy once it holds the most it may, and keeps the newest', async () => {
    const app = await createTestApp([]);
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName, Key: keys.apiKey(sha256Hex(app.sdkKey)), ConsistentRead: true }),
    );
    // Copies of the app's sdk key item under other keys: as many stored sdk keys as the cache holds, and one more.
    const copy = (i: number) => `pk_copy_${i}_${'v'.repeat(30)}_${T0}`;
    await batchWriteAll(
      range(MAX_REMEMBERED_KEYS + 1).map((i) => putRequest({ ...Item, ...keys.apiKey(sha256Hex(copy(i))) })),
    );
    const auth = await freshAuth();
    await authenticateAll(range(MAX_REMEMBERED_KEYS).map(copy), (raw) => auth.authenticateSdkKey(raw, T0));
    expect(await authenticateSdkAt(copy(0), T0 + 1, auth)).toEqual({ outcome: app.appId, calls: [] });
    expect(await authenticateSdkAt(copy(MAX_REMEMBERED_KEYS), T0 + 2, auth)).toEqual({
      outcome: app.appId,
      calls: [['GetItem']],
    });
    expect(await authenticateSdkAt(copy(MAX_REMEMBERED_KEYS), T0 + 3, auth)).toEqual({ outcome: app.appId, calls: [] });
    expect(await authenticateSdkAt(copy(0), T0 + 4, auth)).toEqual({ outcome: app.appId, calls: [['GetItem']] });
  });
});
