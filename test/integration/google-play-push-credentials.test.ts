/**
 * A Google Play push reaches the app's service account (Secrets Manager, as in AWS) and Google only
 * once its OIDC token is Google's for this app: a forged or misdirected push costs one table read
 * and, at most, one fetch of Google's public keys.
 */
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppError } from '../../lib/core/errors.js';
import {
  PUSH_SERVICE_ACCOUNT,
  pushBody,
  type StandIn,
  startGooglePlayStandIn,
  subscriptionPurchaseV2,
} from '../support/google-play-standin.js';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-standin.js';

vi.hoisted(() => {
  // As in AWS: the service account lives in Secrets Manager (its writes mocked, its reads signed to a stand-in).
  process.env.STORE_SECRETS_PREFIX = 'subscription-backend/test/';
});

const PACKAGE = 'com.example.push';
const AUDIENCE = 'https://api.example.com/notifications/google-play/credentials';

describe('Google Play push: credentials and Google only after the token verifies', () => {
  let google: StandIn;
  let secrets: SecretsManagerStandIn;
  let receive: typeof import('../../lib/services/store-notifications.js').receiveGooglePlayNotification;
  let appId: string;
  let otherAppId: string;
  let secretName: string;
  let messages = 0;

  beforeAll(async () => {
    google = await startGooglePlayStandIn(PACKAGE);
    // The DynamoDB Local credentials of the test run: the functions sign with their client's.
    secrets = await startSecretsManagerStandIn({ accessKeyId: 'local', secretAccessKey: 'local' }, 'us-east-1');
    // Store URLs are configuration read once: lib/ is imported after they point at the stand-ins.
    process.env.GOOGLE_OAUTH_TOKEN_URL = google.tokenUrl;
    process.env.GOOGLE_PLAY_API_BASE_URL = google.url;
    process.env.GOOGLE_OIDC_JWKS_URL = google.jwksUrl;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
    mockClient(SecretsManagerClient).on(PutSecretValueCommand).resolves({});
    const { createTestApp } = await import('../support/fixtures.js');
    const { putStoreSettings } = await import('../../lib/data/store-settings.js');
    receive = (await import('../../lib/services/store-notifications.js')).receiveGooglePlayNotification;
    ({ appId } = await createTestApp());
    ({ appId: otherAppId } = await createTestApp());
    const { location } = await putStoreSettings(appId, 'google_play', {
      package_name: PACKAGE,
      service_account: google.serviceAccount,
      push_audience: AUDIENCE,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    });
    secretName = location.split('secret ').pop()!;
    expect(secretName).toBe(`subscription-backend/test/${appId}/google_play`);
    secrets.secrets.set(secretName, JSON.stringify({ service_account: google.serviceAccount }));
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    await google?.close();
    await secrets?.close();
  });

  const renewal = (token: string) => ({
    version: '1.0',
    packageName: PACKAGE,
    eventTimeMillis: String(Date.now()),
    subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: token },
  });
  const push = (to: string, notification: unknown, authorization: string | undefined) =>
    receive(to, pushBody(notification, `credentials-${(messages += 1)}`), authorization);
  const bearer = (options: Partial<Parameters<StandIn['pushToken']>[0]> = {}) =>
    `Bearer ${google.pushToken({ audience: AUDIENCE, ...options })}`;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: AppError) => error.code,
    );

  it('a push whose token is missing, forged, misdirected or for another app reads no secret and asks Google nothing', async () => {
    const token = 'credentials-token-0000000001';
    google.purchases.set(token, subscriptionPurchaseV2('premium_monthly'));
    const unpublished = google.newOidcKey({ published: false });
    const refused = [
      await refusal(push(appId, renewal(token), undefined)),
      await refusal(push(appId, renewal(token), bearer({ forgeSignature: true }))),
      await refusal(push(appId, renewal(token), bearer({ kid: unpublished }))),
      await refusal(push(appId, renewal(token), bearer({ audience: 'https://elsewhere.example.com/push' }))),
      await refusal(push(appId, renewal(token), bearer({ email: 'someone@example.com' }))),
      // No Google settings at all, and no app at all: nothing to read either.
      await refusal(push(otherAppId, renewal(token), bearer())),
      await refusal(push('app_doesnotexist000000000', renewal(token), bearer())),
    ];
    expect(refused).toEqual(Array(7).fill('INVALID_NOTIFICATION'));
    expect(secrets.requests).toEqual([]);
    expect(google.tokenRequests).toBe(0);
  });

  it('a genuine push reads the service account once, then asks Google; one that needs no purchase reads nothing', async () => {
    const token = 'credentials-token-0000000002';
    google.purchases.set(token, subscriptionPurchaseV2('premium_monthly'));
    // Nobody verified this token: Google's state is kept on the purchase.
    expect((await push(appId, renewal(token), bearer())).outcome).toBe('kept');
    expect(secrets.requests).toEqual([secretName]);
    expect(google.tokenRequests).toBe(1);
    const test = {
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      testNotification: { version: '1.0' },
    };
    expect(await push(appId, test, bearer())).toMatchObject({ type: 'TEST_NOTIFICATION', outcome: 'recorded' });
    expect(secrets.requests).toEqual([secretName]);
  });

  it('a redelivery of an applied push is a duplicate once its token verifies, without asking Google', async () => {
    const token = 'credentials-token-0000000003';
    google.purchases.set(token, subscriptionPurchaseV2('premium_monthly'));
    const body = pushBody(renewal(token), 'credentials-redelivered');
    const first = await receive(appId, body, bearer());
    expect(first).toEqual({
      notification_id: 'credentials-redelivered',
      type: 'SUBSCRIPTION_RENEWED',
      outcome: 'kept',
    });
    // Google would now refuse the token: a redelivery that asked it would be refused too.
    google.purchases.delete(token);
    expect(await receive(appId, body, bearer())).toEqual({ ...first, outcome: 'duplicate' });
    // The token is checked first all the same.
    expect(await refusal(receive(appId, body, bearer({ forgeSignature: true })))).toBe('INVALID_NOTIFICATION');
    expect(await refusal(receive(appId, body, undefined))).toBe('INVALID_NOTIFICATION');
    // Another message about the same purchase is no redelivery: Google is asked, and refuses it.
    expect(await refusal(receive(appId, pushBody(renewal(token), 'credentials-another'), bearer()))).toBe(
      'INVALID_NOTIFICATION',
    );
  });
});
