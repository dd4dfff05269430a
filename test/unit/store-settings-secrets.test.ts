import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // As in AWS: store credentials live in Secrets Manager (mocked: there is no local engine).
  process.env.STORE_SECRETS_PREFIX = 'subscription-backend/test/';
});

import { getStoreSettings, putStoreSettings } from '../../lib/stores/settings.js';

const secrets = mockClient(SecretsManagerClient);
const notFound = () => new ResourceNotFoundException({ message: 'not found', $metadata: {} });

describe('store settings in Secrets Manager', () => {
  beforeEach(() => secrets.reset());

  it('creates one secret per app and store under the prefix, then updates it in place', async () => {
    secrets.on(PutSecretValueCommand).rejectsOnce(notFound()).resolves({});
    secrets.on(CreateSecretCommand).resolves({});
    const first = await putStoreSettings('app_0123456789abcdef', 'app_store', { bundle_id: 'com.example', environment: 'Sandbox' });
    expect(first.location).toBe('Secrets Manager secret subscription-backend/test/app_0123456789abcdef/app_store');
    const created = secrets.commandCalls(CreateSecretCommand)[0]!.args[0].input;
    expect(created.Name).toBe('subscription-backend/test/app_0123456789abcdef/app_store');
    expect(JSON.parse(created.SecretString!)).toEqual({ bundle_id: 'com.example', environment: 'Sandbox' });

    await putStoreSettings('app_0123456789abcdef', 'app_store', { bundle_id: 'com.example', environment: 'Production', app_apple_id: 42 });
    expect(secrets.commandCalls(CreateSecretCommand)).toHaveLength(1);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(2);
  });

  it('reads and validates the secret; a missing secret means "not configured"', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'subscription-backend/test/app_aaaaaaaaaaaaaaaa/app_store' }).resolves({ SecretString: JSON.stringify({ bundle_id: 'com.a', environment: 'Sandbox' }) });
    secrets.on(GetSecretValueCommand, { SecretId: 'subscription-backend/test/app_bbbbbbbbbbbbbbbb/app_store' }).rejects(notFound());
    expect(await getStoreSettings('app_aaaaaaaaaaaaaaaa', 'app_store')).toEqual({ bundle_id: 'com.a', environment: 'Sandbox' });
    expect(await getStoreSettings('app_bbbbbbbbbbbbbbbb', 'app_store')).toBeUndefined();
  });

  it('refuses settings that could not work (Production without the app Apple id)', async () => {
    await expect(putStoreSettings('app_0123456789abcdef', 'app_store', { bundle_id: 'com.example', environment: 'Production' })).rejects.toThrow(/app Apple id/);
    expect(secrets.calls()).toHaveLength(0);
  });
});
