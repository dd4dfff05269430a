import {
  CreateSecretCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // As in AWS: store credentials live in Secrets Manager. There is no local engine: the CLI's
  // writes (SDK client) are mocked, the functions' signed reads go to a stand-in over HTTP.
  process.env.STORE_SECRETS_PREFIX = 'subscription-backend/test/';
});

import { config } from '../../lib/core/config.js';
import { type AppRecord, createApp, getApp, setTestStore } from '../../lib/data/apps.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import {
  getAppWithGooglePlayPushSettings,
  getAppWithStoreSettings,
  keepTestStorePrivateKey,
  publicKeyOfKeptTestStoreKey,
  putStoreSettings,
  testStorePrivateKey,
} from '../../lib/data/store-settings.js';
import { mintTestReceipt, testStoreVerifier } from '../../lib/stores/test-store.js';

const settingsOf = async (appId: string) =>
  (await getAppWithStoreSettings(appId, 'app_store', { withCredentials: true })).settings;

import { createTestApp } from '../support/fixtures.js';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-standin.js';
import { waitUntil } from '../support/webhook-receiver.js';

const secrets = mockClient(SecretsManagerClient);
const notFound = () => new ResourceNotFoundException({ message: 'not found', $metadata: {} });
const SERVER_API = {
  issuer_id: 'issuer',
  key_id: 'KEY123',
  private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n',
};
const storedItem = async (appId: string, store: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.storeSettings(appId, store) }))).Item;

