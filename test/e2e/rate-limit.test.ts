import { describe, expect, it, vi } from 'vitest';

// The real defaults (200 per minute for standard keys), not the test env's raised limits.
vi.hoisted(() => {
  delete process.env.RATE_LIMIT_STANDARD_PER_MINUTE;
  delete process.env.RATE_LIMIT_PREMIUM_PER_MINUTE;
  // As in AWS: a warm function reads an sdk key once per 30 s (nothing here is revoked).
  process.env.KEY_CACHE_TTL_SECONDS = '30';
});

/** Hundreds of requests each through DynamoDB Local, on two cores shared with the rest of the suite. */
const MANY_REQUESTS = { timeout: 120_000 };

const { SUBSCRIPTIONS_BASE } = await import('../../lib/routes.js');
const { createTestApp } = await import('../support/fixtures.js');
const { useGateway } = await import('../support/http.js');
const { mobileHeaders } = await import('../support/mobile.js');
const { admin } = await import('../support/processes.js');

const { request } = useGateway();

const RATE_LIMIT_PATTERN = /^"standard";r=\d+;t=\d+$/;

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/** One mobile request (an event report) of `user`, with the user it was sent as. */
const reportEvent = async (app: TestApp, user: string) => ({
  user,
  ...(await request('POST', '/v2/users/report/events', {
    headers: mobileHeaders(app, user),
    body: { events: [{ name: 'app_opened', user, sessionId: 's-1' }] },
  })),
});

