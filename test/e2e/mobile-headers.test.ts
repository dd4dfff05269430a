import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';

const { request } = useGateway();

const MOBILE_ROUTES = ROUTES.filter((route) => route.api === 'mobile');

/**
 * The headers the spec's "Common request headers" table marks required (besides X-API-KEY, and
 * Content-Type, which only a body needs), written out, not read from MOBILE_HEADER_RULES.
 */
const COMMON = ['x-user-id', 'user-agent', 'x-app-id', 'x-platform', 'x-version', 'accept'];
/** The spec's segment-info example sends only X-API-KEY, X-USER-ID and X-APP-ID. */
const IDENTITY = ['x-user-id', 'x-app-id'];
/**
 * What the DingYue iOS SDK sets on every call besides X-API-KEY (DingyueIO/DingYue_iOS_SDK 0.3.16,
 * DingYue_iOS_SDK/Classes/OpenAPIs/APIs/SessionsAPI.swift:137-145, as every other builder): no
 * User-Agent and no Accept of its own; Content-Type with a body.
 */
const DINGYUE = ['x-user-id', 'x-app-id', 'x-platform', 'x-version'];
const DINGYUE_WITH_BODY = [...DINGYUE, 'content-type'];
const REQUIRED: Record<string, string[]> = {
  'POST /receipt/verify/first': COMMON,
  'POST /receipt/verify/recover': COMMON,
  'POST /users/report/events': COMMON,
  'POST /sessions/report': COMMON,
  'POST /order/report': COMMON,
  'POST /conversion/report': COMMON,
  'POST /report/global_switch': COMMON,
  'POST /report/{type}': COMMON,
  'PUT /users/attribute/update': COMMON,
  'POST /v2/users/report/events': COMMON,
  'POST /v2/sessions/report': COMMON,
  'POST /v2/order/report': COMMON,
  'POST /v2/conversion/report': COMMON,
  'POST /v2/report/global_switch': COMMON,
  'POST /v2/report/{type}': COMMON,
  'PUT /v2/users/attribute/update': COMMON,
  'POST /attribution/report': COMMON,
  'POST /searchads/report': COMMON,
  'GET /segment/info': IDENTITY,
  'GET /adsinfo/{platform}/{app_id}/{store_id}': COMMON,
  'POST /users/custom_properties/set': COMMON,
  'GET /users/customer_info': COMMON,
  'GET /v2/users/customer_info': COMMON,
  'GET /offerings': COMMON,
  'GET /v2/offerings': COMMON,
  'POST /dingyue/sessions/report': DINGYUE_WITH_BODY,
  'POST /dingyue/receipt/verify/first': DINGYUE_WITH_BODY,
  'POST /dingyue/receipt/verify/recover': DINGYUE_WITH_BODY,
  'POST /dingyue/users/report/events': DINGYUE_WITH_BODY,
  'POST /dingyue/report/{type}': DINGYUE_WITH_BODY,
  'PUT /dingyue/users/attribute/update': DINGYUE_WITH_BODY,
  'POST /dingyue/users/custom_properties/set': DINGYUE_WITH_BODY,
  'POST /dingyue/conversion/report': DINGYUE_WITH_BODY,
  'POST /dingyue/attribution/report': DINGYUE_WITH_BODY,
  'POST /dingyue/searchads/report': DINGYUE_WITH_BODY,
  'GET /dingyue/segment/info': DINGYUE,
  'POST /dingyue/report/global_switch': DINGYUE_WITH_BODY,
};
const nameOf = (route: (typeof ROUTES)[number]) => `${route.method} ${route.path}`;
const DISPLAY: Record<string, string> = {
  'x-user-id': 'X-USER-ID',
  'user-agent': 'User-Agent',
  'x-app-id': 'X-APP-ID',
  'x-platform': 'X-PLATFORM',
  'x-version': 'X-VERSION',
  accept: 'Accept',
  'content-type': 'Content-Type',
};
const inDingYue = (route: (typeof ROUTES)[number]) => route.path.startsWith('/dingyue/');

it('the table names every mobile route, and only those', () => {
  expect(MOBILE_ROUTES.map(nameOf).sort()).toEqual(Object.keys(REQUIRED).sort());
});

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
      // The DingYue SDK's envelope keeps the status of a refusal of the key.
      expect(missing.body).toMatchObject({
        status: inDingYue(route) ? 'fail' : 'error',
        code: 'MISSING_REQUIRED_HEADER',
      });
      const otherApp = await request(route.method, pathOf(route.path), {
        headers: { ...all(), 'x-app-id': 'app_0000000000000000' },
        body,
      });
      expect(otherApp.status).toBe(403);
      expect(otherApp.body).toMatchObject({ status: inDingYue(route) ? 'fail' : 'error', code: 'FORBIDDEN' });
    },
  );

  it.each(
    MOBILE_ROUTES.flatMap((route) =>
      (REQUIRED[nameOf(route)] ?? []).map(
        (header) => [`${route.method} ${route.path} without ${header}`, route, header] as const,
      ),
    ),
  )('%s is 400 MISSING_REQUIRED_HEADER naming it (under /dingyue a 200 "fail")', async (_name, route, header) => {
    // fetch adds its own User-Agent and Accept when they are absent: an empty value is "missing" too.
    const headers: Record<string, string> = { ...all(), [header]: '' };
    const res = await request(route.method, pathOf(route.path), {
      headers,
      body: route.method === 'GET' ? undefined : {},
    });
    if (inDingYue(route)) {
      // The SDK reads no body of a non-2xx answer: a request it can fix is refused in a 200.
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'fail',
        code: 'MISSING_REQUIRED_HEADER',
        errmsg: expect.stringContaining(DISPLAY[header]!),
      });
      return;
    }
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 'error',
      code: 'MISSING_REQUIRED_HEADER',
      message: expect.stringContaining(DISPLAY[header]!),
    });
  });

  it.each(MOBILE_ROUTES.filter(inDingYue).map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s needs neither User-Agent nor Accept (the DingYue SDK sends neither)',
    async (_name, route) => {
      const res = await request(route.method, pathOf(route.path), {
        headers: { ...all(), 'user-agent': '', accept: '' },
        body: route.method === 'GET' ? undefined : {},
      });
      // Past the header rule: refused, if at all, for its empty body or an unknown user.
      expect(res.status).toBe(200);
      expect(res.body.code).not.toBe('MISSING_REQUIRED_HEADER');
    },
  );

  it('segment/info needs none of the other common headers', async () => {
    const res = await request('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-user-id': 'never-seen', 'x-app-id': app.appId },
    });
    expect(res.body.code).toBe('USER_NOT_FOUND');
  });
});
