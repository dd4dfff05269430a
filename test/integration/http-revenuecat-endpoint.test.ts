/**
 * The edge of RevenueCat's dialect (lib/http/endpoint.ts `revenuecatEndpoint` and
 * `revenuecatKeylessEndpoint`, lib/http/revenuecat.ts), called in-process with the events API
 * Gateway sends and real keys in DynamoDB Local: the Bearer sdk key (and purchases-js's `rcb_`),
 * the user a declaration names, X-Platform, the customer info's ETag and 304, 204s, the CORS
 * origin and the RevenueCat envelope. The e2e suites replay the SDKs through the gateway; these
 * name each rule on its own and hold lib/http in the mutation run (bench/support/mutation-scopes.ts).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { AppError } from '../../lib/core/errors.js';
import { logger } from '../../lib/core/logger.js';
import { setUserTokenRequired } from '../../lib/data/api-keys.js';
import type { RevenueCatCustomerInfo } from '../../lib/domain/revenuecat-customer.js';
import { signUserToken } from '../../lib/domain/user-token.js';
import { revenuecatEndpoint, revenuecatKeylessEndpoint } from '../../lib/http/endpoint.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { apiEvent, type EventParts, invoke } from '../support/lambda-events.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp([]);
});
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('SILENT');
});

const params = z.strictObject({ app_user_id: z.string() });
const bearer = (key = app.sdkKey) => ({ authorization: `Bearer ${key}` });
const call = (handler: Parameters<typeof invoke>[0], parts: EventParts = {}) =>
  invoke(handler, apiEvent({ ...parts, headers: { ...bearer(), ...parts.headers } }));

/** A customer info as the SDKs decode it, for `user` as of `at`. */
const customerInfo = (user: string, at: number): RevenueCatCustomerInfo =>
  ({
    request_date: new Date(at).toISOString(),
    request_date_ms: at,
    subscriber: { original_app_user_id: user, subscriptions: {}, non_subscriptions: {}, entitlements: {} },
  }) as unknown as RevenueCatCustomerInfo;

