import { beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { productSchema } from '../../lib/schemas/product.js';
import { subscriptionDetail } from '../../lib/schemas/subscription.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, RETIRED, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { request } = useGateway();

describe('PUT /v1/subscriptions/{id}', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const create = async (user = 'u') =>
    (
      await request('POST', SUBSCRIPTIONS_BASE, {
        bearer: app.secretKey,
        body: { user_id: user, product_id: 'premium_monthly', platform: 'ios' },
      })
    ).body.data.id as string;
  const put = (id: string, body: unknown, bearer = app.secretKey) =>
    request('PUT', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer, body });

  it('an operator activates a pending_verification subscription and gets the full detail back', async () => {
    const id = await create();
    const res = await put(id, { status: 'active' });
    expect(res.status).toBe(200);
    expect(subscriptionDetail.parse(res.body.data)).toMatchObject({ id, status: 'active' });
    expect(res.body.data.updated_at >= res.body.data.created_at).toBe(true);
  });

  it('auto_renew and cancellation_reason change without a status change', async () => {
    const id = await create();
    await put(id, { status: 'active' });
    const res = await put(id, { auto_renew: false, cancellation_reason: 'user_request' });
    expect(res.body.data).toMatchObject({ status: 'active', auto_renew: false, cancellation_reason: 'user_request' });
    expect(res.body.data.payment_info.next_billing).toBeNull();
  });

  it('cancelling records the cancellation date given and stops renewal', async () => {
    const id = await create();
    const res = await put(id, {
      status: 'cancelled',
      cancellation_reason: 'too_expensive',
      cancellation_date: '2026-01-02T03:04:05+02:00',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      cancellation_reason: 'too_expensive',
      cancelled_at: '2026-01-02T01:04:05.000Z',
    });
  });

  it('a status change moves the list counts', async () => {
    const own = await createTestApp();
    const id = (
      await request('POST', SUBSCRIPTIONS_BASE, {
        bearer: own.secretKey,
        body: { user_id: 'u', product_id: 'premium_monthly', platform: 'ios' },
      })
    ).body.data.id;
    const total = async (status: string) =>
      (await request('GET', SUBSCRIPTIONS_BASE, { bearer: own.secretKey, query: { status } })).body.pagination.total;
    expect([await total('pending'), await total('active')]).toEqual([1, 0]);
    await put(id, { status: 'active' }, own.secretKey);
    expect([await total('pending'), await total('active')]).toEqual([0, 1]);
  });

  it('a transition the state machine forbids is a 409 naming the current status', async () => {
    const id = await create();
    await put(id, { status: 'cancelled' });
    const res = await put(id, { status: 'active' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      message: expect.stringContaining('cancelled'),
    });
  });

  it('an expired subscription cannot be changed: SUBSCRIPTION_EXPIRED', async () => {
    const id = await create();
    await put(id, { status: 'active' });
    await put(id, { status: 'expired' });
    const res = await put(id, { auto_renew: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SUBSCRIPTION_EXPIRED');
  });

  it.each([
    [{}, 'body'],
    [{ status: 'paused_forever' }, 'body.status'],
    [{ auto_renew: 'no' }, 'body.auto_renew'],
    [{ cancellation_date: 'yesterday' }, 'body.cancellation_date'],
    [{ expires_at: '2030-01-01T00:00:00Z' }, 'body'],
  ])('%o is a 400 naming %s', async (body, path) => {
    const id = await create();
    const res = await put(id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("another app cannot change this app's subscription (404) and nothing changes", async () => {
    const id = await create();
    const other = await createTestApp();
    const res = await put(id, { status: 'cancelled' }, other.secretKey);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey });
    expect(detail.body.data.status).toBe('pending_verification');
  });

  it('parallel updates of one subscription never lose an update', async () => {
    const id = await create();
    await put(id, { status: 'active' });
    const reasons = Array.from({ length: 8 }, (_, i) => `reason-${i}`);
    const results = await Promise.all(reasons.map((reason) => put(id, { cancellation_reason: reason })));
    // Each either committed (200) or was told to retry (409): never a silent overwrite or a 500.
    for (const res of results) expect([200, 409]).toContain(res.status);
    const committed = results.filter((r) => r.status === 200).length;
    expect(committed).toBeGreaterThan(0);
    const version = await import('../../lib/data/subscription-queries.js').then((m) =>
      m.getSubscriptionRecord(app.appId, id),
    );
    // version 1 at creation, +1 for activation, +1 per committed update.
    expect(version?.version).toBe(2 + committed);
  });
});

describe('GET /v1/subscriptions/products', () => {
  it("lists exactly the app's catalogue, inactive products included, each a spec Product", async () => {
    const app = await createTestApp();
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((p: { id: string }) => [p.id, productSchema.parse(p)]));
    expect(byId).toEqual({ [PREMIUM_MONTHLY.id]: PREMIUM_MONTHLY, [PRO_YEARLY.id]: PRO_YEARLY, [RETIRED.id]: RETIRED });
  });

  it('an app without products gets an empty list', async () => {
    const app = await createTestApp([]);
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey });
    expect(res.body).toEqual({ data: [] });
  });

  it("one app's catalogue is invisible to another", async () => {
    const a = await createTestApp([{ ...PREMIUM_MONTHLY, id: 'a_only' }]);
    const b = await createTestApp([{ ...PREMIUM_MONTHLY, id: 'b_only' }]);
    expect(
      (await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: a.secretKey })).body.data.map(
        (p: { id: string }) => p.id,
      ),
    ).toEqual(['a_only']);
    expect(
      (await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: b.secretKey })).body.data.map(
        (p: { id: string }) => p.id,
      ),
    ).toEqual(['b_only']);
  });
});
