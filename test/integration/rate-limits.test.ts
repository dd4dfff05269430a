import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { config } from '../../lib/core/config.js';
import { sha256Hex } from '../../lib/core/ids.js';
import { revokeKey } from '../../lib/data/api-keys.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { countKeyRequest, countUserRequest, readApiKey } from '../../lib/data/rate-limits.js';
import { authenticateAndLimit, authenticateSdkKey, countMobileRequest } from '../../lib/http/auth.js';
import { appErrorOf } from '../support/assertions.js';
import { conditionFailed, interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp } from '../support/fixtures.js';

const NOW = Date.now();
/** A new app's secret key, by the hash it is stored under. */
const newKey = async () => {
  const { secretKey, appId } = await createTestApp([]);
  return { raw: secretKey, hash: sha256Hex(secretKey), appId };
};
const storedKey = async (hash: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.apiKey(hash), ConsistentRead: true }))).Item;

describe('the shared rate-limit counter on the API key item (DynamoDB Local)', () => {
  it('counts concurrent requests of one key exactly once each, across the window opening, and returns the key', async () => {
    const { hash, appId } = await newKey();
    const counts = await Promise.all(Array.from({ length: 40 }, () => countKeyRequest(hash, NOW)));
    expect(counts.map((c) => c!.window.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    expect(new Set(counts.map((c) => c!.window.windowEndsAt))).toEqual(new Set([NOW + 60_000]));
    expect(counts[0]!.key).toMatchObject({ app_id: appId, kind: 'secret', status: 'active' });
  });

  it('counts with one write while the window is open and for a new key; two only to replace a closed window', async () => {
    const { hash } = await newKey();
    expect(await dynamoDbRoundTrips(() => countKeyRequest(hash, NOW))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countKeyRequest(hash, NOW + 1000))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countKeyRequest(hash, NOW + 60_000))).toEqual([
      ['UpdateItem'],
      ['UpdateItem'],
    ]);
    expect((await storedKey(hash))?.request_count).toBe(1);
  });

  it('opens the window at the first request and starts a new one once it has closed', async () => {
    const { hash } = await newKey();
    expect((await countKeyRequest(hash, NOW))!.window).toEqual({ count: 1, windowEndsAt: NOW + 60_000 });
    expect((await countKeyRequest(hash, NOW + 59_999))!.window).toEqual({ count: 2, windowEndsAt: NOW + 60_000 });
    expect((await countKeyRequest(hash, NOW + 60_000))!.window).toEqual({ count: 1, windowEndsAt: NOW + 120_000 });
  });

  it('keeps one counter per key, and writes nothing for a key that does not exist', async () => {
    const [a, b] = [await newKey(), await newKey()];
    await countKeyRequest(a.hash, NOW);
    await countKeyRequest(a.hash, NOW);
    expect((await countKeyRequest(b.hash, NOW))!.window.count).toBe(1);
    const unknown = sha256Hex('sk_live_no_such_key');
    expect(await countKeyRequest(unknown, NOW)).toBeUndefined();
    expect(await storedKey(unknown)).toBeUndefined();
  });

  it('never lets a count touch what the key is: a revocation holds from the next request', async () => {
    const { raw, hash } = await newKey();
    expect((await authenticateAndLimit(raw, 'secret', NOW)).caller.kind).toBe('secret');
    await revokeKey(raw);
    expect((await appErrorOf(authenticateAndLimit(raw, 'secret', NOW + 1))).code).toBe('INVALID_API_KEY');
    expect(await storedKey(hash)).toMatchObject({ status: 'revoked', kind: 'secret' });
  });
});

