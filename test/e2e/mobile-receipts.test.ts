import { beforeAll, describe, expect, it } from 'vitest';
import { setRestorePolicy } from '../../lib/data/apps.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { verificationResult } from '../../lib/schemas/subscription.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();

const mint = (app: TestApp) => mintReceipt(app);

const headersFor = mobileHeaders;

describe('mobile receipt endpoints', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const first = (user: string, body: unknown, overrides: Record<string, string | undefined> = {}) =>
    request('POST', '/receipt/verify/first', { headers: headersFor(app, user, overrides), body });
  const recover = (target: TestApp, user: string, body: unknown) =>
    request('POST', '/receipt/verify/recover', { headers: headersFor(target, user), body });

  it('verify/first answers the success envelope with the verification result under data', async () => {
    const { receipt_data } = await mint(app);
    const res = await first('mobile-1', { receipt: receipt_data, productId: 'premium_monthly' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', message: expect.any(String) });
    expect(verificationResult.parse(res.body.data)).toMatchObject({
      verification_status: 'valid',
      product_id: 'premium_monthly',
    });
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${res.body.data.subscription_id}`, {
      bearer: app.secretKey,
    });
    expect(detail.body.data).toMatchObject({ user_id: 'mobile-1', status: 'active', platform: 'ios' });
  });

  it('verify/first of an iOS receipt from an Android client is INVALID_RECEIPT', async () => {
    const { receipt_data } = await mint(app);
    const res = await first(
      'mobile-android',
      { receipt: receipt_data, productId: 'premium_monthly' },
      { 'x-platform': 'Android' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'error',
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('not android'),
    });
  });

  it('verify/first for another product than the receipt is INVALID_RECEIPT in the mobile envelope', async () => {
    const { receipt_data } = await mint(app);
    const res = await first('mobile-2', { receipt: receipt_data, productId: 'pro_yearly' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'error',
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('premium_monthly'),
    });
  });

  it('garbage, a receipt of another app, and a receipt of another user are refused with the spec codes', async () => {
    expect((await first('u', { receipt: 'Z2FyYmFnZQ==', productId: 'premium_monthly' })).body.code).toBe(
      'INVALID_RECEIPT',
    );
    const other = await createTestApp();
    expect(
      (await first('u', { receipt: (await mint(other)).receipt_data, productId: 'premium_monthly' })).body.code,
    ).toBe('INVALID_RECEIPT');
    const { receipt_data } = await mint(app);
    await first('owner', { receipt: receipt_data, productId: 'premium_monthly' });
    const stolen = await first('not-owner', { receipt: receipt_data, productId: 'premium_monthly' });
    expect(stolen.status).toBe(400);
    expect(stolen.body.code).toBe('RECEIPT_ALREADY_USED');
  });

  it.each([
    ['no X-API-KEY', { 'x-api-key': undefined }, 401, 'MISSING_REQUIRED_HEADER'],
    ['an unknown key', { 'x-api-key': 'pk_unknown' }, 401, 'INVALID_API_KEY'],
    ['no X-VERSION', { 'x-version': undefined }, 400, 'MISSING_REQUIRED_HEADER'],
    ['no X-USER-ID', { 'x-user-id': undefined }, 400, 'MISSING_REQUIRED_HEADER'],
    ['no User-Agent', { 'user-agent': '' }, 400, 'MISSING_REQUIRED_HEADER'],
    // fetch always sends an Accept header; an empty one counts as missing.
    ['no Accept', { accept: '' }, 400, 'MISSING_REQUIRED_HEADER'],
    ['an unknown X-PLATFORM', { 'x-platform': 'Windows' }, 400, 'INVALID_PARAMETER'],
    ['another app in X-APP-ID', { 'x-app-id': 'app_0000000000000000' }, 403, 'FORBIDDEN'],
  ])('%s is refused', async (_name, overrides, status, code) => {
    const res = await first(
      'u',
      { receipt: 'Z2FyYmFnZQ==', productId: 'premium_monthly' },
      overrides as Record<string, string | undefined>,
    );
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status: 'error', code });
  });

  it('the missing header is named, and the secret key is not accepted by the mobile API', async () => {
    expect((await first('u', {}, { 'x-version': undefined })).body.message).toContain('X-VERSION');
    expect((await first('u', {}, { 'x-api-key': app.secretKey })).body.code).toBe('INVALID_API_KEY');
    const noContentType = await request('POST', '/receipt/verify/first', {
      headers: headersFor(app, 'u'),
      rawBody: '{}',
    });
    expect(noContentType.status).toBe(400);
    expect(noContentType.body.message).toContain('Content-Type');
  });

  it('X-PLATFORM is case-insensitive', async () => {
    const { receipt_data } = await mint(app);
    expect(
      (await first('case', { receipt: receipt_data, productId: 'premium_monthly' }, { 'x-platform': 'ios' })).status,
    ).toBe(200);
  });

  it('a receipt that is neither base64 nor a JWS is INVALID_RECEIPT on both endpoints, as on /v1/subscriptions/verify', async () => {
    const firstRes = await first('u-unreadable', { receipt: 'not base64!', productId: 'premium_monthly' });
    expect(firstRes.status).toBe(400);
    expect(firstRes.body).toEqual({
      status: 'error',
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('base64'),
    });
    const recovered = await recover(app, 'u-unreadable', { receipt: 'not base64!' });
    expect(recovered.status).toBe(400);
    expect(recovered.body).toMatchObject({ status: 'error', code: 'INVALID_RECEIPT' });
    // A missing receipt is a parameter's problem, not a receipt's.
    expect((await recover(app, 'u-unreadable', {})).body).toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('recover re-attaches the purchase to its owner (same result), and refuses another user under the block policy', async () => {
    const { receipt_data } = await mint(app);
    const bought = await first('restorer', { receipt: receipt_data, productId: 'premium_monthly' });
    const restored = await recover(app, 'restorer', { receipt: receipt_data });
    expect(restored.body).toMatchObject({
      status: 'success',
      data: { subscription_id: bought.body.data.subscription_id },
    });
    const other = await recover(app, 'new-phone-user', { receipt: receipt_data });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('RECEIPT_ALREADY_USED');
  });

  it('under the transfer policy a restore moves the purchase: the old subscription is cancelled, the new user gets one', async () => {
    const own = await createTestApp();
    await setRestorePolicy(own.appId, 'transfer');
    const { receipt_data } = await mint(own);
    const bought = await request('POST', '/receipt/verify/first', {
      headers: headersFor(own, 'old-owner'),
      body: { receipt: receipt_data, productId: 'premium_monthly' },
    });
    const moved = await recover(own, 'new-owner', { receipt: receipt_data });
    expect(moved.status).toBe(200);
    expect(moved.body.data.subscription_id).not.toBe(bought.body.data.subscription_id);
    const detail = (id: string) => request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: own.secretKey });
    expect((await detail(bought.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'old-owner',
      status: 'cancelled',
      cancellation_reason: 'transferred_to_another_user',
    });
    expect((await detail(moved.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'new-owner',
      status: 'active',
    });
    // Under the transfer policy whoever restores last holds the purchase: the old owner restoring
    // takes it back, in a second transfer that ends the new owner's subscription.
    const back = await recover(own, 'old-owner', { receipt: receipt_data });
    expect(back.status).toBe(200);
    expect(back.body.data.subscription_id).not.toBe(moved.body.data.subscription_id);
    expect((await detail(moved.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'new-owner',
      status: 'cancelled',
      cancellation_reason: 'transferred_to_another_user',
    });
    expect((await detail(back.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'old-owner',
      status: 'active',
    });
  });
});
