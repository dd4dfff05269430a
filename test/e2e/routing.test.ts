import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Route, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalGateway, startGateway } from '../../local/gateway.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { request, send } = useGateway();

describe('routing as API Gateway does it', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it.each([
    ['GET', `${SUBSCRIPTIONS_BASE}/verify`, 'POST'],
    ['PUT', `${SUBSCRIPTIONS_BASE}/verify`, 'POST'],
    ['PUT', `${SUBSCRIPTIONS_BASE}/products`, 'GET'],
    ['PUT', `${SUBSCRIPTIONS_BASE}/revenue`, 'GET'],
    ['DELETE', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567`, 'GET, PUT'],
    ['PATCH', SUBSCRIPTIONS_BASE, 'GET, POST'],
  ])('%s %s is 405 METHOD_NOT_ALLOWED in the subscription envelope, Allow: %s', async (method, path, allow) => {
    const res = await request(method, path, {
      bearer: app.secretKey,
      ...(method === 'PUT' ? { body: { status: 'active' } } : {}),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    expect(res.body).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: expect.stringContaining('Allow') } });
  });

  it.each([
    ['GET', '/report/global_switch', 'POST'],
    ['GET', '/v2/report/global_switch', 'POST'],
    ['GET', '/report/custom_type', 'POST'],
    ['GET', '/receipt/verify/first', 'POST'],
    ['POST', '/users/attribute/update', 'PUT'],
    ['PUT', '/segment/info', 'GET'],
  ])('%s %s is 405 METHOD_NOT_ALLOWED in the mobile envelope, Allow: %s', async (method, path, allow) => {
    const res = await request(method, path, {
      headers: { 'X-API-KEY': app.sdkKey },
      ...(method === 'GET' ? {} : { body: {} }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body).toEqual({
      status: 'error',
      code: 'METHOD_NOT_ALLOWED',
      message: expect.stringContaining('Allow'),
    });
  });

  it('the served methods of those paths still reach their handlers, and ids still reach theirs', async () => {
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey })).status).toBe(200);
    // The revenue handler itself answers (its query parameters are required).
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, { bearer: app.secretKey })).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
    const byId = await request('GET', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567`, { bearer: app.secretKey });
    expect(byId.status).toBe(404);
    expect(byId.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('a path that is no endpoint keeps its answer: 404 ROUTE_NOT_FOUND in the envelope its prefix names', async () => {
    const sub = await request('GET', `${SUBSCRIPTIONS_BASE}/sub_1/nothing/here`, { bearer: app.secretKey });
    expect(sub.status).toBe(404);
    expect(sub.headers.get('allow')).toBeNull();
    expect(sub.body.error.code).toBe('ROUTE_NOT_FOUND');
    const mobile = await request('GET', '/no/such/endpoint', { headers: { 'X-API-KEY': app.sdkKey } });
    expect(mobile.status).toBe(404);
    expect(mobile.body).toMatchObject({ status: 'error', code: 'ROUTE_NOT_FOUND' });
  });

  it('merges repeated slashes as API Gateway does: <ApiUrl>/notifications/... reaches its handler', async () => {
    // ApiUrl ends with "/", so a URL written `<ApiUrl>/notifications/app-store/A` asks for //notifications/...
    const notification = await send('POST', `//notifications/app-store/${app.appId}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signedPayload: 'not.a.jws' }),
    });
    expect(notification.status).toBe(400);
    expect(notification.text).toContain('INVALID_NOTIFICATION');
    expect(notification.text).not.toContain('/app-store/');
    const listed = await send('GET', `/${SUBSCRIPTIONS_BASE}//?limit=1`, {
      headers: { authorization: `Bearer ${app.secretKey}` },
    });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.text).data).toEqual([]);
  });
});

describe('function timeout in the local gateway', () => {
  const slow: Route[] = [
    {
      name: 'SlowSubscriptions',
      api: 'subscriptions',
      method: 'GET',
      path: `${SUBSCRIPTIONS_BASE}/slow`,
      handler: 'test/support/slow-handler.ts',
      table: [],
    },
    {
      name: 'SlowMobile',
      api: 'mobile',
      method: 'GET',
      path: '/slow',
      handler: 'test/support/slow-handler.ts',
      table: [],
    },
  ];
  let gateway: LocalGateway;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0, routes: slow, functionTimeoutMs: 200 });
  });
  afterAll(async () => {
    await gateway?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a handler within its timeout answers as it says', async () => {
    const res = await fetch(`${gateway.url}/slow?delay_ms=10`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slept_ms: 10 });
  });

  it('a handler past its timeout is a 502 INTERNAL_ERROR at the timeout, as API Gateway answers for a timed-out Lambda', async () => {
    // The local runtime logs on console.error: captured here and asserted below, not printed.
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    const started = Date.now();
    // The handler would answer after 3 s: the 502 comes at the 200 ms timeout, long before.
    const sub = await fetch(`${gateway.url}${SUBSCRIPTIONS_BASE}/slow?delay_ms=3000`);
    const elapsed = Date.now() - started;
    expect(sub.status).toBe(502);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2500);
    const requestId = sub.headers.get('x-request-id');
    expect(await sub.json()).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal server error', request_id: requestId },
    });
    const mobile = await fetch(`${gateway.url}/slow?delay_ms=3000`);
    expect(mobile.status).toBe(502);
    expect(await mobile.json()).toMatchObject({
      status: 'error',
      code: 'INTERNAL_ERROR',
      message: 'Internal server error',
    });
    // Each timeout is logged once, as an error naming the function: both routes' (one module, one function).
    const logged = lines.map((line) => JSON.parse(line) as { level: string; message: string });
    expect(logged).toEqual([
      expect.objectContaining({ level: 'ERROR', message: 'gateway: SlowSubscriptions timed out after 200 ms' }),
      expect.objectContaining({ level: 'ERROR', message: 'gateway: SlowSubscriptions timed out after 200 ms' }),
    ]);
  });
});

describe('one function per handler module in the local gateway, as deployed', () => {
  const shared = (name: string, path: string): Route => ({
    name,
    api: 'mobile',
    method: 'GET',
    path,
    handler: 'test/support/function-name-handler.ts',
    table: [],
  });
  let gateway: LocalGateway;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0, routes: [shared('Echo', '/echo'), shared('EchoV2', '/v2/echo')] });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('invokes the one function, named by the first route, for the V1 and the V2 path, each with its own resource', async () => {
    for (const resource of ['/echo', '/v2/echo']) {
      const res = await fetch(`${gateway.url}${resource}`);
      expect(await res.json(), resource).toEqual({ function_name: 'Echo', resource });
    }
  });

  it('refuses to start with routes of one module that need different grants', async () => {
    await expect(
      startGateway({
        port: 0,
        routes: [shared('Echo', '/echo'), { ...shared('EchoV2', '/v2/echo'), table: ['Query'] }],
      }),
    ).rejects.toThrow('Echo and EchoV2 share test/support/function-name-handler.ts but not their grants');
  });
});