describe('authenticateAndLimit', () => {
  it('refuses past the limit with 429 RATE_LIMITED, Retry-After and r=0, and stops writing once the window is known to be exhausted', async () => {
    const { raw, hash } = await newKey();
    // A limit of 50 for this test (the test env raises the limits); fill the window to it directly.
    const configured = config.rateLimits.standard;
    config.rateLimits.standard = 50;
    await Promise.all(Array.from({ length: 50 }, () => countKeyRequest(hash, NOW)));
    try {
      const refused = await appErrorOf(authenticateAndLimit(raw, 'secret', NOW + 1_000));
      expect(refused.code).toBe('RATE_LIMITED');
      expect(refused.message).toBe('Rate limit of 50 requests per minute exceeded; retry in 59 s');
      expect(refused.status).toBe(429);
      expect(refused.retryable).toBe(true);
      expect(refused.headers).toEqual({
        'RateLimit-Policy': '"standard";q=50;w=60',
        RateLimit: '"standard";r=0;t=59',
        'Retry-After': '59',
      });
      expect((await storedKey(hash))?.request_count).toBe(51);
      // Refused again without another write: the instance remembers the exhausted window.
      const again = await appErrorOf(authenticateAndLimit(raw, 'secret', NOW + 2_000));
      expect(again).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
      expect(again.headers).toEqual({
        'RateLimit-Policy': '"standard";q=50;w=60',
        RateLimit: '"standard";r=0;t=58',
        'Retry-After': '58',
      });
      expect((await storedKey(hash))?.request_count).toBe(51);
      // Another key's window is its own.
      const other = await newKey();
      expect((await authenticateAndLimit(other.raw, 'secret', NOW + 2_000)).headers.RateLimit).toBe(
        '"standard";r=49;t=60',
      );
      // A new window: allowed again.
      expect((await authenticateAndLimit(raw, 'secret', NOW + 60_000)).headers).toEqual({
        'RateLimit-Policy': '"standard";q=50;w=60',
        RateLimit: '"standard";r=49;t=60',
      });
    } finally {
      config.rateLimits.standard = configured;
    }
  });

  it('a key of the other kind, or one that does not exist, is INVALID_API_KEY', async () => {
    const { raw } = await newKey();
    expect((await appErrorOf(authenticateSdkKey(raw, NOW))).code).toBe('INVALID_API_KEY');
    expect((await appErrorOf(authenticateAndLimit('sk_live_made_up', 'secret', NOW))).code).toBe('INVALID_API_KEY');
  });
});

const storedWindow = async (appId: string, userId: string) =>
  (
    await ddb.send(
      new GetCommand({ TableName: tableName, Key: keys.rateLimitWindow(appId, userId), ConsistentRead: true }),
    )
  ).Item;

describe('the per-user window of the mobile API (DynamoDB Local)', () => {
  it('counts concurrent requests of one user exactly once each, in one window', async () => {
    const { appId } = await newKey();
    const counts = await Promise.all(Array.from({ length: 40 }, () => countUserRequest(appId, 'user-1', NOW)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(counts.map((c) => c.windowEndsAt))).toEqual(new Set([NOW + 60_000]));
  });

  it('keeps one window per user of an app, apart from the same user id in another app, expiring (TTL) when it closes', async () => {
    const [a, b] = [await newKey(), await newKey()];
    await countUserRequest(a.appId, 'same-user', NOW);
    await countUserRequest(a.appId, 'same-user', NOW);
    expect((await countUserRequest(a.appId, 'other-user', NOW)).count).toBe(1);
    expect((await countUserRequest(b.appId, 'same-user', NOW)).count).toBe(1);
    expect(await storedWindow(a.appId, 'same-user')).toEqual({
      ...keys.rateLimitWindow(a.appId, 'same-user'),
      request_count: 2,
      window_ends_at: NOW + 60_000,
      ttl: Math.ceil((NOW + 60_000) / 1000),
    });
  });

  it('opens the window at the first request and a new one once it has closed', async () => {
    const { appId } = await newKey();
    expect(await countUserRequest(appId, 'u', NOW)).toEqual({ count: 1, windowEndsAt: NOW + 60_000 });
    expect(await countUserRequest(appId, 'u', NOW + 59_999)).toEqual({ count: 2, windowEndsAt: NOW + 60_000 });
    expect(await countUserRequest(appId, 'u', NOW + 60_000)).toEqual({ count: 1, windowEndsAt: NOW + 120_000 });
  });

  it('costs one write when this instance saw the window last or it has closed; two when another instance opened it', async () => {
    const { appId } = await newKey();
    expect(await dynamoDbRoundTrips(() => countUserRequest(appId, 'u', NOW))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countUserRequest(appId, 'u', NOW + 1000))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countUserRequest(appId, 'u', NOW + 60_000))).toEqual([['UpdateItem']]);
    // A window another instance opened (written here directly): this one guesses "closed" first.
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.rateLimitWindow(appId, 'elsewhere'), request_count: 5, window_ends_at: NOW + 30_000 },
      }),
    );
    expect(await dynamoDbRoundTrips(() => countUserRequest(appId, 'elsewhere', NOW))).toEqual([
      ['UpdateItem'],
      ['UpdateItem'],
    ]);
    expect((await storedWindow(appId, 'elsewhere'))?.request_count).toBe(6);
    expect(await dynamoDbRoundTrips(() => countUserRequest(appId, 'elsewhere', NOW + 1))).toEqual([['UpdateItem']]);
  });

  it('never writes the sdk key: authenticating reads it, counting writes the user window', async () => {
    const { sdkKey, appId } = await createTestApp([]);
    const before = await storedKey(sha256Hex(sdkKey));
    const calls = await dynamoDbRoundTrips(async () => {
      const { caller } = await authenticateSdkKey(sdkKey, NOW);
      await countMobileRequest(caller, 'user-1', NOW);
    });
    expect(calls).toEqual([['GetItem'], ['UpdateItem']]);
    expect(await storedKey(sha256Hex(sdkKey))).toEqual(before);
    expect((await storedWindow(appId, 'user-1'))?.request_count).toBe(1);
  });
});

