/**
 * The HTTP edge every handler shares (lib/http/endpoint.ts), called in-process with the events API
 * Gateway sends and real keys in DynamoDB Local: request ids, query and body rules, the three
 * APIs' envelopes and their logging. The e2e suites reach the same code through the local gateway;
 * these name each rule on its own and hold lib/http in the mutation run (bench/support/mutation-scopes.ts).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { AppError } from '../../lib/core/errors.js';
import { logger } from '../../lib/core/logger.js';
import { setUserTokenRequired } from '../../lib/data/api-keys.js';
import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { signUserToken } from '../../lib/domain/user-token.js';
import { conditionalResponse } from '../../lib/http/conditional.js';
import {
  MAX_BODY_BYTES,
  mobileEndpoint,
  notificationEndpoint,
  subscriptionsEndpoint,
} from '../../lib/http/endpoint.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { apiEvent, captureLogEntries, type EventParts, invoke, LAMBDA_REQUEST_ID } from '../support/lambda-events.js';
import { mobileHeaders } from '../support/mobile.js';

const CONSOLE_ORIGIN = 'https://console.example.test';

/** A JSON body of exactly `bytes` bytes. */
const jsonOfBytes = (bytes: number) => `{"a":"${'x'.repeat(bytes - 8)}"}`;

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp([]);
});
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('SILENT');
});

