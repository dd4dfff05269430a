import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../lib/core/ids.js';
import {
  findApiKey,
  issueKey,
  issueUserTokenSecret,
  listAppKeys,
  revokeKey,
  revokeKeyById,
  rotateKey,
  setUserTokenRequired,
  UserTokenSecretExists,
} from '../../lib/data/api-keys.js';
import { createApp, getApp, setRestorePolicy, setTestStore } from '../../lib/data/apps.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { scanPages } from '../../lib/data/query.js';
import { failCommands, interceptCommands, type SentCommand, stopIntercepting } from '../support/ddb-intercept.js';

/** The secret each of the app's keys carries on its lookup item (what authentication reads), by key id. */
async function secretsOnKeys(
  appId: string,
): Promise<Record<string, { status: string; kind: string; secret: unknown; listed: unknown }>> {
  const listed = await listAppKeys(appId, undefined, true);
  const entries = await Promise.all(
    listed.map(async (k) => {
      const { Item } = await ddb.send(
        new GetCommand({ TableName: tableName, Key: keys.apiKey(k.hash), ConsistentRead: true }),
      );
      return [
        k.key_id,
        {
          status: k.status,
          kind: k.kind,
          secret: Item?.user_token_secret,
          listed: (k as unknown as Record<string, unknown>).user_token_secret,
        },
      ] as const;
    }),
  );
  return Object.fromEntries(entries);
}

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
    for await (const page of scanPages({})) items.push(...(page.Items ?? []));
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
    expect(await revokeKeyById(app.app_id, 'sk_id_unknown')).toBeUndefined();
    await revokeKeyById(app.app_id, sdkKey.key_id);
    expect((await findApiKey(sdkKey.key))?.status).toBe('revoked');
    // Only that key: the rotated sdk key and the secret key stay active.
    expect((await listAppKeys(app.app_id)).filter((k) => k.status === 'active')).toHaveLength(2);
  });

  it('rotating keys of an app that does not exist fails and mints nothing', async () => {
    await expect(rotateKey('app_0000000000000000', 'secret', false)).rejects.toThrow();
    expect(await listAppKeys('app_0000000000000000')).toEqual([]);
  });

  it('revoking an unknown key reports that nothing was revoked', async () => {
    expect(await revokeKey('sk_unknown')).toBeUndefined();
  });

  it("requiring user tokens puts the secret on every active sdk key's lookup item only; off takes it away, the app keeps it", async () => {
    const { app, secretKey, sdkKey } = await createApp({
      name: 'user tokens',
      reportingCurrency: 'USD',
      testStore: false,
    });
    const spare = await issueKey(app.app_id, 'sdk');
    await revokeKeyById(app.app_id, spare.key_id);
    const on = await setUserTokenRequired(app.app_id, true);
    expect(on.issued_secret).toMatch(/^ust_[A-Za-z0-9_-]{43}$/);
    expect(await getApp(app.app_id)).toMatchObject({ require_user_token: true, user_token_secret: on.issued_secret });
    expect(await secretsOnKeys(app.app_id)).toEqual({
      [sdkKey.key_id]: { status: 'active', kind: 'sdk', secret: on.issued_secret, listed: undefined },
      [spare.key_id]: { status: 'revoked', kind: 'sdk', secret: undefined, listed: undefined },
      [secretKey.key_id]: { status: 'active', kind: 'secret', secret: undefined, listed: undefined },
    });

    // Keys issued while it is on carry it; secret keys never do.
    const issued = await issueKey(app.app_id, 'sdk');
    const rotated = await rotateKey(app.app_id, 'sdk', true);
    const newSecretKey = await rotateKey(app.app_id, 'secret', false);
    const carried = await secretsOnKeys(app.app_id);
    expect(carried[issued.key_id]!.secret).toBe(on.issued_secret);
    expect(carried[rotated.issued.key_id]!.secret).toBe(on.issued_secret);
    expect(carried[newSecretKey.issued.key_id]!.secret).toBeUndefined();

    expect(await setUserTokenRequired(app.app_id, false)).toEqual({ app_id: app.app_id, require_user_token: false });
    expect(Object.values(await secretsOnKeys(app.app_id)).map((k) => k.secret)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await getApp(app.app_id)).toMatchObject({ require_user_token: false, user_token_secret: on.issued_secret });
    // On again: the kept secret, nothing new to show.
    expect(await setUserTokenRequired(app.app_id, true)).toEqual({ app_id: app.app_id, require_user_token: true });
    expect((await secretsOnKeys(app.app_id))[sdkKey.key_id]!.secret).toBe(on.issued_secret);
  });

  it('a new secret replaces the old on the app and its keys only when asked to', async () => {
    const { app, sdkKey } = await createApp({ name: 'secret rotation', reportingCurrency: 'USD', testStore: false });
    const first = await issueUserTokenSecret(app.app_id, false);
    // Not required yet: the keys carry nothing.
    expect((await secretsOnKeys(app.app_id))[sdkKey.key_id]!.secret).toBeUndefined();
    await expect(issueUserTokenSecret(app.app_id, false)).rejects.toThrow(UserTokenSecretExists);
    expect((await getApp(app.app_id))?.user_token_secret).toBe(first.issued_secret);
    await setUserTokenRequired(app.app_id, true);
    const second = await issueUserTokenSecret(app.app_id, true);
    expect(second).toEqual({
      app_id: app.app_id,
      require_user_token: true,
      issued_secret: expect.stringMatching(/^ust_/),
    });
    expect(second.issued_secret).not.toBe(first.issued_secret);
    expect((await secretsOnKeys(app.app_id))[sdkKey.key_id]!.secret).toBe(second.issued_secret);
  });

  it('the user-token setting of an app that does not exist is refused, naming the app', async () => {
    await expect(setUserTokenRequired('app_none', true)).rejects.toThrow('app app_none does not exist');
    await expect(issueUserTokenSecret('app_none', true)).rejects.toThrow('app app_none does not exist');
  });

  it("keys issued while the setting changes never miss it: every active sdk key ends with the app's setting", async () => {
    const { app } = await createApp({ name: 'racing', reportingCurrency: 'USD', testStore: false });
    await issueUserTokenSecret(app.app_id, false);
    for (const required of [true, false, true]) {
      // Issues and the change race; a loser may give up after its retries, but no interleaving may stick.
      await Promise.allSettled([
        issueKey(app.app_id, 'sdk'),
        setUserTokenRequired(app.app_id, required),
        issueKey(app.app_id, 'sdk'),
        rotateKey(app.app_id, 'sdk', true),
      ]);
      const stored = (await getApp(app.app_id, true))!;
      const expected = stored.require_user_token ? stored.user_token_secret : undefined;
      const sdkKeys = Object.values(await secretsOnKeys(app.app_id)).filter(
        (k) => k.kind === 'sdk' && k.status === 'active',
      );
      expect(sdkKeys.map((k) => k.secret)).toEqual(sdkKeys.map(() => expected));
    }
  });
});

