import { beforeAll, describe, expect, it } from 'vitest';
import { revokeKey, rotateKey } from '../../lib/data/api-keys.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { request } = useGateway();

describe('subscription API authentication', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it('a request without Authorization is a 401 in the subscription error envelope', async () => {
    const res = await request('GET', SUBSCRIPTIONS_BASE);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'MISSING_REQUIRED_HEADER', message: expect.any(String) } });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('an unknown key is a 401 INVALID_API_KEY', async () => {
    const res = await request('GET', SUBSCRIPTIONS_BASE, { bearer: 'sk_not_a_real_key' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('a non-Bearer scheme is a 401 INVALID_API_KEY', async () => {
    const res = await request('GET', SUBSCRIPTIONS_BASE, { headers: { authorization: `Basic ${app.secretKey}` } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('the sdk key of the same app is not accepted by the subscription API', async () => {
    const res = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.sdkKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('the secret key is accepted on every endpoint', async () => {
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey })).status).toBe(200);
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey })).status).toBe(200);
  });

  it('a revoked key stops working at once', async () => {
    const own = await createTestApp([]);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: own.secretKey })).status).toBe(200);
    await revokeKey(own.secretKey);
    const res = await request('GET', SUBSCRIPTIONS_BASE, { bearer: own.secretKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('after rotation the new key works and the old one is refused', async () => {
    const own = await createTestApp([]);
    const { issued } = await rotateKey(own.appId, 'secret', false);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: issued.key })).status).toBe(200);
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: own.secretKey })).status).toBe(401);
  });

  it('an unknown path answers 404 ROUTE_NOT_FOUND in the subscription envelope', async () => {
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567/refund`, {
      bearer: app.secretKey,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('every response carries a request id', async () => {
    const res = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