describe('subscriptionsEndpoint', () => {
  const bearer = () => ({ authorization: `Bearer ${app.secretKey}` });
  const call = (handler: Parameters<typeof invoke>[0], parts: EventParts = {}) =>
    invoke(handler, apiEvent({ ...parts, headers: { ...bearer(), ...parts.headers } }));
  const echo = subscriptionsEndpoint(
    { query: z.optional(z.object({ status: z.optional(z.string()) })), body: z.object({ a: z.optional(z.string()) }) },
    async ({ query, body }) => ({ body: { query, body } }),
  );

  it('answers with the reply status, else 200, with X-Request-Id and the reply headers', async () => {
    const byReply = subscriptionsEndpoint({ statuses: [201, 202] }, async () => ({
      body: { ok: true },
      status: 202,
      headers: { Location: '/v1/x' },
    }));
    const byDefault = subscriptionsEndpoint({}, async () => ({ body: { ok: true } }));

    expect(await call(byReply)).toMatchObject({
      status: 202,
      body: { ok: true },
      headers: { Location: '/v1/x', 'X-Request-Id': 'req-1' },
    });
    expect(await call(byDefault)).toMatchObject({
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
  });

  it('refuses an sdk key, a missing key and a malformed Authorization with 401, saying which', async () => {
    const plain = subscriptionsEndpoint({}, async () => ({ body: {} }));
    expect(await invoke(plain, apiEvent({ headers: { authorization: `Bearer ${app.sdkKey}` } }))).toMatchObject({
      status: 401,
      body: { error: { code: 'INVALID_API_KEY', message: 'API key is invalid, revoked, or not a secret key' } },
    });
    expect(await invoke(plain, apiEvent())).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer' },
      body: { error: { code: 'MISSING_REQUIRED_HEADER' } },
    });
    expect(await invoke(plain, apiEvent({ headers: { authorization: app.secretKey } }))).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer' },
      body: { error: { code: 'INVALID_API_KEY', message: 'Authorization header must be "Bearer <secret key>"' } },
    });
  });

  it("takes the request id from the request context, or Lambda's when the event has none", async () => {
    const seen: string[] = [];
    const handler = subscriptionsEndpoint({}, async ({ requestId }) => {
      seen.push(requestId);
      return { body: {} };
    });
    expect((await call(handler, { requestId: 'req-ctx' })).headers['X-Request-Id']).toBe('req-ctx');
    expect((await call(handler, { requestId: null })).headers['X-Request-Id']).toBe(LAMBDA_REQUEST_ID);
    expect(seen).toEqual(['req-ctx', LAMBDA_REQUEST_ID]);
  });

  it('carries the RateLimit and CORS headers on a success and on an error thrown by the handler', async () => {
    const missing = subscriptionsEndpoint({}, async () => {
      throw new AppError('SUBSCRIPTION_NOT_FOUND', 'no such thing');
    });
    const ok = await call(echo, { headers: { origin: CONSOLE_ORIGIN } });
    const refused = await call(missing, { headers: { origin: CONSOLE_ORIGIN } });
    for (const answer of [ok, refused]) {
      expect(answer.headers['Access-Control-Allow-Origin']).toBe(CONSOLE_ORIGIN);
      expect(answer.headers.RateLimit).toMatch(/^"standard";r=\d+;t=\d+$/);
      expect(answer.headers['RateLimit-Policy']).toBeDefined();
    }
    expect(refused).toMatchObject({
      status: 404,
      body: { error: { code: 'SUBSCRIPTION_NOT_FOUND', message: 'no such thing' } },
    });
    expect(refused.headers['X-Request-Id']).toBe('req-1');
  });

  it('refuses a query parameter given twice, naming it; once is fine', async () => {
    const twice = await call(echo, { query: { status: 'expired' }, multiQuery: { status: ['active', 'expired'] } });
    expect(twice).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'INVALID_PARAMETER',
          message: 'query parameter status is given more than once',
          details: [{ path: 'query.status', message: 'must be given once' }],
        },
      },
    });
    const once = await call(echo, {
      query: { status: 'active' },
      multiQuery: { status: ['active'], other: undefined },
    });
    expect(once).toMatchObject({ status: 200, body: { query: { status: 'active' } } });
  });

  it('refuses any query parameter on an endpoint that takes none; a parameter without a value is none', async () => {
    const plain = subscriptionsEndpoint({}, async () => ({ body: { ok: true } }));
    expect(await call(plain, { query: { page: '2' } })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_PARAMETER', message: 'this endpoint takes no query parameters' } },
    });
    expect((await call(plain, { query: { page: undefined } })).status).toBe(200);
  });

  it('treats an empty body as none, and still validates it against the schema', async () => {
    const required = subscriptionsEndpoint({ body: z.object({ name: z.string() }) }, async ({ body }) => ({ body }));
    for (const body of ['', null]) {
      // No Content-Type needed without a body; the schema sees {}.
      expect(await call(echo, { method: 'POST', body })).toMatchObject({ status: 200, body: { body: {} } });
      expect(await call(required, { method: 'POST', body })).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_PARAMETER', details: [{ path: 'body.name' }] } },
      });
    }
  });

  it('accepts a body of exactly 1 MB and refuses one byte more with 413, counting decoded bytes of a base64 body', async () => {
    const json = { 'content-type': 'application/json' };
    const exact = jsonOfBytes(MAX_BODY_BYTES);
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    expect((await call(echo, { method: 'POST', headers: json, body: exact })).status).toBe(200);
    expect(await call(echo, { method: 'POST', headers: json, body: jsonOfBytes(MAX_BODY_BYTES + 1) })).toMatchObject({
      status: 413,
      body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds the limit of 1048576 bytes (1 MB)' } },
    });
    // As base64 the 1 MB body is a third longer; what counts is the decoded size.
    const encoded = Buffer.from(exact).toString('base64');
    expect(encoded.length).toBeGreaterThan(MAX_BODY_BYTES);
    expect((await call(echo, { method: 'POST', headers: json, body: encoded, isBase64Encoded: true })).status).toBe(
      200,
    );
  });

  it('takes a body only as application/json (any case, with parameters)', async () => {
    const send = (contentType?: string) =>
      call(echo, {
        method: 'POST',
        headers: contentType === undefined ? {} : { 'content-type': contentType },
        body: '{"a":"b"}',
      });
    for (const accepted of ['application/json', 'Application/JSON', 'application/json; charset=utf-8']) {
      expect(await send(accepted)).toMatchObject({ status: 200, body: { body: { a: 'b' } } });
    }
    for (const refused of [undefined, 'text/plain', 'x-application/json', 'application/jsonp']) {
      expect(await send(refused)).toMatchObject({
        status: 400,
        body: {
          error: {
            code: 'INVALID_PARAMETER',
            message: 'Content-Type must be application/json',
            details: [{ path: 'headers.content-type', message: 'must be application/json' }],
          },
        },
      });
    }
  });

  it('a path parameter that fails its schema is the spec’s 404 where it names a resource, else a 400', async () => {
    const params = z.object({ id: z.string().check(z.regex(/^sub_[0-9a-f]{24}$/)) });
    const notFound = subscriptionsEndpoint(
      { params, paramsNotFound: 'SUBSCRIPTION_NOT_FOUND' },
      async ({ params }) => ({
        body: params,
      }),
    );
    const invalid = subscriptionsEndpoint({ params }, async ({ params }) => ({ body: params }));
    const id = `sub_${'a'.repeat(24)}`;
    expect(await call(notFound, { pathParameters: { id } })).toMatchObject({ status: 200, body: { id } });
    expect((await call(notFound, { pathParameters: { id: 'nope' } })).body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    expect((await call(notFound, { pathParameters: null })).status).toBe(404);
    expect(await call(invalid, { pathParameters: null })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_PARAMETER', details: [{ path: 'params.id' }] } },
    });
  });

  it('answers a conditional endpoint with an ETag, and 304 when If-None-Match holds it', async () => {
    const conditional = subscriptionsEndpoint({ conditional: conditionalResponse }, async () => ({
      body: { same: true },
    }));
    const first = await call(conditional);
    expect(first.headers.ETag).toMatch(/^"[\w-]{27}"$/);
    const again = await call(conditional, { headers: { 'if-none-match': first.headers.ETag! } });
    expect(again).toMatchObject({ status: 304, body: undefined });
    expect((await call(echo, { headers: { 'if-none-match': first.headers.ETag! } })).headers.ETag).toBeUndefined();
  });

  it('logs a 4xx of its callers nothing, a 5xx with its cause, and tags lines written meanwhile with the request', async () => {
    const entries = captureLogEntries('INFO');
    const refusing = subscriptionsEndpoint({}, async () => {
      logger.info('inside');
      throw new AppError('SUBSCRIPTION_NOT_FOUND');
    });
    const throwingString = subscriptionsEndpoint({}, async () => {
      throw 'not an Error';
    });
    const served = subscriptionsEndpoint({}, async () => ({ body: {} }));
    await call(served, { requestId: 'req-served' });
    logger.info('after a success');
    await call(refusing, { resource: '/v1/things/{id}', requestId: 'req-a' });
    await call(throwingString, { requestId: 'req-b' });
    logger.info('after');

    expect(entries.find((e) => e.message === 'inside')).toMatchObject({
      request_id: 'req-a',
      route: '/v1/things/{id}',
    });
    expect(entries.filter((e) => e.level !== 'INFO')).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'request failed',
        request_id: 'req-b',
        code: 'INTERNAL_ERROR',
        error: 'not an Error',
      }),
    ]);
    for (const message of ['after a success', 'after']) {
      const after = entries.find((e) => e.message === message);
      expect(after).toBeDefined();
      expect(after).not.toHaveProperty('request_id');
      expect(after).not.toHaveProperty('route');
    }
  });

  it('a retryable 4xx stays what it is on the subscription API', async () => {
    const limited = subscriptionsEndpoint({}, async () => {
      throw new AppError('RATE_LIMITED', 'slow down', { retryable: true, headers: { 'Retry-After': '7' } });
    });
    expect(await call(limited)).toMatchObject({
      status: 429,
      headers: { 'Retry-After': '7' },
      body: { error: { code: 'RATE_LIMITED', message: 'slow down', retryable: true } },
    });
  });
});

