import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // A short sdk key cache (the deployed default is 30 s), so revocation latency is seen in seconds.
  process.env.KEY_CACHE_TTL_SECONDS = '2';
});

const { revokeKey } = await import('../../lib/data/api-keys.js');
const { createTestApp } = await import('../support/fixtures.js');
const { useGateway } = await import('../support/http.js');
const { mobileHeaders } = await import('../support/mobile.js');

const { request } = useGateway();

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const reportEvent = (app: TestApp, user: string) =>
  request('POST', '/v2/users/report/events', {
    headers: mobileHeaders(app, user),
    body: { events: [{ name: 'app_opened', user, sessionId: 's-1' }] },
  });

describe('the sdk key as a warm instance keeps it (KEY_CACHE_TTL_SECONDS=2)', () => {
  it('a revoked sdk key keeps working at most the cache TTL, then is refused with 401 INVALID_API_KEY', async () => {
    const app = await createTestApp([]);
    expect((await reportEvent(app, 'u')).status).toBe(200);
    await revokeKey(app.sdkKey);
    const revokedAt = Date.now();
    // Read less than 2 s ago: still this instance's copy.
    const cached = await reportEvent(app, 'u');
    if (Date.now() - revokedAt < 1_500) expect(cached.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await reportEvent(app, 'u');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 'error', code: 'INVALID_API_KEY' });
    expect(refused.headers.get('ratelimit')).toBeNull();
  });

  it("never serves one app's key for another: two apps' keys in turn each act as their own app, with their own users' windows", async () => {
    const [a, b] = [await createTestApp([]), await createTestApp([])];
    for (let i = 1; i <= 3; i++) {
      const fromA = await reportEvent(a, 'same-user');
      const fromB = await reportEvent(b, 'same-user');
      // Had the cache given b's request a's app, X-APP-ID would not match it: 403.
      expect([fromA.status, fromB.status]).toEqual([200, 200]);
      expect(fromA.headers.get('ratelimit')).toMatch(new RegExp(`^"standard";r=${1_000_000 - i};`));
      expect(fromB.headers.get('ratelimit')).toMatch(new RegExp(`^"standard";r=${1_000_000 - i};`));
    }
    // b's key with a's app id is refused, cached or not.
    const crossed = await request('POST', '/v2/users/report/events', {
      headers: mobileHeaders(b, 'same-user', { 'x-app-id': a.appId }),
      body: { events: [{ name: 'app_opened', user: 'same-user', sessionId: 's-1' }] },
    });
    expect(crossed.status).toBe(403);
  });
});