describe('store settings in AWS: identifiers in the table, credentials in Secrets Manager', () => {
  let standIn: SecretsManagerStandIn;
  beforeAll(async () => {
    // The DynamoDB Local credentials of the test run: the functions sign with their client's.
    standIn = await startSecretsManagerStandIn({ accessKeyId: 'local', secretAccessKey: 'local' }, 'us-east-1');
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = standIn.url;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    await standIn?.close();
  });
  beforeEach(() => secrets.reset());

  it('keeps the credentials in one secret per app and store under the prefix, updated in place, and the rest in the table', async () => {
    const { appId } = await createTestApp();
    secrets.on(PutSecretValueCommand).rejectsOnce(notFound()).resolves({});
    secrets.on(CreateSecretCommand).resolves({});
    const name = `subscription-backend/test/${appId}/app_store`;
    const first = await putStoreSettings(appId, 'app_store', {
      bundle_id: 'com.example',
      environment: 'Sandbox',
      server_api: SERVER_API,
    });
    expect(first.location).toBe(`table ${tableName}, credentials in Secrets Manager secret ${name}`);
    const created = secrets.commandCalls(CreateSecretCommand)[0]!.args[0].input;
    expect(created.Name).toBe(name);
    expect(JSON.parse(created.SecretString!)).toEqual({ server_api: SERVER_API });
    expect(await storedItem(appId, 'app_store')).toMatchObject({
      settings: { bundle_id: 'com.example', environment: 'Sandbox' },
      credentials_secret: name,
    });
    expect(JSON.stringify(await storedItem(appId, 'app_store'))).not.toContain('PRIVATE KEY');

    await putStoreSettings(appId, 'app_store', {
      bundle_id: 'com.example',
      environment: 'Production',
      app_apple_id: 42,
      server_api: SERVER_API,
    });
    expect(secrets.commandCalls(CreateSecretCommand)).toHaveLength(1);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(2);
  });

  it("signs for the configured region: without one in the environment, us-east-1, the table client's default", async () => {
    const { appId } = await createTestApp();
    secrets.on(PutSecretValueCommand).resolves({});
    const environment = { ...process.env };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    try {
      // Evaluated anew: the region is configuration, read from the environment when lib/ loads.
      vi.resetModules();
      const settings = await import('../../lib/data/store-settings.js');
      await settings.putStoreSettings(appId, 'app_store', {
        bundle_id: 'com.example',
        environment: 'Sandbox',
        server_api: SERVER_API,
      });
      const client = secrets.send.getCall(0).thisValue as SecretsManagerClient;
      expect(await client.config.region()).toBe('us-east-1');
    } finally {
      process.env = environment;
    }
  });

  it("keeps Google Play's push audience and push account in the table with the package name, the service account in the secret", async () => {
    const { appId } = await createTestApp();
    secrets.on(PutSecretValueCommand).resolves({});
    const serviceAccount = {
      client_email: 'verifier@example.iam.gserviceaccount.com',
      private_key: SERVER_API.private_key,
    };
    await putStoreSettings(appId, 'google_play', {
      package_name: 'com.example.subs',
      service_account: serviceAccount,
      push_audience: 'https://api.example.com/notifications/google-play/app',
      push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
    });
    const name = `subscription-backend/test/${appId}/google_play`;
    const written = secrets.commandCalls(PutSecretValueCommand)[0]!.args[0].input;
    expect(JSON.parse(written.SecretString!)).toEqual({ service_account: serviceAccount });
    expect((await storedItem(appId, 'google_play'))?.settings).toEqual({
      package_name: 'com.example.subs',
      push_audience: 'https://api.example.com/notifications/google-play/app',
      push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
    });
    standIn.secrets.set(name, written.SecretString!);
    expect((await getAppWithStoreSettings(appId, 'google_play', { withCredentials: true })).settings).toEqual({
      package_name: 'com.example.subs',
      service_account: serviceAccount,
      push_audience: 'https://api.example.com/notifications/google-play/app',
      push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
    });
  });

  it('writes no secret for settings without credentials', async () => {
    const { appId } = await createTestApp();
    expect(
      (await putStoreSettings(appId, 'app_store', { bundle_id: 'com.example', environment: 'Sandbox' })).location,
    ).toBe(`table ${tableName}`);
    expect(secrets.calls()).toHaveLength(0);
    expect(await settingsOf(appId)).toEqual({ bundle_id: 'com.example', environment: 'Sandbox' });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('reads the app and its identifiers in one request without Secrets Manager, and the credentials only when asked', async () => {
    const { appId } = await createTestApp();
    secrets.on(PutSecretValueCommand).resolves({});
    await putStoreSettings(appId, 'app_store', {
      bundle_id: 'com.example',
      environment: 'Sandbox',
      server_api: SERVER_API,
    });
    const name = `subscription-backend/test/${appId}/app_store`;
    standIn.secrets.set(name, JSON.stringify({ server_api: SERVER_API }));
    const plain = await getAppWithStoreSettings(appId, 'app_store', { withCredentials: false });
    expect(plain.app?.app_id).toBe(appId);
    expect(plain.settings).toEqual({ bundle_id: 'com.example', environment: 'Sandbox' });
    expect(standIn.requests).not.toContain(name);
    expect((await getAppWithStoreSettings(appId, 'app_store', { withCredentials: true })).settings).toEqual({
      bundle_id: 'com.example',
      environment: 'Sandbox',
      server_api: SERVER_API,
    });
    expect(standIn.requests.filter((asked) => asked === name)).toHaveLength(1);
  });

  it('reads the items the caller adds in the same request, in their order, and only those', async () => {
    const { appId } = await createTestApp();
    secrets.on(PutSecretValueCommand).resolves({});
    await putStoreSettings(appId, 'app_store', { bundle_id: 'com.example', environment: 'Sandbox' });
    const { app, settings, alsoRead } = await getAppWithStoreSettings(appId, 'app_store', {
      withCredentials: false,
      alsoRead: [keys.product(appId, 'premium_monthly'), keys.product(appId, 'no_such_product')],
    });
    expect(app?.app_id).toBe(appId);
    expect(settings).toEqual({ bundle_id: 'com.example', environment: 'Sandbox' });
    expect(alsoRead).toHaveLength(2);
    expect(alsoRead[0]).toMatchObject({ id: 'premium_monthly', type: 'product' });
    expect(alsoRead[1]).toBeUndefined();
    expect(await storedItem(appId, 'app_store')).toMatchObject({ type: 'store_settings' });
  });

  it("a Google Play push reads the app's identifiers as stored: fields that are no text are absent, no app is no settings", async () => {
    const { appId } = await createTestApp();
    const storeItem = (id: string, settings: Record<string, unknown>) =>
      ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.storeSettings(id, 'google_play'), type: 'store_settings', settings },
        }),
      );
    await storeItem(appId, { push_audience: 42, push_service_account: 'rtdn-push@example.iam.gserviceaccount.com' });
    // Keys of a URL no other test stores: the table is shared.
    const jwksUrl = `https://keys.example/${appId}`;
    // With them, the items the caller asks for (the push's record, for the notification function).
    const { app, settings, alsoRead } = await getAppWithGooglePlayPushSettings(appId, jwksUrl, [
      keys.storeNotification(appId, 'google_play', 'never-delivered'),
      keys.app(appId),
    ]);
    expect(app?.app_id).toBe(appId);
    expect(alsoRead).toEqual([undefined, app]);
    expect(settings).toEqual({
      package_name: '',
      push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
      withCredentials: expect.any(Function),
    });
    await storeItem('app_deleted', { package_name: 'com.example.subs' });
    const deleted = keys.storeSettings('app_deleted', 'google_play');
    expect(await getAppWithGooglePlayPushSettings('app_deleted', jwksUrl, [deleted])).toEqual({
      app: undefined,
      settings: undefined,
      googleKeys: undefined,
      alsoRead: [expect.objectContaining({ ...deleted, type: 'store_settings' })],
    });
  });

  it('Google Play settings are never read without their credentials, which they cannot work without', async () => {
    const { appId } = await createTestApp();
    await expect(getAppWithStoreSettings(appId, 'google_play', { withCredentials: false })).rejects.toThrow(
      'google_play settings are read with their credentials',
    );
  });

  it('still reads settings stored whole in a secret by an earlier version; no settings at all means "not configured"', async () => {
    const { appId: earlier } = await createTestApp();
    const { appId: none } = await createTestApp();
    standIn.secrets.set(
      `subscription-backend/test/${earlier}/app_store`,
      JSON.stringify({ bundle_id: 'com.a', environment: 'Sandbox' }),
    );
    expect(await settingsOf(earlier)).toEqual({ bundle_id: 'com.a', environment: 'Sandbox' });
    expect((await getAppWithStoreSettings(earlier, 'app_store', { withCredentials: false })).settings).toEqual({
      bundle_id: 'com.a',
      environment: 'Sandbox',
    });
    expect(await settingsOf(none)).toBeUndefined();
    expect(standIn.requests).toContain(`subscription-backend/test/${none}/app_store`);
  });

  it('signs its reads as the SDK would (the stand-in checks the SigV4 signature) and reports a refusal', async () => {
    const { getSecretString, SecretsManagerError } = await import('../../lib/stores/secrets.js');
    standIn.secrets.set('signed-read', 'value');
    expect(await getSecretString('signed-read')).toBe('value');
    const wrongKeys = await startSecretsManagerStandIn({ accessKeyId: 'local', secretAccessKey: 'other' }, 'us-east-1');
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = wrongKeys.url;
    try {
      await expect(getSecretString('signed-read')).rejects.toBeInstanceOf(SecretsManagerError);
      await expect(getSecretString('signed-read')).rejects.toThrow(/400 InvalidSignatureException/);
    } finally {
      process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = standIn.url;
      await wrongKeys.close();
    }
  });

  it("keeps a test-store app's signing key in a secret of its own, never in the table item, and mints with it", async () => {
    secrets.on(PutSecretValueCommand).rejects(notFound());
    secrets.on(CreateSecretCommand).resolves({});
    const { app } = await createApp({
      name: 'test store in AWS',
      reportingCurrency: 'USD',
      testStore: true,
      keepTestStoreKey: keepTestStorePrivateKey,
    });
    const name = `subscription-backend/test/${app.app_id}/test_store`;
    const created = secrets.commandCalls(CreateSecretCommand)[0]!.args[0].input;
    expect(created.Name).toBe(name);
    expect(created.Description).toBe(`test-store signing key of ${app.app_id}`);
    expect(created.SecretString).toContain('BEGIN PRIVATE KEY');

    const item = (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.app(app.app_id) }))).Item!;
    expect(item).toMatchObject({
      test_store: true,
      test_store_private_key_secret: name,
      test_store_public_key: expect.stringContaining('PUBLIC KEY'),
    });
    expect(JSON.stringify(item)).not.toContain('PRIVATE KEY');

    // receipts mint reads the key from the secret; the receipt verifies with the public key in the item.
    standIn.secrets.set(name, created.SecretString!);
    const privateKeyPem = await testStorePrivateKey(item as AppRecord);
    expect(privateKeyPem).toBe(created.SecretString);
    const minted = mintTestReceipt({
      appId: app.app_id,
      privateKeyPem: privateKeyPem!,
      productId: 'p',
      platform: 'ios',
      price: 1,
      currency: 'USD',
      expiresInSeconds: 60,
      trial: false,
    });
    const verified = await testStoreVerifier(app.app_id, item.test_store_public_key as string).verify(
      minted.receipt_data,
    );
    expect(verified.transaction_id).toBe(minted.transaction_id);
  });

  it('the public key of a kept signing key whose secret is gone is refused, naming the secret', async () => {
    const name = `subscription-backend/test/app_gone/test_store`;
    await expect(publicKeyOfKeptTestStoreKey(name)).rejects.toThrow(`secret ${name} does not exist`);
  });

  it('turning the test store on later keeps the key in the secret too; two commands racing leave the secret and the public key a pair', async () => {
    const { app } = await createApp({
      name: 'test store later in AWS',
      reportingCurrency: 'USD',
      testStore: false,
      keepTestStoreKey: keepTestStorePrivateKey,
    });
    // The mocked writes land in the stand-in the reads go to, as they would in Secrets Manager. The
    // race is made the worst one: both commands generate a key pair, the first writes the app, and
    // the second's key is the one left in the secret.
    let firstPut!: () => void;
    const secondPutStarted = new Promise<void>((resolve) => (firstPut = resolve));
    let puts = 0;
    secrets.on(PutSecretValueCommand).callsFake(async (input: { SecretId: string; SecretString: string }) => {
      standIn.secrets.set(input.SecretId, input.SecretString);
      if (++puts === 1) {
        await secondPutStarted;
      } else {
        firstPut();
        await waitUntil(
          async () => (await getApp(app.app_id, true))?.test_store_public_key !== undefined,
          10_000,
          'the first key pair in the app',
        );
      }
      return {};
    });
    const keep = { keepTestStoreKey: keepTestStorePrivateKey, publicKeyOfKept: publicKeyOfKeptTestStoreKey };
    const results = await Promise.all([setTestStore(app.app_id, true, keep), setTestStore(app.app_id, true, keep)]);
    expect(results.filter((r) => r.generated_key)).toHaveLength(1);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(2);

    const item = (
      await ddb.send(new GetCommand({ TableName: tableName, Key: keys.app(app.app_id), ConsistentRead: true }))
    ).Item!;
    const name = `subscription-backend/test/${app.app_id}/test_store`;
    expect(item).toMatchObject({ test_store: true, test_store_private_key_secret: name });
    expect(JSON.stringify(item)).not.toContain('PRIVATE KEY');
    const privateKeyPem = await testStorePrivateKey(item as AppRecord);
    const minted = mintTestReceipt({
      appId: app.app_id,
      privateKeyPem: privateKeyPem!,
      productId: 'p',
      platform: 'ios',
      price: 1,
      currency: 'USD',
      expiresInSeconds: 60,
      trial: false,
    });
    const verified = await testStoreVerifier(app.app_id, item.test_store_public_key as string).verify(
      minted.receipt_data,
    );
    expect(verified.transaction_id).toBe(minted.transaction_id);
  });

  it('keeps the key in the table item where there is no Secrets Manager (no STORE_SECRETS_PREFIX)', async () => {
    const prefix = config.storeSecretsPrefix;
    (config as { storeSecretsPrefix: string | undefined }).storeSecretsPrefix = undefined;
    try {
      const { app } = await createApp({
        name: 'test store locally',
        reportingCurrency: 'USD',
        testStore: true,
        keepTestStoreKey: keepTestStorePrivateKey,
      });
      expect(app.test_store_private_key).toContain('BEGIN PRIVATE KEY');
      expect(app.test_store_private_key_secret).toBeUndefined();
      expect(await testStorePrivateKey(app)).toBe(app.test_store_private_key);
      expect(secrets.calls()).toHaveLength(0);
    } finally {
      (config as { storeSecretsPrefix: string | undefined }).storeSecretsPrefix = prefix;
    }
  });

  it('refuses settings that could not work (Production without the app Apple id)', async () => {
    await expect(
      putStoreSettings('app_0123456789abcdef', 'app_store', { bundle_id: 'com.example', environment: 'Production' }),
    ).rejects.toThrow(/app Apple id/);
    expect(secrets.calls()).toHaveLength(0);
  });
});
