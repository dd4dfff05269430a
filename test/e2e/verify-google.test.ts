import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import type { LocalGateway } from '../../local/gateway.js';
import type { TestApp } from '../support/fixtures.js';
import { type StandIn, startGooglePlayStandIn, subscriptionPurchase } from '../support/google-play-standin.js';
import { mobileHeaders } from '../support/mobile.js';

const PACKAGE = 'com.example.subs';

// test/support/contract.ts imports the gateway, hence lib/core/config.ts: imported once the store URLs are set.
let contractFetch: typeof import('../support/contract.js').contractFetch;

describe('POST /v1/subscriptions/verify for Google Play (stand-in of Google over HTTP)', () => {
  let standIn: StandIn;
  let app: TestApp;
  let gateway: LocalGateway;
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn(PACKAGE);
    // Store URLs are configuration read once at start-up: lib/ is imported after they point at the stand-in.
    process.env.GOOGLE_OAUTH_TOKEN_URL = standIn.tokenUrl;
    process.env.GOOGLE_PLAY_API_BASE_URL = standIn.url;
    app = await (await import('../support/fixtures.js')).createTestApp();
    await (await import('../../lib/data/store-settings.js')).putStoreSettings(app.appId, 'google_play', {
      package_name: PACKAGE,
      service_account: standIn.serviceAccount,
    });
    ({ contractFetch } = await import('../support/contract.js'));
    gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
    await standIn?.close();
  });
  const request = async (
    method: string,
    path: string,
    options: { bearer?: string; headers?: Record<string, string>; body?: unknown },
  ) => {
    const response = await contractFetch(`${gateway.url}${path}`, {
      method,
      headers: {
        ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
        ...options.headers,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const verify = (body: Record<string, unknown>) =>
    request('POST', `${SUBSCRIPTIONS_BASE}/verify`, { bearer: app.secretKey, body: { platform: 'android', ...body } });

  it('verifies a purchase token, creates the subscription, and acknowledges the purchase', async () => {
    standIn.purchases.set('e2e-token-00000001', subscriptionPurchase('premium_monthly', 30 * 86_400_000));
    const res = await verify({ receipt_data: 'e2e-token-00000001', user_id: 'android-user' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      verification_status: 'valid',
      product_id: 'premium_monthly',
      original_transaction_id: 'e2e-token-00000001',
    });
    expect(standIn.acknowledged).toContain('e2e-token-00000001');
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${res.body.data.subscription_id}`, {
      bearer: app.secretKey,
    });
    expect(detail.body.data).toMatchObject({
      status: 'active',
      platform: 'android',
      payment_info: { payment_method: 'google_play' },
    });
  });

  it('a signed App Store transaction sent as an Android purchase is INVALID_RECEIPT without asking Google', async () => {
    const apple = readFileSync(
      new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
      'utf8',
    ).trim();
    for (const receipt_data of [apple, Buffer.from(apple).toString('base64')]) {
      const res = await verify({ receipt_data, user_id: 'android-user-2' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'INVALID_RECEIPT',
        message: expect.stringContaining('not a Google Play purchase'),
      });
    }
  });

  it('the same token for another user is RECEIPT_ALREADY_USED; Google being down is VERIFICATION_FAILED, retryable', async () => {
    standIn.purchases.set('e2e-token-00000002', subscriptionPurchase('premium_monthly', 30 * 86_400_000));
    await verify({ receipt_data: 'e2e-token-00000002', user_id: 'first' });
    expect((await verify({ receipt_data: 'e2e-token-00000002', user_id: 'second' })).body.error.code).toBe(
      'RECEIPT_ALREADY_USED',
    );
    standIn.failNext('e2e-token-00000002', 503);
    const down = await verify({ receipt_data: 'e2e-token-00000002', user_id: 'first' });
    expect(down.status).toBe(400);
    expect(down.body.error).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
  });

  it('a purchase made for an account (obfuscatedExternalAccountId) is refused to another user, even restoring under the transfer policy', async () => {
    const { setRestorePolicy } = await import('../../lib/data/apps.js');
    await setRestorePolicy(app.appId, 'transfer');
    standIn.purchases.set(
      'e2e-token-00000003',
      subscriptionPurchase('premium_monthly', 30 * 86_400_000, {
        externalAccountIdentifiers: { obfuscatedExternalAccountId: appAccountTokenFor(app.appId, 'alice') },
      }),
    );
    const stolen = await verify({ receipt_data: 'e2e-token-00000003', user_id: 'mallory' });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error.code).toBe('RECEIPT_ALREADY_USED');
    const own = await verify({ receipt_data: 'e2e-token-00000003', user_id: 'alice' });
    expect(own.status).toBe(200);
    const before = (
      await request('GET', `${SUBSCRIPTIONS_BASE}/${own.body.data.subscription_id}`, { bearer: app.secretKey })
    ).body.data;
    const restored = await request('POST', '/receipt/verify/recover', {
      headers: mobileHeaders(app, 'mallory', { 'x-platform': 'Android' }),
      body: { receipt: 'e2e-token-00000003' },
    });
    expect(restored.body).toMatchObject({ status: 'error', code: 'RECEIPT_ALREADY_USED' });
    expect(
      (await request('GET', `${SUBSCRIPTIONS_BASE}/${own.body.data.subscription_id}`, { bearer: app.secretKey })).body
        .data,
    ).toEqual(before);
  });
});
