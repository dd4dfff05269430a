import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { createTestApp, PREMIUM_MONTHLY } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';

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
    await writeFile(file, JSON.stringify([{ ...PREMIUM_MONTHLY, price: 'free' }, { ...PREMIUM_MONTHLY, billing_period: 'daily' }]));
    const result = await admin('products', 'put', '--app', app_id, '--file', file, '--json');
    expect(result.code).not.toBe(0);
    const error = json(result.stdout).error;
    expect(error.code).toBe('INVALID_FILE');
    expect(error.message).toContain('[0.price]');
    expect(error.message).toContain('[1.billing_period]');
  });

  it('receipts mint --for-user mints a purchase made for that user (its app account token): only that user can verify it', async () => {
    const app = await createTestApp();
    const minted = await admin('receipts', 'mint', '--app', app.appId, '--platform', 'ios', '--product', 'premium_monthly', '--for-user', 'alice', '--json');
    expect(minted.code).toBe(0);
    const { receipt_data, app_account_token } = json(minted.stdout);
    expect(app_account_token).toBe(appAccountTokenFor(app.appId, 'alice'));
    const verify = (user_id: string, receipt: string) => request('POST', `${SUBSCRIPTIONS_BASE}/verify`, { bearer: app.secretKey, body: { platform: 'ios', receipt_data: receipt, user_id } });
    expect((await verify('bob', receipt_data)).body.error.code).toBe('RECEIPT_ALREADY_USED');
    expect((await verify('alice', receipt_data)).status).toBe(200);

    // --app-account-token takes the UUID as given (here Swift's upper case); it must be a UUID, and not with --for-user.
    const given = appAccountTokenFor(app.appId, 'carol').toUpperCase();
    const explicit = json((await admin('receipts', 'mint', '--app', app.appId, '--platform', 'ios', '--product', 'premium_monthly', '--app-account-token', given, '--json')).stdout);
    expect(explicit.app_account_token).toBe(given);
    expect((await verify('carol', explicit.receipt_data)).status).toBe(200);
    const notUuid = await admin('receipts', 'mint', '--app', app.appId, '--platform', 'ios', '--product', 'premium_monthly', '--app-account-token', 'carol', '--json');
    expect(notUuid.code).toBe(2);
    expect(json(notUuid.stdout).error.message).toContain('must be a UUID');
    const both = await admin('receipts', 'mint', '--app', app.appId, '--platform', 'ios', '--product', 'premium_monthly', '--for-user', 'a', '--app-account-token', given, '--json');
    expect(json(both.stdout).error.message).toContain('not both');
    expect(json((await admin('--help', '--json')).stdout).commands).toContainEqual(expect.stringContaining('[--for-user USER | --app-account-token UUID]'));
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
});
