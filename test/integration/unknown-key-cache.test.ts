import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The deployed default is 30 s; the other tests run with 0 so a revocation shows at once.
  process.env.KEY_CACHE_TTL_SECONDS = '30';
});

import { AppError } from '../../lib/core/errors.js';
import { sha256Hex } from '../../lib/core/ids.js';
import { revokeKey } from '../../lib/data/apps.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { keys } from '../../lib/data/keys.js';
import { authenticateAndLimit, authenticateSdkKey } from '../../lib/http/auth.js';
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

  it('a key found unknown is refused without I/O for 30 s, then looked up again', async () => {
    const madeUp = `sk_${'x'.repeat(40)}${Date.now()}`;
    expect(await authenticateAt(madeUp, T0)).toEqual({ outcome: 'INVALID_API_KEY', calls: [['UpdateItem']] });
    expect(await authenticateAt(madeUp, T0 + 29_999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    expect(await authenticateAt(madeUp, T0 + 30_000)).toEqual({ outcome: 'INVALID_API_KEY', calls: [['UpdateItem']] });
    // Remembered again from the new lookup.
    expect(await authenticateAt(madeUp, T0 + 59_999)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
  });

  it('a key that appears after it was found unknown is served once the 30 s are over', async () => {
    const key = keys.apiKey(sha256Hex(app.secretKey));
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    expect(Item).toBeDefined();
    // The key item missing (as when a lookup races the key's creation): found unknown.
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: key }));
    expect((await authenticateAt(app.secretKey, T0)).outcome).toBe('INVALID_API_KEY');
    await ddb.send(new PutCommand({ TableName: tableName, Item: Item! }));

    expect(await authenticateAt(app.secretKey, T0 + 10_000)).toEqual({ outcome: 'INVALID_API_KEY', calls: [] });
    expect(await authenticateAt(app.secretKey, T0 + 30_001)).toMatchObject({ outcome: 'ok' });
    // A known key is never cached as unknown: every request is counted.
    expect(await authenticateAt(app.secretKey, T0 + 30_002)).toEqual({ outcome: 'ok', calls: [['UpdateItem']] });
  });
});

/** The outcome of one sdk key authentication at `nowMs` (the app it resolved to), with its round trips. */
async function authenticateSdkAt(rawKey: string, nowMs: number) {
  let outcome = '';
  const calls = await dynamoDbRoundTrips(async () => {
    try {
      outcome = (await authenticateSdkKey(rawKey, nowMs)).caller.appId;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcome = error.code;
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
