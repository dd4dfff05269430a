import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getApp } from '../../lib/data/apps.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { signUserToken } from '../../lib/domain/user-token.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, PREMIUM_MONTHLY } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { admin, type RunResult } from '../support/processes.js';

const { request } = useGateway();

const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;

describe('operator CLI (npm run --silent admin -- ...)', () => {
  it('apps create --json prints exactly one JSON document with working keys', async () => {
    const result = await admin('apps', 'create', '--name', 'cli demo', '--json');
    expect(result.code).toBe(0);
    const created = json(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['app_id', 'sdk_key', 'secret_key']);
    expect(created.secret_key).toMatch(/^sk_/);
    expect(created.sdk_key).toMatch(/^pk_/);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: created.secret_key })).status).toBe(200);
  });

  it('products put stores a catalogue file that the API then lists; keys rotate and revoke take effect', async () => {
    const { app_id, secret_key } = json((await admin('apps', 'create', '--name', 'catalogue', '--json')).stdout);
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-'));
    const file = join(dir, 'products.json');
    await writeFile(file, JSON.stringify([PREMIUM_MONTHLY]));

    const put = await admin('products', 'put', '--app', app_id, '--file', file, '--json');
    expect(put.code).toBe(0);
    expect(json(put.stdout)).toEqual({ app_id, products: [PREMIUM_MONTHLY.id] });
    const listed = await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: secret_key });
    expect(listed.body.data).toEqual([PREMIUM_MONTHLY]);

    const rotated = json((await admin('keys', 'rotate', '--app', app_id, '--kind', 'secret', '--json')).stdout);
    expect(rotated.revoked_key_ids).toHaveLength(1);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: secret_key })).status).toBe(401);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: rotated.key })).status).toBe(200);

    const revoked = await admin('keys', 'revoke', '--key', rotated.key, '--json');
    expect(json(revoked.stdout)).toMatchObject({ app_id, kind: 'secret', status: 'revoked' });
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: rotated.key })).status).toBe(401);
  });

  it('a catalogue file with errors is refused with the offending fields, as one JSON error document', async () => {
    const { app_id } = json((await admin('apps', 'create', '--name', 'bad catalogue', '--json')).stdout);
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-'));
    const file = join(dir, 'products.json');
    await writeFile(
      file,
      JSON.stringify([
        { ...PREMIUM_MONTHLY, price: 'free' },
        { ...PREMIUM_MONTHLY, billing_period: 'daily' },
      ]),
    );
    const result = await admin('products', 'put', '--app', app_id, '--file', file, '--json');
    expect(result.code).not.toBe(0);
    const error = json(result.stdout).error;
    expect(error.code).toBe('INVALID_FILE');
    expect(error.message).toContain('[0.price]');
    expect(error.message).toContain('[1.billing_period]');
  });

  it('entitlements put lists every problem of the file, unknown products included, and writes nothing', async () => {
    const app = await createTestApp();
    const dir = await mkdtemp(join(tmpdir(), 'entitlements-'));
    const put = async (content: unknown) => {
      const file = join(dir, `${Math.random()}.json`);
      await writeFile(file, JSON.stringify(content));
      return admin('entitlements', 'put', '--app', app.appId, '--file', file, '--json');
    };
    const customer = (user: string) =>
      request('GET', `${CUSTOMERS_BASE}/${user}`, { bearer: app.secretKey }).then((res) => res.body.data);

    const bad = await put([
      { id: 'Pro!', name: 'Pro', products: ['premium_monthly', 'premium_weekly'] },
      { id: 'sync', name: '', products: ['no_such_plan'] },
      { id: 'sync', name: 'Sync', products: [] },
    ]);
    expect(bad.code).not.toBe(0);
    const error = json(bad.stdout).error;
    expect(error.code).toBe('INVALID_FILE');
    for (const problem of [
      '[0.id]',
      '[0.products.1] product premium_weekly is not in the catalogue',
      '[1.name]',
      '[1.products.0] product no_such_plan is not in the catalogue',
      '[2.id] duplicate entitlement id sync',
      '[2.products]',
    ])
      expect(error.message).toContain(problem);
    expect(error.message).not.toContain('premium_monthly');

    // Nothing was written: the app has no entitlements yet.
    await request('POST', '/sessions/report', {
      headers: mobileHeaders(app, 'looker'),
      body: { sessionId: 's', startTime: Date.now() - 1000, duration: 1 },
    });
    expect((await customer('looker')).entitlements).toEqual({});

    const good = await put([{ id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] }]);
    expect(good.code, good.stderr).toBe(0);
    expect(json(good.stdout)).toEqual({ app_id: app.appId, entitlements: ['pro'] });
  });

  it('receipts mint --for-user mints a purchase made for that user (its app account token): only that user can verify it', async () => {
    const app = await createTestApp();
    const minted = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--for-user',
      'alice',
      '--json',
    );
    expect(minted.code).toBe(0);
    const { receipt_data, app_account_token } = json(minted.stdout);
    expect(app_account_token).toBe(appAccountTokenFor(app.appId, 'alice'));
    const verify = (user_id: string, receipt: string) =>
      request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
        bearer: app.secretKey,
        body: { platform: 'ios', receipt_data: receipt, user_id },
      });
    expect((await verify('bob', receipt_data)).body.error.code).toBe('RECEIPT_ALREADY_USED');
    expect((await verify('alice', receipt_data)).status).toBe(200);

    // --app-account-token takes the UUID as given (here Swift's upper case); it must be a UUID, and not with --for-user.
    const given = appAccountTokenFor(app.appId, 'carol').toUpperCase();
    const explicit = json(
      (
        await admin(
          'receipts',
          'mint',
          '--app',
          app.appId,
          '--platform',
          'ios',
          '--product',
          'premium_monthly',
          '--app-account-token',
          given,
          '--json',
        )
      ).stdout,
    );
    expect(explicit.app_account_token).toBe(given);
    expect((await verify('carol', explicit.receipt_data)).status).toBe(200);
    const notUuid = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--app-account-token',
      'carol',
      '--json',
    );
    expect(notUuid.code).toBe(2);
    expect(json(notUuid.stdout).error.message).toContain('must be a UUID');
    const both = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--for-user',
      'a',
      '--app-account-token',
      given,
      '--json',
    );
    expect(json(both.stdout).error.message).toContain('not both');
    expect(json((await admin('--help', '--json')).stdout).commands).toContainEqual(
      expect.stringContaining('[--for-user USER | --app-account-token UUID]'),
    );
  });

  it('usage errors exit non-zero with a JSON error and name the problem', async () => {
    const missing = await admin('apps', 'create', '--json');
    expect(missing.code).toBe(2);
    expect(json(missing.stdout).error.message).toContain('--name is required');
    const unknownApp = await admin('keys', 'rotate', '--app', 'app_0000000000000000', '--kind', 'sdk', '--json');
    expect(json(unknownApp.stdout).error.message).toContain('does not exist');
    const unknownCommand = await admin('apps', 'explode', '--json');
    expect(json(unknownCommand.stdout).error.code).toBe('USAGE');
  });

  it('without --json it prints text for people and shows the keys once', async () => {
    const result = await admin('apps', 'create', '--name', 'human');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/secret_key\s+sk_/);
    expect(result.stdout).toContain('shown only now');
  });

  it('apps update --require-user-token and apps user-token-secret turn signed user tokens on, rotate their secret, and off', async () => {
    const { app_id, sdk_key, secret_key } = json(
      (await admin('apps', 'create', '--name', 'user tokens', '--json')).stdout,
    );
    const app = { appId: app_id, sdkKey: sdk_key, secretKey: secret_key };
    const setProperties = (token?: string) =>
      request('POST', '/users/custom_properties/set', {
        headers: mobileHeaders(app, 'u-1', { 'x-user-token': token }),
        body: { properties: { plan: 'gold' } },
      });
    const tokenOf = (secret: string) => signUserToken(secret, app_id, 'u-1', Math.floor(Date.now() / 1000) + 3600);
    expect((await setProperties()).status).toBe(200);

    const on = await admin('apps', 'update', '--app', app_id, '--require-user-token', 'on', '--json');
    expect(on.code).toBe(0);
    const turnedOn = json(on.stdout);
    expect(turnedOn).toEqual({
      app_id,
      require_user_token: true,
      user_token_secret: expect.stringMatching(/^ust_[A-Za-z0-9_-]{43}$/),
    });
    expect((await setProperties()).status).toBe(401);
    expect((await setProperties(tokenOf(turnedOn.user_token_secret))).status).toBe(200);

    // The secret is shown once: asking again without --rotate is refused and changes nothing.
    const again = await admin('apps', 'user-token-secret', '--app', app_id, '--json');
    expect(again.code).toBe(1);
    expect(json(again.stdout).error).toEqual({ code: 'SECRET_EXISTS', message: expect.stringContaining('--rotate') });
    expect((await getApp(app_id))?.user_token_secret).toBe(turnedOn.user_token_secret);

    const rotated = await admin('apps', 'user-token-secret', '--app', app_id, '--rotate', '--json');
    expect(rotated.code).toBe(0);
    const fresh = json(rotated.stdout);
    expect(fresh).toEqual({ app_id, secret: expect.stringMatching(/^ust_/), require_user_token: true });
    expect((await setProperties(tokenOf(turnedOn.user_token_secret))).body.code).toBe('INVALID_USER_TOKEN');
    expect((await setProperties(tokenOf(fresh.secret))).status).toBe(200);

    const off = await admin(
      'apps',
      'update',
      '--app',
      app_id,
      '--require-user-token',
      'off',
      '--restore-policy',
      'transfer',
      '--json',
    );
    expect(json(off.stdout)).toEqual({ app_id, restore_policy: 'transfer', require_user_token: false });
    expect((await setProperties()).status).toBe(200);
  });

  it('apps update names what is wrong with its options; without --json the secret is shown once, for people', async () => {
    const { app_id } = json((await admin('apps', 'create', '--name', 'user token usage', '--json')).stdout);
    const nothing = await admin('apps', 'update', '--app', app_id, '--json');
    expect([nothing.code, json(nothing.stdout).error.message]).toEqual([
      2,
      expect.stringContaining('--require-user-token'),
    ]);
    const badValue = await admin('apps', 'update', '--app', app_id, '--require-user-token', 'yes', '--json');
    expect([badValue.code, json(badValue.stdout).error.message]).toEqual([2, '--require-user-token must be on or off']);
    const unknownApp = await admin('apps', 'user-token-secret', '--app', 'app_0000000000000000', '--json');
    expect([unknownApp.code, json(unknownApp.stdout).error.code]).toEqual([1, 'NOT_FOUND']);

    const issued = await admin('apps', 'user-token-secret', '--app', app_id);
    expect(issued.code).toBe(0);
    expect(issued.stdout).toMatch(/ust_[A-Za-z0-9_-]{43}/);
    expect(issued.stdout).toContain('shown only now');
    expect(issued.stdout).toContain('--require-user-token on');
    // On with a secret already issued: nothing new to show.
    const on = await admin('apps', 'update', '--app', app_id, '--require-user-token', 'on');
    expect(on.code).toBe(0);
    expect(on.stdout).not.toContain('ust_');
  });
  // About twenty processes of 2-3 s each.
  it('stores show and apps list say what is set for each store and never print a private key; Production needs --app-apple-id', {
    timeout: 120_000,
  }, async () => {
    const { app_id } = json(
      (await admin('apps', 'create', '--name', 'store settings', '--test-store', '--json')).stdout,
    );
    const dir = await mkdtemp(join(tmpdir(), 'store-settings-'));
    const p8 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const keyFile = join(dir, 'AuthKey_ABC123DEFG.p8');
    const accountFile = join(dir, 'service-account.json');
    await writeFile(keyFile, p8);
    const account = {
      type: 'service_account',
      client_email: 'verifier@demo.iam.gserviceaccount.com',
      private_key: rsa,
    };
    await writeFile(accountFile, JSON.stringify(account));
    /** The lines of key material of both private keys: none may appear in any output. */
    const keyLines = [p8, rsa].flatMap((pem) =>
      String(pem)
        .split('\n')
        .filter((line) => line && !line.startsWith('-----')),
    );
    const printed: RunResult[] = [];
    const run = async (...args: string[]) => {
      const result = await admin(...args);
      printed.push(result);
      return result;
    };

    const before = await run('stores', 'show', '--app', app_id);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('App Store: not set');
    expect(before.stdout).toContain('Google Play: not set');
    const listedBefore = json((await run('apps', 'list', '--json')).stdout).apps.find((a: any) => a.app_id === app_id);
    expect(listedBefore).toMatchObject({ app_store_configured: false, google_play_configured: false });

    const apple = [
      'stores',
      'apple',
      'set',
      '--app',
      app_id,
      '--bundle-id',
      'com.example.demo',
      '--environment',
      'Production',
    ];
    const withKey = [
      '--issuer-id',
      '57246542-96fe-1a63-e053-0824d011072a',
      '--key-id',
      'ABC123DEFG',
      '--key-file',
      keyFile,
    ];
    // Listed as optional, but Production refuses without it: the help text says so.
    const help = await run('stores', 'apple', 'set', '--help');
    expect(help.stdout).toContain('[--app-apple-id N (required for Production)]');
    const refused = await run(...apple, ...withKey, '--json');
    expect(refused.code).toBe(2);
    expect(json(refused.stdout).error.message).toContain('app_apple_id Production needs the app Apple id');
    expect(json((await run('stores', 'show', '--app', app_id, '--json')).stdout).app_store).toBeNull();
    expect((await run(...apple, '--app-apple-id', '1234567890', ...withKey, '--json')).code).toBe(0);
    const google = ['stores', 'google', 'set', '--app', app_id, '--package-name', 'com.example.demo'];
    const push = [
      '--push-audience',
      'https://api.example.com/notifications/google-play/x',
      '--push-service-account',
      'push@demo.iam.gserviceaccount.com',
    ];
    expect((await run(...google, '--service-account-file', accountFile, ...push, '--json')).code).toBe(0);

    const shown = json((await run('stores', 'show', '--app', app_id, '--json')).stdout);
    expect(shown).toMatchObject({
      app_store: {
        bundle_id: 'com.example.demo',
        environment: 'Production',
        accepts_environments: ['Production', 'Sandbox'],
        app_apple_id: 1234567890,
        server_api: { issuer_id: '57246542-96fe-1a63-e053-0824d011072a', key_id: 'ABC123DEFG' },
      },
      google_play: {
        package_name: 'com.example.demo',
        client_email: 'verifier@demo.iam.gserviceaccount.com',
        push_audience: 'https://api.example.com/notifications/google-play/x',
        push_service_account: 'push@demo.iam.gserviceaccount.com',
      },
      test_store: { enabled: true },
    });
    const text = (await run('stores', 'show', '--app', app_id)).stdout;
    expect(text).toContain(
      'App Store: com.example.demo (Production; takes Production and Sandbox transactions), app Apple id 1234567890.',
    );
    expect(text).toContain('App Store Server API key ABC123DEFG of issuer 57246542-96fe-1a63-e053-0824d011072a.');
    expect(text).toContain('Google Play: com.example.demo as verifier@demo.iam.gserviceaccount.com.');
    expect(text).toContain(`Test store: on, public key SHA-256 ${shown.test_store.public_key_sha256}`);

    const listed = json((await run('apps', 'list', '--json')).stdout).apps.find((a: any) => a.app_id === app_id);
    expect(listed).toMatchObject({ app_store_configured: true, google_play_configured: true });
    const line = (await run('apps', 'list')).stdout.split('\n').find((l) => l.startsWith(app_id));
    expect(line).toMatch(/ {2}stores app_store,google_play$/);

    for (const result of printed)
      for (const keyLine of keyLines) expect(result.stdout + result.stderr).not.toContain(keyLine);
    expect(printed.map((result) => result.stdout).join('')).not.toContain('PRIVATE KEY');
  });
});
