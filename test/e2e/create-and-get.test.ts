import { beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createdSubscription, subscriptionDetail } from '../../lib/schemas/subscription.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { request } = useGateway();

describe('POST /v1/subscriptions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const create = (body: unknown, bearer = app.secretKey) => request('POST', SUBSCRIPTIONS_BASE, { bearer, body });

  it('creates a pending_verification record and answers 201 with exactly the five spec fields', async () => {
    const res = await create({
      user_id: 'u-create',
      product_id: 'premium_monthly',
      platform: 'ios',
      price: 4.99,
      currency: 'usd',
      transaction_id: 'tx-1',
      receipt_data: 'cmVjZWlwdA==',
      auto_renew: true,
      trial_period: false,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'id', 'product_id', 'status', 'user_id']);
    expect(createdSubscription.parse(res.body.data)).toMatchObject({
      user_id: 'u-create',
      product_id: 'premium_monthly',
      status: 'pending_verification',
    });
  });

  it('the created record has every detail field, with product_info from the catalogue and payment_info from creation', async () => {
    const created = await create({
      user_id: 'u-detail',
      product_id: 'premium_monthly',
      platform: 'android',
      price: 4.99,
      currency: 'eur',
      transaction_id: 'tx-detail',
      receipt_data: 'cmVjZWlwdA==',
    });
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, { bearer: app.secretKey });
    expect(res.status).toBe(200);
    const detail = subscriptionDetail.parse(res.body.data);
    expect(detail).toMatchObject({
      id: created.body.data.id,
      user_id: 'u-detail',
      product_id: 'premium_monthly',
      platform: 'android',
      status: 'pending_verification',
      price: 4.99,
      currency: 'EUR',
      auto_renew: true,
      trial_period: false,
      trial_expires_at: null,
      created_at: created.body.data.created_at,
      product_info: {
        name: PREMIUM_MONTHLY.name,
        description: PREMIUM_MONTHLY.description,
        features: PREMIUM_MONTHLY.features,
      },
      payment_info: {
        transaction_id: 'tx-detail',
        receipt_data: 'cmVjZWlwdA==',
        payment_method: 'google_play',
        last_payment: null,
        next_billing: detail.expires_at,
      },
      usage_stats: { features_used: 0, last_activity: null, total_sessions: 0 },
    });
    // A monthly product's first period is one calendar month.
    const started = new Date(detail.started_at);
    expect(new Date(detail.expires_at).getUTCMonth()).toBe((started.getUTCMonth() + 1) % 12);
  });

  it('price and currency default to the catalogue', async () => {
    const created = await create({ user_id: 'u-default', product_id: 'pro_yearly', platform: 'ios' });
    const detail = (await request('GET', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, { bearer: app.secretKey }))
      .body.data;
    expect(detail).toMatchObject({ price: 59.99, currency: 'EUR', auto_renew: true, trial_period: false });
  });

  it('a trial sets trial_expires_at to the end of the product trial, which is also the first expiry', async () => {
    const created = await create({
      user_id: 'u-trial',
      product_id: 'premium_monthly',
      platform: 'ios',
      trial_period: true,
    });
    const detail = (await request('GET', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, { bearer: app.secretKey }))
      .body.data;
    const days = (Date.parse(detail.trial_expires_at) - Date.parse(detail.started_at)) / 86_400_000;
    expect(days).toBe(7);
    expect(detail.expires_at).toBe(detail.trial_expires_at);
  });

  it('an unknown product is 404 PRODUCT_NOT_FOUND', async () => {
    const res = await create({ user_id: 'u', product_id: 'nope', platform: 'ios' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('a product of another app is 404 PRODUCT_NOT_FOUND', async () => {
    const other = await createTestApp([{ ...PREMIUM_MONTHLY, id: 'only_in_other_app' }]);
    const res = await create({ user_id: 'u', product_id: 'only_in_other_app', platform: 'ios' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('PRODUCT_NOT_FOUND');
    expect(
      (await create({ user_id: 'u', product_id: 'only_in_other_app', platform: 'ios' }, other.secretKey)).status,
    ).toBe(201);
  });

  it.each([
    ['an inactive product', { product_id: 'retired_plan', platform: 'ios' }, 'body.product_id'],
    ['a platform the product is not sold on', { product_id: 'pro_yearly', platform: 'web' }, 'body.platform'],
    [
      'a trial on a product without one',
      { product_id: 'pro_yearly', platform: 'ios', trial_period: true },
      'body.trial_period',
    ],
  ])('%s is a 400 naming the field', async (_name, body, path) => {
    const res = await create({ user_id: 'u', ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: [expect.objectContaining({ path })] });
  });

  it.each([
    ['missing user_id', { product_id: 'premium_monthly', platform: 'ios' }, 'body.user_id'],
    [
      'price as a string',
      { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', price: '9.99' },
      'body.price',
    ],
    ['negative price', { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', price: -1 }, 'body.price'],
    ['unknown platform', { user_id: 'u', product_id: 'premium_monthly', platform: 'windows' }, 'body.platform'],
    [
      'currency not ISO 4217',
      { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', currency: 'dollars' },
      'body.currency',
    ],
    [
      'auto_renew as a string',
      { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', auto_renew: 'yes' },
      'body.auto_renew',
    ],
    [
      'receipt_data not base64',
      { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', receipt_data: 'not base64!' },
      'body.receipt_data',
    ],
    ['an unknown field', { user_id: 'u', product_id: 'premium_monthly', platform: 'ios', colour: 'red' }, 'body'],
  ])('%s is a 400 INVALID_PARAMETER with field details', async (_name, body, path) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('malformed JSON, a JSON array and a missing Content-Type are 400s, never 500s', async () => {
    for (const res of [
      await request('POST', SUBSCRIPTIONS_BASE, {
        bearer: app.secretKey,
        rawBody: '{"user_id":',
        headers: { 'content-type': 'application/json' },
      }),
      await request('POST', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, body: [1, 2] }),
      await request('POST', SUBSCRIPTIONS_BASE, {
        bearer: app.secretKey,
        rawBody: '{"user_id":"u"}',
        headers: { 'content-type': 'text/plain' },
      }),
      await request('POST', SUBSCRIPTIONS_BASE, { bearer: app.secretKey }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
    }
  });

  it('re-sending the same transaction_id for the same user returns the first record (200), not a duplicate', async () => {
    const body = { user_id: 'u-retry', product_id: 'premium_monthly', platform: 'ios', transaction_id: 'tx-retry' };
    const first = await create(body);
    const again = await create(body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    const list = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, query: { user_id: 'u-retry' } });
    expect(list.body.pagination.total).toBe(1);
  });

  it('a transaction_id already used by another user is RECEIPT_ALREADY_USED', async () => {
    await create({ user_id: 'u-owner', product_id: 'premium_monthly', platform: 'ios', transaction_id: 'tx-owned' });
    const res = await create({
      user_id: 'u-thief',
      product_id: 'premium_monthly',
      platform: 'ios',
      transaction_id: 'tx-owned',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RECEIPT_ALREADY_USED');
  });
});

describe('GET /v1/subscriptions/{id}', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it('an unknown id is 404 SUBSCRIPTION_NOT_FOUND', async () => {
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567`, { bearer: app.secretKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 'SUBSCRIPTION_NOT_FOUND', message: expect.stringContaining('sub_0123456789abcdef01234567') },
    });
  });

  it('an id that cannot exist (wrong shape) is also 404', async () => {
    for (const id of ['nope', 'sub_..%2F..', encodeURIComponent('sub_1#APP#x')]) {
      const res = await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    }
  });

  it("another app's subscription id is a 404 for this app", async () => {
    const owner = await createTestApp();
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: owner.secretKey,
      body: { user_id: 'u', product_id: 'premium_monthly', platform: 'ios' },
    });
    const id = created.body.data.id;
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: owner.secretKey })).status).toBe(200);
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('query parameters on the detail endpoint are rejected', async () => {
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567`, {
      bearer: app.secretKey,
      query: { expand: 'all' },
    });
    expect(res.status).toBe(400);
  });
});