describe('countMobileRequest', () => {
  it('refuses one user past the limit with 429 and its RateLimit fields, writes nothing more for that user, and lets another user through', async () => {
    const { sdkKey, appId } = await createTestApp([]);
    const configured = config.rateLimits.standard;
    config.rateLimits.standard = 50;
    try {
      const { caller } = await authenticateSdkKey(sdkKey, NOW);
      await Promise.all(Array.from({ length: 50 }, () => countUserRequest(appId, 'heavy', NOW)));
      const refused = await appErrorOf(countMobileRequest(caller, 'heavy', NOW + 1_000));
      expect(refused.code).toBe('RATE_LIMITED');
      expect(refused.headers).toEqual({
        'RateLimit-Policy': '"standard";q=50;w=60',
        RateLimit: '"standard";r=0;t=59',
        'Retry-After': '59',
      });
      expect((await storedWindow(appId, 'heavy'))?.request_count).toBe(51);
      const again = await dynamoDbRoundTrips(() => appErrorOf(countMobileRequest(caller, 'heavy', NOW + 2_000)));
      expect(again).toEqual([]);
      expect(await countMobileRequest(caller, 'light', NOW + 2_000)).toEqual({
        'RateLimit-Policy': '"standard";q=50;w=60',
        RateLimit: '"standard";r=49;t=60',
      });
    } finally {
      config.rateLimits.standard = configured;
    }
  });
});

describe('the windows an instance remembers as exhausted', () => {
  it('forgets them all once it remembers the most it may, and keeps the newest', async () => {
    const { sdkKey, appId } = await createTestApp([]);
    // A fresh lib/http (empty memory) with a limit of 0: every user's first request exhausts its window.
    vi.resetModules();
    const [{ config: freshConfig }, auth, rateLimit, calls] = await Promise.all([
      import('../../lib/core/config.js'),
      import('../../lib/http/auth.js'),
      import('../../lib/http/rate-limit.js'),
      import('../support/dynamodb-calls.js'),
    ]);
    freshConfig.rateLimits.standard = 0;
    const { caller } = await auth.authenticateSdkKey(sdkKey, NOW);
    const user = (i: number) => `exhausted-${i}`;
    // The fresh module's AppError is another class than this file's: compare codes.
    const count = (i: number, at: number) =>
      auth.countMobileRequest(caller, user(i), at).then(
        () => 'allowed',
        (error: { code: string }) => error.code,
      );
    for (let i = 0; i < rateLimit.MAX_REMEMBERED; i += 25)
      await Promise.all(Array.from({ length: 25 }, (_, j) => count(i + j, NOW)));
    const writes = async (i: number, at: number) =>
      (await calls.dynamoDbRoundTrips(async () => expect(await count(i, at)).toBe('RATE_LIMITED'))).length;
    expect(await writes(0, NOW + 1)).toBe(0);
    // The next exhausted window starts the memory over, with itself in it.
    expect(await writes(rateLimit.MAX_REMEMBERED, NOW + 2)).toBe(1);
    expect(await writes(rateLimit.MAX_REMEMBERED, NOW + 3)).toBe(0);
    expect(await writes(0, NOW + 4)).toBe(1);
    expect(appId).toBe(caller.appId);
  });
});

