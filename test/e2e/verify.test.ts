import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/data/apps.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { verificationResult } from '../../lib/schemas/subscription.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();
const APPLE_TRANSACTION = readFileSync(
  new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
  'utf8',
).trim();

const mint = mintReceipt;

describe('POST /v1/subscriptions/verify', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const verify = (body: Record<string, unknown>, bearer = app.secretKey) =>
    request('POST', `${SUBSCRIPTIONS_BASE}/verify`, { bearer, body: { platform: 'ios', ...body } });
  const detail = async (id: string) =>
    (await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey })).body.data;

  it('a valid test-store purchase creates an active subscription and answers the spec verification result', async () => {
    const { receipt_data, transaction_id } = await mint(app);
    const res = await verify({ receipt_data, user_id: 'buyer-1', transaction_id });
    expect(res.status).toBe(200);
    const result = verificationResult.parse(res.body.data);
    expect(result).toMatchObject({
      verification_status: 'valid',
      product_id: 'premium_monthly',
      trial_period: false,
      auto_renew: true,
      original_transaction_id: transaction_id,
    });
    expect(await detail(result.subscription_id)).toMatchObject({
      status: 'active',
      user_id: 'buyer-1',
      expires_at: result.expires_at,
      payment_info: { transaction_id, receipt_data, payment_method: 'app_store', last_payment: result.purchase_date },
    });
  });

  it('a receipt verified for a platform other than its own is INVALID_RECEIPT and records nothing', async () => {
    const { receipt_data } = await mint(app);
    for (const platform of ['android', 'web']) {
      const res = await verify({ receipt_data, user_id: `wrong-platform-${platform}`, platform });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_RECEIPT');
      expect(res.body.error.message).toContain(`issued for ios, not ${platform}`);
      const list = await request('GET', SUBSCRIPTIONS_BASE, {
        bearer: app.secretKey,
        query: { user_id: `wrong-platform-${platform}` },
      });
      expect(list.body.pagination.total).toBe(0);
    }
    // The same receipt still verifies for its own platform.
    expect((await verify({ receipt_data, user_id: 'right-platform', platform: 'ios' })).status).toBe(200);
  });

  it('verifying the same receipt again for the same user returns the same result and creates nothing', async () => {
    const { receipt_data } = await mint(app);
    const first = await verify({ receipt_data, user_id: 'buyer-2' });
    const again = await verify({ receipt_data, user_id: 'buyer-2' });
    expect(again.body.data).toEqual(first.body.data);
    const list = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, query: { user_id: 'buyer-2' } });
    expect(list.body.pagination.total).toBe(1);
  });

  it('the same receipt for another user is RECEIPT_ALREADY_USED', async () => {
    const { receipt_data } = await mint(app);
    await verify({ receipt_data, user_id: 'owner' });
    const res = await verify({ receipt_data, user_id: 'somebody-else' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RECEIPT_ALREADY_USED');
  });

  it('a later transaction of the same purchase renews the same subscription', async () => {
    const first = await mint(app, { expiresIn: 86_400 });
    const bought = (await verify({ receipt_data: first.receipt_data, user_id: 'renewer' })).body.data;
    const renewal = await mint(app, { expiresIn: 40 * 86_400, renews: first.transaction_id });
    const renewed = await verify({ receipt_data: renewal.receipt_data, user_id: 'renewer' });
    expect(renewed.body.data.subscription_id).toBe(bought.subscription_id);
    expect(Date.parse(renewed.body.data.expires_at)).toBeGreaterThan(Date.parse(bought.expires_at));
    expect((await detail(bought.subscription_id)).payment_info.transaction_id).toBe(renewal.transaction_id);
    // Another user cannot take over the purchase with its renewal either.
    expect((await verify({ receipt_data: renewal.receipt_data, user_id: 'thief' })).body.error.code).toBe(
      'RECEIPT_ALREADY_USED',
    );
  });

  it('an expired purchase verifies as valid, and its subscription is expired', async () => {
    const { receipt_data } = await mint(app, { expiresIn: -3600 });
    const res = await verify({ receipt_data, user_id: 'lapsed' });
    expect(res.body.data.verification_status).toBe('valid');
    expect((await detail(res.body.data.subscription_id)).status).toBe('expired');
  });

  it('a trial purchase is marked as a trial', async () => {
    const { receipt_data } = await mint(app, { trial: true, expiresIn: 7 * 86_400 });
    const res = await verify({ receipt_data, user_id: 'trialist' });
    expect(res.body.data.trial_period).toBe(true);
    expect(await detail(res.body.data.subscription_id)).toMatchObject({ trial_period: true, status: 'active' });
  });

  it('activates the pending_verification record created earlier with the same transaction id', async () => {
    const { receipt_data, transaction_id } = await mint(app);
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: 'two-step', product_id: 'premium_monthly', platform: 'ios', transaction_id },
    });
    const res = await verify({ receipt_data, user_id: 'two-step', transaction_id });
    expect(res.body.data.subscription_id).toBe(created.body.data.id);
    expect((await detail(created.body.data.id)).status).toBe('active');
  });

  it('bytes that are no receipt of any store are INVALID_RECEIPT, whatever the app has configured', async () => {
    const res = await verify({ receipt_data: 'bm90IGEgcmVjZWlwdA==', user_id: 'u', platform: 'ios' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_RECEIPT');
    expect(res.body.error).not.toHaveProperty('retryable');
  });

  it('an unsigned JWS (alg none) is INVALID_RECEIPT for an app that verifies App Store receipts', async () => {
    // Without App Store settings nothing of the App Store's is checked: that is VERIFICATION_FAILED
    // (below). With them, the JWS is read and refused as no App Store transaction.
    const apple = await createTestApp();
    await putStoreSettings(apple.appId, 'app_store', { bundle_id: 'com.example.app', environment: 'Sandbox' });
    const res = await verify(
      { receipt_data: Buffer.from('eyJhbGciOiJub25lIn0.e30.').toString('base64'), user_id: 'u', platform: 'ios' },
      apple.secretKey,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_RECEIPT');
    expect(res.body.error).not.toHaveProperty('retryable');
  });

  it.each([
    ['not base64', 'not base64!'],
    ['with spaces', 'ab cd'],
    ['non-ASCII', 'réçu'],
  ])(
    'receipt_data %s cannot be read: INVALID_RECEIPT, as on the mobile receipt endpoints',
    async (_name, receipt_data) => {
      const res = await verify({ receipt_data, user_id: 'u' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_RECEIPT', message: expect.stringContaining('base64') });
    },
  );

  it('a missing or mistyped receipt_data stays INVALID_PARAMETER naming the field', async () => {
    for (const receipt_data of [undefined, 42, '']) {
      const res = await verify({ receipt_data, user_id: 'u' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'INVALID_PARAMETER',
        details: [expect.objectContaining({ path: 'body.receipt_data' })],
      });
    }
  });

  it('a receipt minted for another app is INVALID_RECEIPT', async () => {
    const other = await createTestApp();
    const { receipt_data } = await mint(other);
    const res = await verify({ receipt_data, user_id: 'u' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_RECEIPT', message: expect.stringContaining('another app') });
  });

  it('a test-store receipt is refused by an app created without --test-store', async () => {
    const { receipt_data } = await mint(app);
    const { secretKey } = await createApp({ name: 'no test store', reportingCurrency: 'USD', testStore: false });
    const res = await verify({ receipt_data, user_id: 'u' }, secretKey.key);
    expect(res.body.error.code).toBe('INVALID_RECEIPT');
  });

  it('a receipt for a product not in the catalogue, or with a foreign transaction_id, is INVALID_RECEIPT', async () => {
    const unknown = await mint(app, { product: 'not_in_catalogue' });
    expect((await verify({ receipt_data: unknown.receipt_data, user_id: 'u' })).body.error.message).toContain(
      'not_in_catalogue',
    );
    const { receipt_data } = await mint(app);
    expect((await verify({ receipt_data, user_id: 'u', transaction_id: 'someone-elses' })).body.error.code).toBe(
      'INVALID_RECEIPT',
    );
  });

  it('an App Store receipt for an app without App Store settings is VERIFICATION_FAILED, retryable', async () => {
    const res = await verify({ receipt_data: Buffer.from(APPLE_TRANSACTION).toString('base64'), user_id: 'u' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
  });
});

describe('POST /v1/subscriptions/verify with the real Apple-signed sandbox transaction', () => {
  it('verifies for com.app.qysmat / Sandbox; the 2023 purchase is valid and its subscription expired', async () => {
    const app = await createTestApp([
      { ...PREMIUM_MONTHLY, id: 'com.app.qysmat.premium.child.individual.subscription', platforms: ['ios'] },
    ]);
    await putStoreSettings(app.appId, 'app_store', { bundle_id: 'com.app.qysmat', environment: 'Sandbox' });
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: {
        platform: 'ios',
        receipt_data: Buffer.from(APPLE_TRANSACTION).toString('base64'),
        user_id: 'apple-user',
        transaction_id: '2000000302596403',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      verification_status: 'valid',
      subscription_id: expect.stringMatching(/^sub_/),
      product_id: 'com.app.qysmat.premium.child.individual.subscription',
      expires_at: new Date(1679899942000).toISOString(),
      auto_renew: false,
      trial_period: false,
      original_transaction_id: '2000000302178785',
      purchase_date: new Date(1679899642000).toISOString(),
    });
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${res.body.data.subscription_id}`, {
      bearer: app.secretKey,
    });
    expect(detail.body.data.status).toBe('expired');
  });

  it('rejects it for an app whose bundle id differs', async () => {
    const app = await createTestApp([
      { ...PREMIUM_MONTHLY, id: 'com.app.qysmat.premium.child.individual.subscription', platforms: ['ios'] },
    ]);
    await putStoreSettings(app.appId, 'app_store', { bundle_id: 'com.example.other', environment: 'Sandbox' });
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: APPLE_TRANSACTION, user_id: 'apple-user' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_RECEIPT');
  });
});
