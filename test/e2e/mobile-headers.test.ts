import { beforeAll, describe, expect, it } from 'vitest';
import { MOBILE_HEADER_RULES } from '../../lib/http/mobile-headers.js';
import { ROUTES } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';

const { request } = useGateway();

const MOBILE_ROUTES = ROUTES.filter((route) => route.api === 'mobile');
const DISPLAY: Record<string, string> = {
  'x-user-id': 'X-USER-ID',
  'user-agent': 'User-Agent',
  'x-app-id': 'X-APP-ID',
  'x-platform': 'X-PLATFORM',
  'x-version': 'X-VERSION',
  accept: 'Accept',
};

describe('mobile header rules, for every mobile route', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const pathOf = (path: string) =>
    path
      .replace('{type}', 'device_info')
      .replace('{platform}', 'ios')
      .replace('{app_id}', app.appId)
      .replace('{store_id}', '1');
  const all = () => mobileHeaders(app, 'header-user');

  it.each(MOBILE_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no X-API-KEY is 401, another app id is 403',
    async (_name, route) => {
      const { 'x-api-key': _key, ...withoutKey } = all();
      const body = route.method === 'GET' ? undefined : {};
      const missing = await request(route.method, pathOf(route.path), { headers: withoutKey, body });
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ status: 'error', code: 'MISSING_REQUIRED_HEADER' });
      const otherApp = await request(route.method, pathOf(route.path), {
        headers: { ...all(), 'x-app-id': 'app_0000000000000000' },
        body,
      });
      expect(otherApp.status).toBe(403);
    },
  );

  it.each(
    MOBILE_ROUTES.flatMap((route) =>
      MOBILE_HEADER_RULES[route.mobileHeaders ?? 'common'].map(
        (header) => [`${route.method} ${route.path} without ${header}`, route, header] as const,
      ),
    ),
  )('%s is 400 MISSING_REQUIRED_HEADER naming it', async (_name, route, header) => {
    // fetch adds its own User-Agent and Accept when they are absent: an empty value is "missing" too.
    const headers: Record<string, string> = { ...all(), [header]: '' };
    const res = await request(route.method, pathOf(route.path), {
      headers,
      body: route.method === 'GET' ? undefined : {},
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 'error',
      code: 'MISSING_REQUIRED_HEADER',
      message: expect.stringContaining(DISPLAY[header]!),
    });
  });

  it('segment/info needs none of the other common headers', async () => {
    const res = await request('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-user-id': 'never-seen', 'x-app-id': app.appId },
    });
    expect(res.body.code).toBe('USER_NOT_FOUND');
  });
});
