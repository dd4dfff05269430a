import { describe, expect, it } from 'vitest';
import { createApp, findApiKey, getApp, listAppKeys, revokeKey, revokeKeyById, rotateKey } from '../../lib/data/apps.js';
import { sha256Hex } from '../../lib/ids.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';

describe('apps and API keys (DynamoDB Local)', () => {
  it('creating an app issues a secret and an sdk key, each mapping to the app', async () => {
    const { app, secretKey, sdkKey } = await createApp({ name: 'a', reportingCurrency: 'USD', testStore: false });
    expect(secretKey.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(sdkKey.key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(await findApiKey(secretKey.key)).toMatchObject({ app_id: app.app_id, kind: 'secret', status: 'active' });
    expect(await findApiKey(sdkKey.key)).toMatchObject({ app_id: app.app_id, kind: 'sdk', status: 'active' });
    expect(await getApp(app.app_id)).toMatchObject({ name: 'a', reporting_currency: 'USD', test_store: false });
  });

  it('keys are stored only as SHA-256 hashes, never in clear', async () => {
    const { secretKey, sdkKey } = await createApp({ name: 'hash check', reportingCurrency: 'USD', testStore: false });
    // The whole table, every page (a scan answers at most 1 MB at a time).
    const items: unknown[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await ddb.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    const dump = JSON.stringify(items);
    expect(dump).not.toContain(secretKey.key);
    expect(dump).not.toContain(sdkKey.key);
    expect(dump).toContain(sha256Hex(secretKey.key));
  });

  it('rotation issues a new key and revokes the old one of that kind only', async () => {
    const { app, secretKey, sdkKey } = await createApp({ name: 'r', reportingCurrency: 'USD', testStore: false });
    const { issued, revoked } = await rotateKey(app.app_id, 'secret', false);
    expect(revoked).toEqual([secretKey.key_id]);
    expect((await findApiKey(secretKey.key))?.status).toBe('revoked');
    expect((await findApiKey(issued.key))?.status).toBe('active');
    expect((await findApiKey(sdkKey.key))?.status).toBe('active');
  });

  it('rotation with keepOld leaves the previous key active until revoked by id', async () => {
    const { app, sdkKey } = await createApp({ name: 'k', reportingCurrency: 'USD', testStore: false });
    await rotateKey(app.app_id, 'sdk', true);
    expect((await findApiKey(sdkKey.key))?.status).toBe('active');
    expect((await listAppKeys(app.app_id, 'sdk')).filter((k) => k.status === 'active')).toHaveLength(2);
    await revokeKeyById(app.app_id, sdkKey.key_id);
    expect((await findApiKey(sdkKey.key))?.status).toBe('revoked');
  });

  it('rotating keys of an app that does not exist fails and mints nothing', async () => {
    await expect(rotateKey('app_0000000000000000', 'secret', false)).rejects.toThrow();
    expect(await listAppKeys('app_0000000000000000')).toEqual([]);
  });

  it('revoking an unknown key reports that nothing was revoked', async () => {
    expect(await revokeKey('sk_unknown')).toBeUndefined();
  });
});