describe('mobileEndpoint', () => {
  const REPORT = '/v2/users/report/events';
  // Echoes the caller the wrapper built, as data no declaration names (`never`: an endpoint answers its declared payload).
  const reply = mobileEndpoint({ body: z.object({ n: z.optional(z.number()) }) }, async ({ caller, body }) => ({
    data: { user: caller.userId, platform: caller.platform, sdk: caller.sdkVersion, body } as never,
  }));
  const call = (
    handler: Parameters<typeof invoke>[0],
    headers: Record<string, string>,
    parts: Omit<EventParts, 'headers'> = {},
  ) => invoke(handler, apiEvent({ resource: REPORT, method: 'POST', ...parts, headers }));
  // mobileHeaders names them in lower case, as the header normaliser leaves them.
  const headersOf = (overrides: Record<string, string | undefined> = {}) => mobileHeaders(app, 'u-1', overrides);

  it('answers {status, message, data}: message OK unless the handler gives one, data only when there is some', async () => {
    const noData = mobileEndpoint({}, async () => ({}));
    const withMessage = mobileEndpoint({}, async () => ({ message: 'Recorded' }));
    expect(await call(reply, headersOf())).toMatchObject({
      status: 200,
      headers: { 'X-Request-Id': 'req-1' },
      body: { status: 'success', message: 'OK', data: { user: 'u-1', platform: 'ios', sdk: '1.0.0' } },
    });
    expect((await call(noData, headersOf())).body).toEqual({ status: 'success', message: 'OK' });
    expect((await call(withMessage, headersOf())).body).toEqual({ status: 'success', message: 'Recorded' });
  });

  it('answers a conditional endpoint with an ETag, and 304 when If-None-Match holds it', async () => {
    const conditional = mobileEndpoint({ conditional: conditionalResponse, response: 'ReportedEvents' }, async () => ({
      data: { accepted: 1 },
    }));
    const first = await call(conditional, headersOf());
    expect(first).toMatchObject({ status: 200, body: { data: { accepted: 1 } } });
    const again = await call(conditional, { ...headersOf(), 'if-none-match': first.headers.ETag! });
    expect(again).toMatchObject({ status: 304, body: undefined, headers: { ETag: first.headers.ETag } });
  });

  it('refuses a missing or blank X-API-KEY with 401, and trims the key it is given', async () => {
    for (const key of [undefined, '  ']) {
      expect(await call(reply, headersOf({ 'x-api-key': key }))).toMatchObject({
        status: 401,
        body: { status: 'error', code: 'MISSING_REQUIRED_HEADER', message: 'Missing required header X-API-KEY' },
      });
    }
    expect((await call(reply, headersOf({ 'x-api-key': ` ${app.sdkKey} ` }))).status).toBe(200);
    expect(await call(reply, headersOf({ 'x-api-key': app.secretKey }))).toMatchObject({
      status: 401,
      body: { status: 'error', code: 'INVALID_API_KEY', message: 'API key is invalid or revoked' },
    });
  });

  it("refuses an X-APP-ID that is not the key's app with 403, carrying the policy but no user count", async () => {
    const other = await createTestApp([]);
    const refused = await call(reply, headersOf({ 'x-app-id': other.appId }));
    expect(refused).toMatchObject({
      status: 403,
      body: { status: 'error', code: 'FORBIDDEN', message: 'X-APP-ID is not the app of this API key' },
    });
    expect(refused.headers['RateLimit-Policy']).toBeDefined();
    expect(refused.headers.RateLimit).toBeUndefined();
    expect((await call(reply, headersOf())).headers.RateLimit).toBeDefined();
  });

  it('requires Content-Type only when there is a body', async () => {
    const withoutType = headersOf();
    delete withoutType['content-type'];
    for (const body of [null, '']) expect((await call(reply, withoutType, { body })).status).toBe(200);
    expect(await call(reply, withoutType, { body: '{"n":1}' })).toMatchObject({
      status: 400,
      body: { code: 'MISSING_REQUIRED_HEADER', message: 'Missing required header Content-Type' },
    });
    expect(
      await call(reply, { ...withoutType, 'content-type': 'application/json' }, { body: '{"n":1}' }),
    ).toMatchObject({ status: 200, body: { data: { body: { n: 1 } } } });
  });

  it('refuses a body over 1 MB as a parameter rule (400), as the mobile spec states its limits', async () => {
    const headers = { ...headersOf(), 'content-type': 'application/json' };
    expect(await call(reply, headers, { body: jsonOfBytes(MAX_BODY_BYTES + 1) })).toMatchObject({
      status: 400,
      body: { status: 'error', code: 'INVALID_PARAMETER' },
    });
  });

  it('asks an endpoint declaring the identity rule for its headers only, any other for all the common ones', async () => {
    const identity = { 'x-api-key': app.sdkKey, 'x-user-id': 'u-1', 'x-app-id': app.appId };
    const identified = mobileEndpoint({ headers: 'identity' }, async () => ({}));
    expect((await call(identified, identity, { resource: '/segment/info', method: 'GET' })).status).toBe(200);
    expect(await call(reply, identity)).toMatchObject({
      status: 400,
      body: { code: 'MISSING_REQUIRED_HEADER', message: 'Missing required header User-Agent' },
    });
  });

  it('for an app requiring user tokens, refuses a request without a valid X-USER-TOKEN and serves one with it', async () => {
    const strict = await createTestApp([]);
    const { issued_secret: secret } = await setUserTokenRequired(strict.appId, true);
    const headers = mobileHeaders(strict, 'u-1');
    expect(await call(reply, headers)).toMatchObject({ status: 401, body: { code: 'MISSING_REQUIRED_HEADER' } });
    const token = signUserToken(secret!, strict.appId, 'u-1', Math.floor(Date.now() / 1000) + 600);
    expect((await call(reply, { ...headers, 'x-user-token': token })).status).toBe(200);
    const otherUser = signUserToken(secret!, strict.appId, 'u-2', Math.floor(Date.now() / 1000) + 600);
    expect(await call(reply, { ...headers, 'x-user-token': otherUser })).toMatchObject({
      status: 401,
      body: { code: 'INVALID_USER_TOKEN' },
    });
    // An app that does not require them takes requests without one.
    expect((await call(reply, headersOf())).status).toBe(200);
  });

  it('says why an X-USER-TOKEN is refused: malformed, for another user, or expired', async () => {
    const noData = mobileEndpoint({}, async () => ({}));
    const strict = await createTestApp([]);
    const { issued_secret: secret } = await setUserTokenRequired(strict.appId, true);
    const headers = mobileHeaders(strict, 'u-1');
    const now = Math.floor(Date.now() / 1000);
    const refusal = async (token: string) => (await call(noData, { ...headers, 'x-user-token': token })).body;
    expect(await refusal('v1.123')).toEqual({
      status: 'error',
      code: 'INVALID_USER_TOKEN',
      message: 'X-USER-TOKEN is not a v1 user token (v1.<exp>.<signature>)',
    });
    expect(await refusal(signUserToken(secret!, strict.appId, 'u-2', now + 600))).toEqual({
      status: 'error',
      code: 'INVALID_USER_TOKEN',
      message: 'X-USER-TOKEN was not issued for this X-USER-ID and app',
    });
    expect(await refusal(signUserToken(secret!, strict.appId, 'u-1', now - 600))).toEqual({
      status: 'error',
      code: 'INVALID_USER_TOKEN',
      message: 'X-USER-TOKEN has expired',
    });
  });
});

