/**
 * GET /v1/app: the app a secret key belongs to, as the console's header and webhooks page show it.
 * Answers are checked against docs/openapi.json by the gateway helper (test/support/contract.ts).
 */
import { describe, expect, it } from 'vitest';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { countEndpointTimeout, disableWebhook, setEndpointPause, setWebhook } from '../../lib/data/webhooks.js';
import { APP_PATH } from '../../lib/routes.js';
import { createTestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';

const { request } = useGateway();

describe('GET /v1/app', () => {
  it("answers the key's app: its name, currency, test store, stores and webhook endpoint, never a secret", async () => {
    const app = await createTestApp();
    const bare = await request('GET', APP_PATH, { bearer: app.secretKey });
    expect(bare.status).toBe(200);
    expect(bare.body.data).toEqual({
      app_id: app.appId,
      name: 'test app',
      reporting_currency: 'USD',
      test_store: true,
      stores: { app_store: false, google_play: false },
      webhook: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    await putStoreSettings(app.appId, 'app_store', {
      bundle_id: 'com.example.overview',
      environment: 'Sandbox',
    });
    const { secret } = await setWebhook(app.appId, 'https://receiver.example.com/hooks', ['subscription.renewed']);
    const set = await request('GET', APP_PATH, { bearer: app.secretKey });
    expect(set.body.data.stores).toEqual({ app_store: true, google_play: false });
    expect(set.body.data.webhook).toEqual({
      url: 'https://receiver.example.com/hooks',
      enabled: true,
      disabled_reason: null,
      events: ['subscription.renewed'],
      paused_until: null,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // Nothing secret: not the signing secret, nor the test store's keys, nor the key itself.
    for (const secretValue of [secret, app.secretKey, app.sdkKey, 'PRIVATE KEY', 'whsec_'])
      expect(JSON.stringify(set.body)).not.toContain(secretValue);
  });

  it('says when the endpoint is disabled or paused', async () => {
    const app = await createTestApp([]);
    await setWebhook(app.appId, 'https://receiver.example.com/slow');
    // Its attempts timed out in a row, and the deliverer paused it (lib/domain/webhook-scheduling.ts).
    expect(await countEndpointTimeout(app.appId, 'https://receiver.example.com/slow')).toBe(1);
    const until = new Date(Date.now() + 600_000).toISOString();
    await setEndpointPause(app.appId, 'https://receiver.example.com/slow', until);
    const paused = await request('GET', APP_PATH, { bearer: app.secretKey });
    expect(paused.body.data.webhook).toMatchObject({ enabled: true, paused_until: until });
    // A pause that has ended shows as none.
    await setEndpointPause(app.appId, 'https://receiver.example.com/slow', null);
    await setEndpointPause(app.appId, 'https://receiver.example.com/slow', new Date(Date.now() - 1000).toISOString());
    const resumed = await request('GET', APP_PATH, { bearer: app.secretKey });
    expect(resumed.body.data.webhook.paused_until).toBeNull();
    await disableWebhook(app.appId, 'the receiver answered 410 Gone');
    const disabled = await request('GET', APP_PATH, { bearer: app.secretKey });
    expect(disabled.body.data.webhook).toMatchObject({
      enabled: false,
      disabled_reason: 'the receiver answered 410 Gone',
    });
  });

  it("answers only the key's own app, to its secret key only", async () => {
    const [a, b] = [await createTestApp([]), await createTestApp([])];
    await setWebhook(a.appId, 'https://a.example.com/hooks');
    const ofB = await request('GET', APP_PATH, { bearer: b.secretKey });
    expect(ofB.body.data).toMatchObject({ app_id: b.appId, webhook: null });
    // The sdk key is public (it ships in the app): it reads nothing here.
    const sdk = await request('GET', APP_PATH, { bearer: a.sdkKey });
    expect(sdk.status).toBe(401);
    const mobile = await request('GET', APP_PATH, { headers: mobileHeaders(a, 'user-1') });
    expect(mobile.status).toBe(401);
    const none = await request('GET', APP_PATH);
    expect(none.status).toBe(401);
  });
});
