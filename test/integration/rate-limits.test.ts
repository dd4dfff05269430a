import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import { keys } from '../../lib/data/keys.js';
import { countRequest } from '../../lib/data/rate-limits.js';
import { enforceRateLimit } from '../../lib/http/rate-limit.js';
import { config } from '../../lib/config.js';
import { appErrorOf } from '../support/assertions.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';

const NOW = Date.now();
const newKeyId = () => `sk_id_${randomUUID().slice(0, 12)}`;
const storedCount = async (keyId: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.rateLimitWindow(keyId) }))).Item?.request_count as number | undefined;

describe('the shared rate-limit counter (DynamoDB Local)', () => {
  it('counts concurrent requests of one key exactly once each, across the window opening', async () => {
    const keyId = newKeyId();
    const counts = await Promise.all(Array.from({ length: 40 }, () => countRequest(keyId, NOW)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(counts.map((c) => c.windowEndsAt))).toEqual(new Set([NOW + 60_000]));
  });

  it('counts with one write while the window is open and for a new key; two only to replace a closed window', async () => {
    const keyId = newKeyId();
    expect(await dynamoDbRoundTrips(() => countRequest(keyId, NOW))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countRequest(keyId, NOW + 1000))).toEqual([['UpdateItem']]);
    expect(await dynamoDbRoundTrips(() => countRequest(keyId, NOW + 60_000))).toEqual([['UpdateItem'], ['UpdateItem']]);
    expect(await storedCount(keyId)).toBe(1);
  });

  it('opens the window at the first request and starts a new one once it has closed', async () => {
    const keyId = newKeyId();
    expect(await countRequest(keyId, NOW)).toEqual({ count: 1, windowEndsAt: NOW + 60_000 });
    expect(await countRequest(keyId, NOW + 59_999)).toEqual({ count: 2, windowEndsAt: NOW + 60_000 });
    expect(await countRequest(keyId, NOW + 60_000)).toEqual({ count: 1, windowEndsAt: NOW + 120_000 });
  });

  it('keeps one counter per key', async () => {
    const [a, b] = [newKeyId(), newKeyId()];
    await countRequest(a, NOW);
    await countRequest(a, NOW);
    expect((await countRequest(b, NOW)).count).toBe(1);
  });
});

describe('enforceRateLimit', () => {
  it('refuses past the limit with 429 RATE_LIMITED, Retry-After and r=0, and stops writing once the window is known to be exhausted', async () => {
    const caller = { keyId: newKeyId(), tier: 'standard' as const };
    // A limit of 50 for this test (the test env raises the limits); fill the window to it directly.
    const configured = config.rateLimits.standard;
    config.rateLimits.standard = 50;
    await Promise.all(Array.from({ length: 50 }, () => countRequest(caller.keyId, NOW)));
    try {
      const refused = await appErrorOf(enforceRateLimit(caller, NOW + 1_000));
      expect(refused.code).toBe('RATE_LIMITED');
      expect(refused.status).toBe(429);
      expect(refused.retryable).toBe(true);
      expect(refused.headers).toEqual({ 'RateLimit-Policy': '"standard";q=50;w=60', RateLimit: '"standard";r=0;t=59', 'Retry-After': '59' });
      expect(await storedCount(caller.keyId)).toBe(51);
      // Refused again without another write: the instance remembers the exhausted window.
      expect((await appErrorOf(enforceRateLimit(caller, NOW + 2_000))).headers).toMatchObject({ 'Retry-After': '58' });
      expect(await storedCount(caller.keyId)).toBe(51);
      // A new window: allowed again.
      expect(await enforceRateLimit(caller, NOW + 60_000)).toEqual({ 'RateLimit-Policy': '"standard";q=50;w=60', RateLimit: '"standard";r=49;t=60' });
    } finally {
      config.rateLimits.standard = configured;
    }
  });
});