// Defaults: 200 requests per minute, standard tier; per secret key, and per user of an app on the mobile API.
describe('rate limits at the defaults', MANY_REQUESTS, () => {
  it('lets the first 200 of 230 requests of one secret key through and answers the other 30 with 429, while another key is unaffected', async () => {
    const app = await createTestApp([]);
    const other = await createTestApp([]);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof request>> | undefined;
    for (let i = 0; i < 230; i++) {
      last = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey });
      statuses.push(last.status);
      expect(last.headers.get('ratelimit-policy')).toBe('"standard";q=200;w=60');
      expect(last.headers.get('ratelimit')).toMatch(RATE_LIMIT_PATTERN);
      if (i === 0) expect(last.headers.get('ratelimit')).toMatch(/^"standard";r=199;t=(60|59)$/);
      if (i === 199) expect(last.headers.get('ratelimit')).toMatch(/^"standard";r=0;t=\d+$/);
    }
    expect(statuses.slice(0, 200).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(200).every((s) => s === 429)).toBe(true);

    // The refusal: the subscription API's envelope, Retry-After in seconds equal to the reset.
    expect(last!.body).toEqual({
      error: { code: 'RATE_LIMITED', message: expect.stringContaining('200 requests per minute'), retryable: true },
    });
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last!.headers.get('ratelimit')).toBe(`"standard";r=0;t=${retryAfter}`);

    const unaffected = await request('GET', SUBSCRIPTIONS_BASE, { bearer: other.secretKey });
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit')).toMatch(/^"standard";r=199;t=(60|59)$/);
  });

  it('limits each user of an app on the mobile API, counted exactly under concurrent requests, in the mobile envelope', async () => {
    const app = await createTestApp([]);
    const send = () => reportEvent(app, 'user-1');
    const responses: Awaited<ReturnType<typeof send>>[] = [];
    for (let batch = 0; batch < 23; batch++) responses.push(...(await Promise.all(Array.from({ length: 10 }, send))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(200);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused).toHaveLength(30);
    expect(refused[0]!.body).toEqual({
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.any(String),
      retryable: true,
    });
    expect(refused[0]!.headers.get('retry-after')).toMatch(/^\d+$/);
    for (const response of responses) expect(response.headers.get('ratelimit-policy')).toBe('"standard";q=200;w=60');
  });

  it('lets 300 requests within a minute from 3 users of one app all through (100 each), each user counted on its own, the secret key untouched', async () => {
    const app = await createTestApp([]);
    const users = ['alice', 'bob', 'carol'];
    const started = Date.now();
    const responses: Awaited<ReturnType<typeof reportEvent>>[] = [];
    for (let round = 0; round < 10; round++) {
      // 10 requests of each user at once, 30 in flight.
      responses.push(
        ...(await Promise.all(users.flatMap((user) => Array.from({ length: 10 }, () => reportEvent(app, user))))),
      );
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(responses).toHaveLength(300);
    expect(responses.map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
    // Each user has 100 of its own 200 left; the lowest remaining seen is 100 for every user.
    for (const user of users) {
      const remaining = responses
        .filter((r) => r.user === user)
        .map((r) => Number(/;r=(\d+);/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => 100 + i));
    }
    // The subscription API counts its secret key, which no mobile request touched.
    const server = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey });
    expect(server.headers.get('ratelimit')).toMatch(/^"standard";r=199;t=(60|59)$/);
  });

  it('answers the 201st request of one user within a minute, and only it, with 429, Retry-After and r=0, while another user of the app is unaffected', async () => {
    const app = await createTestApp([]);
    const responses: Awaited<ReturnType<typeof reportEvent>>[] = [];
    for (let batch = 0; batch < 20; batch++) {
      responses.push(...(await Promise.all(Array.from({ length: 10 }, () => reportEvent(app, 'heavy')))));
    }
    expect(responses.filter((r) => r.status === 200)).toHaveLength(200);
    const last = await reportEvent(app, 'heavy');
    expect(last.status).toBe(429);
    expect(last.body).toEqual({
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.stringContaining('200 requests per minute'),
      retryable: true,
    });
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last.headers.get('ratelimit-policy')).toBe('"standard";q=200;w=60');
    expect(last.headers.get('ratelimit')).toBe(`"standard";r=0;t=${retryAfter}`);

    const other = await reportEvent(app, 'light');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^"standard";r=199;t=(60|59)$/);
    expect(other.headers.get('retry-after')).toBeNull();
  });

  it('puts the RateLimit fields on error responses of an authenticated request too', async () => {
    const app = await createTestApp([]);
    const notFound = await request('GET', `${SUBSCRIPTIONS_BASE}/sub_0123456789abcdef01234567`, {
      bearer: app.secretKey,
    });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit')).toMatch(/^"standard";r=199;t=\d+$/);
    const invalid = await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, query: { limit: 1000 } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit')).toMatch(/^"standard";r=198;t=\d+$/);
    const missingHeader = await request('POST', '/v2/sessions/report', {
      headers: mobileHeaders(app, 'u', { 'x-version': undefined }),
      body: {},
    });
    expect(missingHeader.status).toBe(400);
    // Refused before its user is known: the policy that applies, no window of anyone's.
    expect(missingHeader.headers.get('ratelimit-policy')).toBe('"standard";q=200;w=60');
    expect(missingHeader.headers.get('ratelimit')).toBeNull();
  });

  it('gives a key created with `keys create --tier premium` the premium limit', async () => {
    const app = await createTestApp([]);
    const created = await admin(
      'keys',
      'create',
      '--app',
      app.appId,
      '--kind',
      'secret',
      '--tier',
      'premium',
      '--json',
    );
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout);
    expect(issued).toMatchObject({
      app_id: app.appId,
      kind: 'secret',
      tier: 'premium',
      key: expect.stringMatching(/^sk_/),
    });
    const res = await request('GET', SUBSCRIPTIONS_BASE, { bearer: issued.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"premium";q=2000;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^"premium";r=1999;t=\d+$/);

    const listed = JSON.parse((await admin('keys', 'list', '--app', app.appId, '--json')).stdout);
    expect(listed.keys.map((k: { tier: string }) => k.tier).sort()).toEqual(['premium', 'standard', 'standard']);
    const rejected = await admin('keys', 'create', '--app', app.appId, '--kind', 'secret', '--tier', 'gold', '--json');
    expect(rejected.code).toBe(2);
    expect(JSON.parse(rejected.stdout).error.message).toMatch(/--tier must be one of standard, premium/);
  });
});