describe('the test store turned on and off (admin apps test-store)', () => {
  const newApp = async () =>
    (await createApp({ name: 'test store', reportingCurrency: 'USD', testStore: false })).app.app_id;
  const stored = async (appId: string) =>
    (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.app(appId), ConsistentRead: true }))).Item!;

  it('on gives the app a key pair the first time; off keeps it; on again keeps the same pair', async () => {
    const appId = await newApp();
    expect(await setTestStore(appId, true)).toEqual({ test_store: true, generated_key: true });
    const first = await stored(appId);
    expect(first).toMatchObject({ test_store: true });
    expect(first.test_store_public_key).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(first.test_store_private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(first.test_store_private_key_secret).toBeUndefined();

    expect(await setTestStore(appId, false)).toEqual({ test_store: false, generated_key: false });
    expect(await stored(appId)).toMatchObject({
      test_store: false,
      test_store_public_key: first.test_store_public_key,
      test_store_private_key: first.test_store_private_key,
    });
    // On again: the kept key is not replaced (receipts minted before still verify), nothing new is kept.
    const keepTestStoreKey = vi.fn(async () => 'another-secret');
    expect(await setTestStore(appId, true, { keepTestStoreKey })).toEqual({ test_store: true, generated_key: false });
    expect(keepTestStoreKey).not.toHaveBeenCalled();
    expect(await stored(appId)).toMatchObject({
      test_store: true,
      test_store_public_key: first.test_store_public_key,
      test_store_private_key: first.test_store_private_key,
    });
  });

  it('where the private key is kept apart (a secret), the app holds its name, not the key', async () => {
    const appId = await newApp();
    const kept: string[] = [];
    const outcome = await setTestStore(appId, true, {
      keepTestStoreKey: async (id, privateKeyPem) => {
        kept.push(privateKeyPem);
        return `secret-of-${id}`;
      },
    });
    expect(outcome).toEqual({ test_store: true, generated_key: true });
    const item = await stored(appId);
    expect(item.test_store_private_key_secret).toBe(`secret-of-${appId}`);
    expect(item.test_store_private_key).toBeUndefined();
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('losing the race to another command: its key pair stays, and a kept key is read back to match it', async () => {
    const appId = await newApp();
    // The other command wins between this one's read of the app and its write.
    const outcome = await setTestStore(appId, true, {
      keepTestStoreKey: async () => {
        await setTestStore(appId, true);
        return 'kept-secret';
      },
      publicKeyOfKept: async (secretName) => `public key of ${secretName}`,
    });
    expect(outcome).toEqual({ test_store: true, generated_key: false });
    expect(await stored(appId)).toMatchObject({ test_store: true, test_store_public_key: 'public key of kept-secret' });

    const plain = await newApp();
    let winner = '';
    const lost = await setTestStore(plain, true, {
      keepTestStoreKey: async () => {
        await setTestStore(plain, true);
        winner = (await stored(plain)).test_store_public_key;
        return undefined;
      },
    });
    expect(lost).toEqual({ test_store: true, generated_key: false });
    expect(await stored(plain)).toMatchObject({ test_store: true, test_store_public_key: winner });
  });

  it('an app that does not exist is refused, and nothing is created', async () => {
    await expect(setTestStore('app_missing000000', true)).rejects.toThrow('app app_missing000000 does not exist');
    expect(await getApp('app_missing000000')).toBeUndefined();
  });
});

describe('what every change of keys and user tokens stands on', () => {
  afterEach(stopIntercepting);
  const cancelled = (code: string) =>
    new TransactionCanceledException({
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
      $metadata: {},
      CancellationReasons: [{ Code: code }],
    });
  const transactions = (sent: SentCommand[]) => sent.filter(({ command }) => command === 'TransactWriteItemsCommand');
  const newApp = async () => createApp({ name: 'keys version', reportingCurrency: 'USD', testStore: false });

  it('items carry their type: the app, its keys, and the lookup item of each key', async () => {
    const { app, secretKey } = await newApp();
    const raw = getConsistent;
    const hash = sha256Hex(secretKey.key);
    expect(await raw(keys.app(app.app_id))).toMatchObject({ type: 'app' });
    expect(await raw(keys.apiKey(hash))).toMatchObject({ type: 'api_key', app_id: app.app_id });
    expect(await raw(keys.appKey(app.app_id, 'secret', hash))).toMatchObject({ type: 'app_key', hash });
  });

  it('the app is read eventually consistent unless asked; a change of keys reads it and its keys strongly consistent', async () => {
    const { app } = await newApp();
    const sent = interceptCommands();
    await getApp(app.app_id);
    await getApp(app.app_id, true);
    await listAppKeys(app.app_id);
    await rotateKey(app.app_id, 'sdk', false);
    await setUserTokenRequired(app.app_id, true);
    const reads = sent.filter(({ command }) => command === 'GetItemCommand' || command === 'QueryCommand');
    expect(reads.map(({ command, input }) => [command, input.ConsistentRead ?? false])).toEqual([
      ['GetItemCommand', false],
      ['GetItemCommand', true],
      ['QueryCommand', false],
      // rotateKey: the app, then its sdk keys; setUserTokenRequired: the same.
      ['GetItemCommand', true],
      ['QueryCommand', true],
      ['GetItemCommand', true],
      ['QueryCommand', true],
    ]);
  });

  it('a change that lost the race to another starts over on what that one wrote, up to 5 attempts', async () => {
    const { app } = await newApp();
    let refusals = 2;
    const sent = interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand' && refusals-- > 0) throw cancelled('ConditionalCheckFailed');
      return send();
    });
    const { issued } = await rotateKey(app.app_id, 'sdk', false);
    expect(transactions(sent)).toHaveLength(3);
    expect((await findApiKey(issued.key))?.status).toBe('active');

    stopIntercepting();
    const always = failCommands('TransactWriteItemsCommand', () => cancelled('ConditionalCheckFailed'));
    await expect(issueKey(app.app_id, 'sdk')).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(transactions(always)).toHaveLength(5);
  });

  it('a transaction cancelled for another reason, or for an app that does not exist, is not tried again', async () => {
    const { app } = await newApp();
    const sent = failCommands('TransactWriteItemsCommand', () => cancelled('ValidationError'));
    await expect(issueKey(app.app_id, 'sdk')).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(transactions(sent)).toHaveLength(1);

    stopIntercepting();
    const missing = interceptCommands();
    await expect(issueKey('app_0000000000000001', 'sdk')).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
    expect(transactions(missing)).toHaveLength(1);
  });

  it('rotation revokes only the keys still active, and the new key takes the tier of the newest of them', async () => {
    const { app, sdkKey } = await newApp();
    const premium = await issueKey(app.app_id, 'sdk', 'premium');
    await revokeKey(premium.key);
    const { issued, revoked } = await rotateKey(app.app_id, 'sdk', false);
    expect(revoked).toEqual([sdkKey.key_id]);
    expect(issued.tier).toBe('standard');
    expect(await findApiKey(premium.key)).toMatchObject({ status: 'revoked' });

    // The newest active key is premium, and its hash sorts after the older key's, so the listing
    // (in hash order) names the standard key first: the tier still comes from the newest.
    let newest = await issueKey(app.app_id, 'sdk', 'premium');
    while (sha256Hex(newest.key) < sha256Hex(issued.key)) {
      await revokeKey(newest.key);
      newest = await issueKey(app.app_id, 'sdk', 'premium');
    }
    const again = await rotateKey(app.app_id, 'sdk', false);
    expect(again.issued.tier).toBe('premium');
    expect(again.revoked.sort()).toEqual([issued.key_id, newest.key_id].sort());
  });

  it('user tokens: at most 99 active sdk keys carry the secret in one transaction; past that the change is refused', async () => {
    const { app } = await newApp();
    for (let i = 1; i < 99; i++) await issueKey(app.app_id, 'sdk');
    // One revoked key is not counted.
    await revokeKey((await issueKey(app.app_id, 'sdk')).key);
    await setUserTokenRequired(app.app_id, true);
    const carrying = Object.values(await secretsOnKeys(app.app_id)).filter((k) => k.kind === 'sdk' && k.secret);
    expect(carrying).toHaveLength(99);

    await issueKey(app.app_id, 'sdk');
    await expect(setUserTokenRequired(app.app_id, false)).rejects.toThrow(
      `app ${app.app_id} has 100 active sdk keys; revoke some first (at most 99)`,
    );
    expect((await getApp(app.app_id, true))?.require_user_token).toBe(true);
  });

  it('a second secret without replace is refused by name, and the message says which app', async () => {
    const { app } = await newApp();
    await issueUserTokenSecret(app.app_id, false);
    await expect(issueUserTokenSecret(app.app_id, false)).rejects.toMatchObject({
      name: 'UserTokenSecretExists',
      message: `app ${app.app_id} already has a user-token secret`,
    });
  });

  it('the restore policy is set on the app; an app that does not exist is refused, not created', async () => {
    const { app } = await newApp();
    await setRestorePolicy(app.app_id, 'transfer');
    expect(await getApp(app.app_id, true)).toMatchObject({ restore_policy: 'transfer' });
    await setRestorePolicy(app.app_id, 'block');
    expect(await getApp(app.app_id, true)).toMatchObject({ restore_policy: 'block' });
    await expect(setRestorePolicy('app_0000000000000002', 'transfer')).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(await getApp('app_0000000000000002', true)).toBeUndefined();
  });
});
