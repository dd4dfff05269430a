/**
 * CORS over HTTP, through the local gateway: the subscription API answers the console's origin
 * (CONSOLE_ORIGINS; test/support/env.ts sets it) and no other; the mobile API, which browsers
 * never call, answers no CORS at all; RevenueCat's dialect answers any origin, naming each header
 * purchases-js sends (its dist/Purchases.es.js `Am`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REVENUECAT_CORS_ALLOWED_HEADERS } from '../../lib/http/revenuecat.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { send } = useGateway();
const CONSOLE = 'https://console.example.test';
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});

describe('CORS', () => {
  it.each([
    SUBSCRIPTIONS_BASE,
    `${SUBSCRIPTIONS_BASE}/products`,
    `${SUBSCRIPTIONS_BASE}/sub_x/cancel`,
    `${CUSTOMERS_BASE}/u1`,
  ])('a preflight of %s from the console is allowed, from elsewhere not', async (path) => {
    const allowed = await send('OPTIONS', path, {
      headers: {
        origin: CONSOLE,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(allowed.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, If-None-Match');
    expect(allowed.headers['access-control-allow-methods']).toBe('GET, POST, PUT, DELETE');

    const other = await send('OPTIONS', path, {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(other.status).toBe(204);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('an answer to the console carries its origin, an answer to another origin none, an error too', async () => {
    const auth = { authorization: `Bearer ${app.secretKey}` };
    const ok = await send('GET', `${SUBSCRIPTIONS_BASE}/products`, { headers: { ...auth, origin: CONSOLE } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(ok.headers['access-control-expose-headers']).toContain('Retry-After');
    expect(ok.headers.vary).toBe('Origin');

    const other = await send('GET', `${SUBSCRIPTIONS_BASE}/products`, {
      headers: { ...auth, origin: 'https://evil.example' },
    });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();

    // The console must be able to read a refusal to show it.
    const refused = await send('GET', `${SUBSCRIPTIONS_BASE}/products`, {
      headers: { authorization: 'Bearer sk_nope', origin: CONSOLE },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(CONSOLE);
  });

  it('the mobile API answers no CORS', async () => {
    const res = await send('GET', '/segment/info', { headers: { 'x-api-key': app.sdkKey, origin: CONSOLE } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await send('OPTIONS', '/segment/info', {
      headers: { origin: CONSOLE, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    '/v1/subscribers/%24RCAnonymousID%3Aabc',
    '/v1/subscribers/u1/attributes',
    '/v1/subscribers/identify',
    '/v1/receipts',
    '/v1/product_entitlement_mapping',
  ])("a preflight of RevenueCat's %s from any origin is allowed, naming purchases-js's headers", async (path) => {
    for (const origin of ['https://shop.example', 'null']) {
      const preflight = await send('OPTIONS', path, {
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-platform,x-version,x-is-sandbox',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST');
      const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase().split(', ');
      // Named: a `*` would not cover Authorization.
      for (const header of ['authorization', 'content-type', 'accept', 'x-platform', 'x-version', 'x-is-sandbox'])
        expect(allowed).toContain(header);
      expect(allowed).toHaveLength(REVENUECAT_CORS_ALLOWED_HEADERS.length);
    }
  });

  it("RevenueCat's answers, a refusal too, may be read by any origin", async () => {
    const ok = await send('GET', '/v1/subscribers/cors-user', {
      headers: { authorization: `Bearer ${app.sdkKey}`, origin: 'https://shop.example' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const refused = await send('GET', '/v1/subscribers/cors-user', {
      headers: { authorization: 'Bearer pk_nope', origin: 'https://shop.example' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});