describe('revenuecatEndpoint', () => {
  const echo = revenuecatEndpoint({ params, user: 'path' }, async ({ caller }) => ({
    body: { app: caller.appId, user: caller.userId ?? null },
  }));

  it("takes the sdk key as a Bearer token, and purchases-js's rcb_ form of it; the user from the path", async () => {
    for (const key of [app.sdkKey, `rcb_${app.sdkKey}`]) {
      expect(await call(echo, { headers: bearer(key), pathParameters: { app_user_id: 'u-1' } })).toMatchObject({
        status: 200,
        headers: { 'X-Request-Id': 'req-1', 'Access-Control-Allow-Origin': '*' },
        body: { app: app.appId, user: 'u-1' },
      });
    }
  });

  it("takes the user from the body, or the logIn body's new_app_user_id", async () => {
    const body = z.object({ app_user_id: z.string(), new_app_user_id: z.optional(z.string()) });
    const fromBody = revenuecatEndpoint({ body, user: 'body' }, async ({ caller }) => ({
      body: { user: caller.userId },
    }));
    const logIn = revenuecatEndpoint({ body, user: 'body.new_app_user_id' }, async ({ caller }) => ({
      body: { user: caller.userId },
    }));
    const parts = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_user_id: 'anon', new_app_user_id: 'known' }),
    };
    expect((await call(fromBody, parts)).body).toEqual({ user: 'anon' });
    expect((await call(logIn, parts)).body).toEqual({ user: 'known' });
  });

  it('refuses a missing, malformed or unknown key with 401 and code 7225, in the RevenueCat envelope, with the CORS origin', async () => {
    const without = await invoke(echo, apiEvent({ pathParameters: { app_user_id: 'u' } }));
    expect(without).toMatchObject({
      status: 401,
      headers: { 'Access-Control-Allow-Origin': '*', 'X-Request-Id': 'req-1' },
      body: { code: 7225, error: 'MISSING_REQUIRED_HEADER' },
    });
    for (const authorization of ['Basic abc', 'Bearer', `Bearer ${app.sdkKey} extra`]) {
      const res = await call(echo, { headers: { authorization }, pathParameters: { app_user_id: 'u' } });
      expect({ status: res.status, code: res.body.code, error: res.body.error }, authorization).toEqual({
        status: 401,
        code: 7225,
        error: 'INVALID_API_KEY',
      });
    }
    const unknown = await call(echo, { headers: bearer('pk_unknown'), pathParameters: { app_user_id: 'u' } });
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 401, code: 7225 });
    // The secret key is no sdk key.
    const secret = await call(echo, { headers: bearer(app.secretKey), pathParameters: { app_user_id: 'u' } });
    expect(secret.status).toBe(401);
  });

  it('reads X-Platform only where declared, refusing one it does not verify with 400 (7226)', async () => {
    const withPlatform = revenuecatEndpoint({ params, user: 'path', platform: true }, async ({ caller }) => ({
      body: { platform: caller.platform },
    }));
    const at = (platform?: string) =>
      call(withPlatform, { headers: platform ? { 'x-platform': platform } : {}, pathParameters: { app_user_id: 'u' } });
    expect((await at('iOS')).body).toEqual({ platform: 'ios' });
    expect((await at('android')).body).toEqual({ platform: 'android' });
    for (const platform of [undefined, 'windows']) {
      const res = await at(platform);
      expect({ status: res.status, code: res.body.code }, String(platform)).toEqual({ status: 400, code: 7226 });
    }
    // Not declared: no header needed, and none read.
    expect((await call(echo, { pathParameters: { app_user_id: 'u' } })).status).toBe(200);
  });

  it('answers a 204 with an empty body, and a declared 201', async () => {
    const noContent = revenuecatEndpoint({ statuses: [204] }, async () => ({ status: 204 }));
    const res = await call(noContent);
    expect({ status: res.status, body: res.body }).toEqual({ status: 204, body: undefined });
    const created = revenuecatEndpoint({ params, user: 'path', statuses: [200, 201] }, async () => ({
      status: 201,
      body: { ok: true },
    }));
    expect((await call(created, { pathParameters: { app_user_id: 'u' } })).status).toBe(201);
  });

  it("answers a customer info with its ETag and the server's time, and a GET holding that ETag with 304", async () => {
    const info = revenuecatEndpoint({ params, user: 'path' }, async ({ caller }) => ({
      customerInfo: customerInfo(caller.userId, 1_733_300_000_000),
    }));
    const first = await call(info, { pathParameters: { app_user_id: 'u-etag' } });
    const etag = first.headers['X-RevenueCat-ETag']!;
    expect(first).toMatchObject({
      status: 200,
      headers: {
        'X-RevenueCat-ETag': expect.stringMatching(/^\S+$/),
        'X-RevenueCat-Request-Time': '1733300000000',
        'Cache-Control': 'private, no-cache',
      },
    });
    const held = await call(info, {
      headers: { 'x-revenuecat-etag': ` ${etag} ` },
      pathParameters: { app_user_id: 'u-etag' },
    });
    expect({ status: held.status, etag: held.headers['X-RevenueCat-ETag'], body: held.body }).toEqual({
      status: 304,
      etag,
      body: undefined,
    });
    // An empty ETag is a client without a copy; another user's ETag is not this one's.
    const empty = await call(info, { headers: { 'x-revenuecat-etag': '' }, pathParameters: { app_user_id: 'u-etag' } });
    expect(empty.status).toBe(200);
    const other = await call(info, { headers: { 'x-revenuecat-etag': etag }, pathParameters: { app_user_id: 'u-2' } });
    expect(other.status).toBe(200);
    // A POST is never a 304: the SDKs would replay a cached answer to another purchase.
    const posted = await call(info, {
      method: 'POST',
      headers: { 'x-revenuecat-etag': etag },
      pathParameters: { app_user_id: 'u-etag' },
    });
    expect(posted.status).toBe(200);
  });

  it('requires a valid X-User-Token for the named user where the app requires user tokens (7224)', async () => {
    const own = await createTestApp([]);
    const { issued_secret: secret } = await setUserTokenRequired(own.appId, true);
    const user = revenuecatEndpoint({ params, user: 'path' }, async ({ caller }) => ({
      body: { user: caller.userId },
    }));
    const about = revenuecatEndpoint({}, async ({ caller }) => ({ body: { user: caller.userId ?? null } }));
    const as = (headers: Record<string, string>, handler = user) =>
      call(handler, { headers: { ...bearer(own.sdkKey), ...headers }, pathParameters: { app_user_id: 'u-1' } });
    const without = await as({});
    expect({ status: without.status, code: without.body.code }).toEqual({ status: 401, code: 7224 });
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = signUserToken(secret!, own.appId, 'u-1', exp);
    expect((await as({ 'x-user-token': token })).body).toEqual({ user: 'u-1' });
    const forAnother = signUserToken(secret!, own.appId, 'u-2', exp);
    expect((await as({ 'x-user-token': forAnother })).status).toBe(401);
    // A call about no user needs no token.
    expect((await as({}, about)).body).toEqual({ user: null });
  });

  it('answers what may succeed later with 503 and Retry-After, so the SDK keeps the purchase', async () => {
    const busy = revenuecatEndpoint({}, async () => {
      throw new AppError('CONCURRENT_MODIFICATION', 'changing');
    });
    const res = await call(busy);
    expect({ status: res.status, retry: res.headers['Retry-After'], code: res.body.code }).toEqual({
      status: 503,
      retry: '1',
      code: 7638,
    });
  });
});

describe('revenuecatKeylessEndpoint', () => {
  const health = revenuecatKeylessEndpoint({}, { ok: 1 });
  const availability = revenuecatKeylessEndpoint({ params }, { report_logs: false });

  it('answers its one answer with no key at all, with the CORS origin and the request id', async () => {
    expect(await invoke(health, apiEvent())).toMatchObject({
      status: 200,
      headers: { 'Access-Control-Allow-Origin': '*', 'X-Request-Id': 'req-1' },
      body: { ok: 1 },
    });
    // A key, even a wrong one, changes nothing: none is read.
    expect((await invoke(health, apiEvent({ headers: bearer('pk_unknown') }))).body).toEqual({ ok: 1 });
    expect((await invoke(availability, apiEvent({ pathParameters: { app_user_id: 'u' } }))).body).toEqual({
      report_logs: false,
    });
  });

  it('refuses a query, a body that is not JSON and a path its declaration refuses, in the RevenueCat envelope', async () => {
    const query = await invoke(health, apiEvent({ query: { x: '1' } }));
    expect({ status: query.status, code: query.body.code }).toEqual({ status: 400, code: 7226 });
    const body = await invoke(health, apiEvent({ headers: { 'content-type': 'application/json' }, body: '{' }));
    expect(body.status).toBe(400);
    const path = await invoke(availability, apiEvent({ pathParameters: { app_user_id: 'u', extra: 'x' } }));
    expect({ status: path.status, cors: path.headers['Access-Control-Allow-Origin'] }).toEqual({
      status: 400,
      cors: '*',
    });
  });
});
