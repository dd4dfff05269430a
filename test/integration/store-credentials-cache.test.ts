/**
 * Store credentials as a deployed function reads them (STORE_SECRETS_PREFIX set, in Lambda): from
 * Secrets Manager (its reads signed to a local stand-in), each secret once per five minutes of a
 * warm function, read again at once after the operator changes it; outside Lambda (the CLI, a
 * local run), every time. Writes go through the SDK client, mocked: a secret that does not exist
 * yet is created, any other refusal is the operator's error. The clock is Date, faked.
 */
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-standin.js';

vi.hoisted(() => {
  process.env.STORE_SECRETS_PREFIX = 'subscription-backend/cache/';
});

type Settings = typeof import('../../lib/data/store-settings.js');
const SERVICE_ACCOUNT = {
  client_email: 'play@example.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n',
};

/** An App Store Server API key as settings hold it (never used to sign here). */
const SERVER_API = {
  issuer_id: 'i',
  key_id: 'k',
  private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----',
};

describe('store credentials from Secrets Manager: cached five minutes in Lambda, read again when changed', () => {
  let secrets: SecretsManagerStandIn;
  const writes = mockClient(SecretsManagerClient);

  beforeAll(async () => {
    secrets = await startSecretsManagerStandIn({ accessKeyId: 'local', secretAccessKey: 'local' }, 'us-east-1');
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    await secrets?.close();
  });
  beforeEach(() => {
    writes.reset();
    writes.on(PutSecretValueCommand).resolves({});
  });
  afterEach(() => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    process.env.STORE_SECRETS_PREFIX = 'subscription-backend/cache/';
    vi.useRealTimers();
  });

  /** lib/ loaded afresh (config reads the environment once), in or out of Lambda. */
  async function load(inLambda: boolean) {
    if (inLambda) process.env.AWS_LAMBDA_FUNCTION_NAME = 'store-credentials-cache';
    vi.resetModules();
    const settings: Settings = await import('../../lib/data/store-settings.js');
    const { createTestApp } = await import('../support/fixtures.js');
    const { appId } = await createTestApp();
    const name = `subscription-backend/cache/${appId}/google_play`;
    await settings.putStoreSettings(appId, 'google_play', {
      package_name: 'com.example.cache',
      service_account: SERVICE_ACCOUNT,
    });
    secrets.secrets.set(name, JSON.stringify({ service_account: SERVICE_ACCOUNT }));
    const reads = () => secrets.requests.filter((id) => id === name).length;
    const read = async () =>
      (await settings.getAppWithStoreSettings(appId, 'google_play', { withCredentials: true })).settings;
    return { settings, appId, name, reads, read };
  }

  it('in Lambda: one read per secret for five minutes, to the millisecond', async () => {
    const { reads, read } = await load(true);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-06-01T12:00:00.000Z') });
    expect((await read())?.service_account).toEqual(SERVICE_ACCOUNT);
    expect(reads()).toBe(1);
    vi.setSystemTime(Date.parse('2026-06-01T12:04:59.999Z'));
    expect((await read())?.service_account).toEqual(SERVICE_ACCOUNT);
    expect(reads()).toBe(1);
    vi.setSystemTime(Date.parse('2026-06-01T12:05:00.000Z'));
    expect((await read())?.service_account).toEqual(SERVICE_ACCOUNT);
    expect(reads()).toBe(2);
    // Kept another five minutes from that read.
    vi.setSystemTime(Date.parse('2026-06-01T12:09:59.999Z'));
    await read();
    expect(reads()).toBe(2);
  });

  it('in Lambda: credentials set again are read again at once', async () => {
    const { settings, appId, reads, read, name } = await load(true);
    await read();
    expect(reads()).toBe(1);
    const changed = { ...SERVICE_ACCOUNT, client_email: 'other@example.iam.gserviceaccount.com' };
    await settings.putStoreSettings(appId, 'google_play', {
      package_name: 'com.example.cache',
      service_account: changed,
    });
    secrets.secrets.set(name, JSON.stringify({ service_account: changed }));
    expect((await read())?.service_account).toEqual(changed);
    expect(reads()).toBe(2);
  });

  it('outside Lambda (the CLI, a local run): read every time', async () => {
    const { reads, read } = await load(false);
    await read();
    await read();
    expect(reads()).toBe(2);
  });

  it('without credentials asked, App Store settings come without their key and read no secret', async () => {
    const { settings } = await load(true);
    const { createTestApp } = await import('../support/fixtures.js');
    const { appId } = await createTestApp();
    await settings.putStoreSettings(appId, 'app_store', {
      bundle_id: 'com.example.cache',
      environment: 'Sandbox',
      server_api: SERVER_API,
    });
    const name = `subscription-backend/cache/${appId}/app_store`;
    secrets.secrets.set(name, JSON.stringify({ server_api: SERVER_API }));
    const before = secrets.requests.length;
    const read = (withCredentials: boolean) =>
      settings.getAppWithStoreSettings(appId, 'app_store', { withCredentials });
    expect((await read(false)).settings).toEqual({ bundle_id: 'com.example.cache', environment: 'Sandbox' });
    expect(secrets.requests.length).toBe(before);
    expect((await read(true)).settings).toEqual({
      bundle_id: 'com.example.cache',
      environment: 'Sandbox',
      server_api: SERVER_API,
    });
    expect(secrets.requests.slice(before)).toEqual([name]);
  });

  it('locally (no Secrets Manager) the key is in the item, and still left out when credentials are not asked', async () => {
    delete process.env.STORE_SECRETS_PREFIX;
    vi.resetModules();
    const settings: Settings = await import('../../lib/data/store-settings.js');
    const { createTestApp } = await import('../support/fixtures.js');
    const { appId } = await createTestApp();
    const stored = { bundle_id: 'com.example.cache', environment: 'Sandbox', server_api: SERVER_API } as const;
    expect((await settings.putStoreSettings(appId, 'app_store', stored)).location).not.toContain('Secrets Manager');
    const read = (withCredentials: boolean) =>
      settings.getAppWithStoreSettings(appId, 'app_store', { withCredentials });
    expect((await read(false)).settings).toEqual({ bundle_id: 'com.example.cache', environment: 'Sandbox' });
    expect((await read(true)).settings).toEqual(stored);
    expect(writes.commandCalls(PutSecretValueCommand)).toEqual([]);
  });

  it('a secret not created yet is created; any other refusal is the error, and nothing is created', async () => {
    const { settings, appId } = await load(false);
    writes.reset();
    writes
      .on(PutSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: 'no such secret', $metadata: {} }))
      .on(CreateSecretCommand)
      .resolves({});
    await settings.putStoreSettings(appId, 'google_play', {
      package_name: 'com.example.cache',
      service_account: SERVICE_ACCOUNT,
    });
    expect(writes.commandCalls(CreateSecretCommand).map((call) => call.args[0].input)).toEqual([
      {
        Name: `subscription-backend/cache/${appId}/google_play`,
        SecretString: JSON.stringify({ service_account: SERVICE_ACCOUNT }),
        Description: `google_play credentials of ${appId}`,
      },
    ]);

    writes.reset();
    const denied = Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' });
    writes.on(PutSecretValueCommand).rejects(denied).on(CreateSecretCommand).resolves({});
    await expect(
      settings.putStoreSettings(appId, 'google_play', {
        package_name: 'com.example.cache',
        service_account: SERVICE_ACCOUNT,
      }),
    ).rejects.toThrow('not allowed');
    expect(writes.commandCalls(CreateSecretCommand)).toEqual([]);
  });
});