describe('notificationEndpoint', () => {
  const received = notificationEndpoint(async ({ appId, body }) => ({
    notification_id: `ntf-${appId}`,
    type: (body as { type: string }).type,
    outcome: 'applied',
  }));
  const post = (handler: Parameters<typeof invoke>[0], parts: EventParts) =>
    invoke(handler, apiEvent({ resource: '/notifications/test-store/{app_id}', method: 'POST', ...parts }));
  const appPath = () => ({ app_id: app.appId });

  it('answers 200 {data} with X-Request-Id and logs the notification', async () => {
    const entries = captureLogEntries('INFO');
    const answer = await post(received, { pathParameters: appPath(), body: '{"type":"RENEWED"}' });
    expect(answer).toMatchObject({
      status: 200,
      headers: { 'X-Request-Id': 'req-1' },
      body: { data: { notification_id: `ntf-${app.appId}`, type: 'RENEWED', outcome: 'applied' } },
    });
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 'INFO', message: 'store notification', app_id: app.appId, type: 'RENEWED' }),
    );
  });

  it('refuses a path without an app, an empty body and a body that is not JSON with 400 INVALID_NOTIFICATION', async () => {
    const refusals: [EventParts, string][] = [
      [{ pathParameters: null, body: '{}' }, 'the path names no app'],
      [{ pathParameters: { app_id: 'not an app id' }, body: '{}' }, 'the path names no app'],
      [{ pathParameters: appPath(), body: null }, 'the body is empty'],
      [{ pathParameters: appPath(), body: '' }, 'the body is empty'],
      [{ pathParameters: appPath(), body: '{"type":' }, 'the body is not JSON'],
    ];
    for (const [parts, message] of refusals) {
      expect(await post(received, parts)).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_NOTIFICATION', message } },
      });
    }
  });

  it('takes a body of exactly 64 KB and refuses one byte more with 413, counting decoded bytes of a base64 body', async () => {
    const exact = `{"type":"RENEWED","pad":"${'x'.repeat(MAX_NOTIFICATION_BYTES - 27)}"}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_NOTIFICATION_BYTES);
    expect((await post(received, { pathParameters: appPath(), body: exact })).status).toBe(200);
    const encoded = Buffer.from(exact).toString('base64');
    expect((await post(received, { pathParameters: appPath(), body: encoded, isBase64Encoded: true })).status).toBe(
      200,
    );
    expect(await post(received, { pathParameters: appPath(), body: `${exact} ` })).toMatchObject({
      status: 413,
      body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'a store notification is at most 65536 bytes (64 KB)' } },
    });
  });

  it('turns a retryable 4xx into a 503 so the store retries, and logs each refusal with its code and reason', async () => {
    const entries = captureLogEntries('INFO');
    const limited = notificationEndpoint(async () => {
      throw new AppError('RATE_LIMITED', 'the store API is throttling us', { retryable: true });
    });
    const invalid = notificationEndpoint(async () => {
      throw new AppError('INVALID_NOTIFICATION', 'the signature does not verify');
    });
    expect(await post(limited, { pathParameters: appPath(), body: '{}', requestId: 'req-retry' })).toMatchObject({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'the store API is throttling us', retryable: true } },
    });
    expect(await post(invalid, { pathParameters: appPath(), body: '{}', requestId: 'req-bad' })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_NOTIFICATION', message: 'the signature does not verify' } },
    });
    expect(entries.filter((e) => e.level !== 'INFO')).toEqual([
      expect.objectContaining({ level: 'ERROR', message: 'request failed', request_id: 'req-retry' }),
      expect.objectContaining({
        level: 'WARN',
        message: 'store notification refused',
        request_id: 'req-bad',
        code: 'INVALID_NOTIFICATION',
        reason: 'the signature does not verify',
      }),
    ]);
  });

  it('keeps a 5xx as it is, its headers too, and logs it as a failure, not a refusal', async () => {
    const entries = captureLogEntries('INFO');
    const throttled = notificationEndpoint(async () => {
      throw Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    });
    const retryableBug = notificationEndpoint(async () => {
      throw new AppError('INTERNAL_ERROR', 'half-way', { retryable: true });
    });
    expect(await post(throttled, { pathParameters: appPath(), body: '{}' })).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { error: { code: 'SERVICE_UNAVAILABLE', retryable: true } },
    });
    expect(await post(retryableBug, { pathParameters: appPath(), body: '{}' })).toMatchObject({
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'half-way', retryable: true } },
    });
    expect(entries.map((e) => [e.level, e.message])).toEqual([
      ['ERROR', 'request failed'],
      ['ERROR', 'request failed'],
    ]);
  });
});
