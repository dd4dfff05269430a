import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ROUTES, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { apiOfPath, compileRoutes, matchRoute, resolveRoute, toProxyEvent } from '../../local/gateway.js';

const compiled = compileRoutes(ROUTES);

describe('local gateway routing', () => {
  it('every route in the table is reachable by its own path', () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/\{[^}]+\}/g, 'sub_0123456789abcdef01234567');
      expect(matchRoute(compiled, route.method, path)?.route.name).toBe(route.name);
    }
  });

  it("RevenueCat's paths, served at the root, are no other API's: each path's envelope is its route's API", () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/\{[^}]+\}/g, 'x');
      expect(apiOfPath(path), route.path).toBe(route.api);
      expect(apiOfPath(`${path}/unknown`), route.path).toBe(route.api);
    }
    // The SDKs' calls not served yet are answered in RevenueCat's envelope too.
    expect(apiOfPath('/v1/subscribers/x/offerings')).toBe('revenuecat');
    expect(apiOfPath('/v1/receipts/x')).toBe('revenuecat');
    expect(apiOfPath('/v1/subscriptions')).toBe('subscriptions');
  });

  it("RevenueCat's logIn path is never taken for a user's id, whatever the method (API Gateway: a 405)", () => {
    expect(matchRoute(compiled, 'POST', '/v1/subscribers/identify')?.route.name).toBe('RevenueCatLogIn');
    expect(matchRoute(compiled, 'GET', '/v1/subscribers/identify')).toBeUndefined();
    expect(matchRoute(compiled, 'GET', '/v1/subscribers/identify2')?.route.name).toBe('RevenueCatCustomerInfo');
  });

  it('literal paths are never taken for subscription ids', () => {
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/products`)?.route.name).toBe('ListProducts');
    const byId = matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/sub_1`);
    expect(byId?.route.name).toBe('GetSubscription');
    expect(byId?.pathParameters).toEqual({ subscription_id: 'sub_1' });
  });

  it('a literal segment wins over a {param} for every method: an unserved method there is 405 with the methods served', () => {
    const cases: [string, string, { api: string; allow: string[] }][] = [
      ['GET', `${SUBSCRIPTIONS_BASE}/verify`, { api: 'subscriptions', allow: ['POST'] }],
      ['PUT', `${SUBSCRIPTIONS_BASE}/verify`, { api: 'subscriptions', allow: ['POST'] }],
      ['PUT', `${SUBSCRIPTIONS_BASE}/products`, { api: 'subscriptions', allow: ['GET'] }],
      ['PUT', `${SUBSCRIPTIONS_BASE}/revenue`, { api: 'subscriptions', allow: ['GET'] }],
      ['DELETE', `${SUBSCRIPTIONS_BASE}/sub_1`, { api: 'subscriptions', allow: ['GET', 'PUT'] }],
      ['GET', `${SUBSCRIPTIONS_BASE}/sub_1/cancel`, { api: 'subscriptions', allow: ['POST'] }],
      ['DELETE', SUBSCRIPTIONS_BASE, { api: 'subscriptions', allow: ['GET', 'POST'] }],
      // Mobile analogues: a literal beside a {param} (/report/global_switch vs /report/{type}), and plain ones.
      ['GET', '/report/global_switch', { api: 'mobile', allow: ['POST'] }],
      ['GET', '/v2/report/global_switch', { api: 'mobile', allow: ['POST'] }],
      ['GET', '/report/custom', { api: 'mobile', allow: ['POST'] }],
      ['GET', '/receipt/verify/first', { api: 'mobile', allow: ['POST'] }],
      ['POST', '/users/attribute/update', { api: 'mobile', allow: ['PUT'] }],
      ['POST', '/segment/info', { api: 'mobile', allow: ['GET'] }],
    ];
    for (const [method, path, expected] of cases) {
      expect(resolveRoute(compiled, method, path), `${method} ${path}`).toEqual(expected);
    }
    expect(matchRoute(compiled, 'POST', '/report/global_switch')?.route.name).toBe('ReportGlobalSwitch');
    expect(matchRoute(compiled, 'POST', '/report/custom')?.pathParameters).toEqual({ type: 'custom' });
  });

  it('the literal resource wins even when a {param} sibling serves the method (as in API Gateway)', () => {
    // GET /v1/subscriptions/{subscription_id} exists, yet GET .../verify is verify's, not subscription "verify".
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/verify`)).toBeUndefined();
    expect(matchRoute(compiled, 'PUT', `${SUBSCRIPTIONS_BASE}/products`)).toBeUndefined();
    expect(matchRoute(compiled, 'PUT', `${SUBSCRIPTIONS_BASE}/sub_1`)?.route.name).toBe('UpdateSubscription');
  });

  it('a path that is no endpoint resolves to nothing (ROUTE_NOT_FOUND), whatever the method', () => {
    expect(resolveRoute(compiled, 'GET', '/v1/nothing')).toBeUndefined();
    expect(resolveRoute(compiled, 'POST', `${SUBSCRIPTIONS_BASE}/sub_1/extra/deep`)).toBeUndefined();
    expect(resolveRoute(compiled, 'GET', '/')).toBeUndefined();
  });

  it('path parameters are URL-decoded', () => {
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/a%20b`)?.pathParameters).toEqual({
      subscription_id: 'a b',
    });
  });

  it('unknown paths and methods match nothing', () => {
    expect(matchRoute(compiled, 'DELETE', `${SUBSCRIPTIONS_BASE}/sub_1`)).toBeUndefined();
    expect(matchRoute(compiled, 'GET', '/v1/nothing')).toBeUndefined();
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/sub_1/extra/deep`)).toBeUndefined();
  });

  it('route names are unique and every handler module is named once', () => {
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
  });

  it('headers and query parameters named __proto__ or constructor are plain data in the event (as in API Gateway JSON)', () => {
    const request = {
      method: 'GET',
      httpVersion: '1.1',
      headers: {},
      socket: { remoteAddress: '127.0.0.1' },
      rawHeaders: ['__proto__', 'a', 'constructor', 'b', 'constructor', 'c'],
    } as unknown as IncomingMessage;
    const url = new URL('http://localhost/v1/subscriptions?__proto__=x&constructor=1&constructor=2&toString=y');
    const event = toProxyEvent(request, url, matchRoute(compiled, 'GET', url.pathname)!, Buffer.alloc(0), 'req-1');
    expect(Object.getPrototypeOf(event.queryStringParameters)).toBe(Object.prototype);
    expect(Object.entries(event.queryStringParameters!)).toEqual([
      ['__proto__', 'x'],
      ['constructor', '2'],
      ['toString', 'y'],
    ]);
    expect(Object.entries(event.multiValueQueryStringParameters!)).toEqual([
      ['__proto__', ['x']],
      ['constructor', ['1', '2']],
      ['toString', ['y']],
    ]);
    expect(Object.entries(event.multiValueHeaders)).toEqual([
      ['__proto__', ['a']],
      ['constructor', ['b', 'c']],
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('passes the body as its bytes, base64-encoded, as API Gateway does for binary media types', () => {
    const request = {
      method: 'POST',
      httpVersion: '1.1',
      headers: {},
      socket: {},
      rawHeaders: [],
    } as unknown as IncomingMessage;
    const url = new URL(`http://localhost${SUBSCRIPTIONS_BASE}`);
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    const event = toProxyEvent(request, url, matchRoute(compiled, 'POST', url.pathname)!, bytes, 'req-2');
    expect(event).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
    expect(
      toProxyEvent(request, url, matchRoute(compiled, 'POST', url.pathname)!, Buffer.alloc(0), 'req-3'),
    ).toMatchObject({ isBase64Encoded: false, body: null });
  });
});