describe('the counters when DynamoDB refuses (a middleware on the shared client)', () => {
  afterEach(stopIntercepting);
  /** The UpdateExpression of every write sent; `refuse` decides, by its position, which fail and how. */
  function refuseWrites(refuse: (n: number) => Error | undefined): string[] {
    const writes: string[] = [];
    interceptCommands(async ({ command, input }, send) => {
      if (command !== 'UpdateItemCommand') return send();
      writes.push(input.UpdateExpression);
      const error = refuse(writes.length);
      if (error) throw error;
      return send();
    });
    return writes;
  }
  /** What DynamoDB answers when the window changed under the write: the item it failed on comes back. */
  const windowMoved = () =>
    Object.assign(conditionFailed(), {
      Item: { pk: { S: 'x' } },
    });
  const COUNT_IN_OPEN = 'SET window_ends_at = if_not_exists(window_ends_at, :ends) ADD request_count :one';
  const OPEN = 'SET request_count = :one, window_ends_at = :ends';

  it('a key: a window that moved under both writes is tried again, up to 3 times, then the request fails', async () => {
    const { hash } = await newKey();
    const twice = refuseWrites((n) => (n <= 2 ? windowMoved() : undefined));
    expect(await countKeyRequest(hash, NOW)).toMatchObject({ window: { count: 1, windowEndsAt: NOW + 60_000 } });
    expect(twice).toEqual([COUNT_IN_OPEN, OPEN, COUNT_IN_OPEN]);

    stopIntercepting();
    const always = refuseWrites(() => windowMoved());
    await expect(countKeyRequest(hash, NOW)).rejects.toThrow('rate-limit window of an API key kept changing');
    expect(always).toEqual([COUNT_IN_OPEN, OPEN, COUNT_IN_OPEN, OPEN, COUNT_IN_OPEN, OPEN]);
  });

  it('a key: a failure other than the condition fails the request at once', async () => {
    const { hash } = await newKey();
    const writes = refuseWrites(() => throttled('ThrottlingException'));
    await expect(countKeyRequest(hash, NOW)).rejects.toThrow('throughput exceeded');
    expect(writes).toHaveLength(1);
  });

  it('a key is read strongly consistent, so that one issued a moment ago is found', async () => {
    const { hash, appId } = await newKey();
    const sent = interceptCommands();
    expect(await readApiKey(hash)).toMatchObject({ app_id: appId });
    expect(sent).toEqual([
      { command: 'GetItemCommand', input: { TableName: tableName, Key: keys.apiKey(hash), ConsistentRead: true } },
    ]);
  });

  it('a user: each refused write tries the other kind of write, 4 writes at most, then the request fails', async () => {
    const { appId } = await newKey();
    const writes = refuseWrites(() => conditionFailed());
    await expect(countUserRequest(appId, 'user-refused', NOW)).rejects.toThrow(
      'rate-limit window of a user kept changing',
    );
    const USER_OPEN = 'SET request_count = :one, window_ends_at = :ends, #ttl = :expires';
    const USER_COUNT = 'ADD request_count :one';
    // Never seen by this instance: it opens first.
    expect(writes).toEqual([USER_OPEN, USER_COUNT, USER_OPEN, USER_COUNT]);

    stopIntercepting();
    const once = refuseWrites((n) => (n === 1 ? conditionFailed() : undefined));
    expect(await countUserRequest(appId, 'user-refused-once', NOW)).toEqual({ count: 1, windowEndsAt: NOW + 60_000 });
    expect(once).toEqual([USER_OPEN, USER_COUNT, USER_OPEN]);
  });

  it('a user: a failure other than the condition fails the request at once', async () => {
    const { appId } = await newKey();
    const writes = refuseWrites(() => throttled('ThrottlingException'));
    await expect(countUserRequest(appId, 'user-throttled', NOW)).rejects.toThrow('throughput exceeded');
    expect(writes).toHaveLength(1);
  });
});
