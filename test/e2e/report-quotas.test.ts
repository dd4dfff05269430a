/**
 * What one app's mobile reports may cost, over HTTP with the settings an operator sets
 * (REPORT_EVENTS_PER_APP_PER_MINUTE, REPORT_STORED_BYTES_PER_APP, REPORT_TYPES_PER_USER): the
 * app's users together past a quota get 429 in the mobile envelope with Retry-After and nothing
 * stored; a user past the report types gets 400; every latest report expires.
 */
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.REPORT_EVENTS_PER_APP_PER_MINUTE = '30';
  // 90 days of retention: 5,000 bytes a day.
  process.env.REPORT_STORED_BYTES_PER_APP = '450000';
  process.env.REPORT_TYPES_PER_USER = '3';
});

const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { ddb, tableName } = await import('../../lib/data/client.js');
const { reportKeys } = await import('../../lib/data/table-keys.js');
const { queryAll } = await import('../../lib/data/query.js');
const { createTestApp } = await import('../support/fixtures.js');
const { useGateway } = await import('../support/http.js');
const { mobileHeaders } = await import('../support/mobile.js');

const { request } = useGateway();

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const events = (app: TestApp, user: string, count: number, prefix = 'e') =>
  request('POST', '/v2/users/report/events', {
    headers: mobileHeaders(app, user),
    body: {
      events: Array.from({ length: count }, (_, i) => ({
        name: 'screen_view',
        user,
        sessionId: 's',
        eventId: `${prefix}-${i}`,
      })),
    },
  });

const storedEvents = async (app: TestApp, user: string) =>
  queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': reportKeys.reportedEvent(app.appId, user, '').pk },
  });

const latestReport = async (app: TestApp, user: string, type: string) =>
  (
    await ddb.send(
      new GetCommand({
        TableName: tableName,
        Key: reportKeys.latestReport(app.appId, user, type),
        ConsistentRead: true,
      }),
    )
  ).Item;

const report = (app: TestApp, user: string, type: string, body: Record<string, unknown>) =>
  request('POST', `/report/${type}`, { headers: mobileHeaders(app, user), body });

describe('per-app report quotas', () => {
  it("REPORT_EVENTS_PER_APP_PER_MINUTE: the app's users together get 30 events a minute; past it 429 with Retry-After, nothing stored, nothing counted", async () => {
    const app = await createTestApp([]);
    const other = await createTestApp([]);
    expect((await events(app, 'first', 20)).status).toBe(200);
    const refused = await events(app, 'second', 11);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/^this app's quota of 30 reported events per minute is used up; retry in \d+ s$/),
      retryable: true,
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await storedEvents(app, 'second')).toHaveLength(0);
    // The refused batch was not counted: the 10 that remain fit.
    expect((await events(app, 'second', 10)).status).toBe(200);
    expect((await events(app, 'first', 1, 'late')).status).toBe(429);
    // Another app's quota is its own.
    expect((await events(other, 'first', 30)).status).toBe(200);
  });

  it('REPORT_STORED_BYTES_PER_APP: over the retention days, 5,000 report bytes a day (each stored copy counted); past it 429 until the day ends', async () => {
    const app = await createTestApp([]);
    const body = { blob: 'x'.repeat(1_989) }; // 2,000 bytes as JSON, stored twice (history and latest)
    expect(JSON.stringify(body)).toHaveLength(2_000);
    expect((await report(app, 'u', 'device_info', body)).status).toBe(200);
    const stored = await latestReport(app, 'u', 'device_info');
    const refused = await report(app, 'u', 'device_info', { blob: 'y'.repeat(500) });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining("this app's quota of 5000 report bytes a day is used up"),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect(await latestReport(app, 'u', 'device_info')).toEqual(stored);
    // What still fits (1,000 bytes of room) is taken.
    expect((await report(app, 'u', 'device_info', { ok: true })).status).toBe(200);
    // Events count their bytes too.
    expect((await events(app, 'u', 30)).status).toBe(429);
  });

  it('REPORT_TYPES_PER_USER: a user reports at most 3 types; a fourth is a 400 that writes nothing, the three go on', async () => {
    const app = await createTestApp([]);
    for (const type of ['device_info', 'app_info', 'screen_info'])
      expect((await report(app, 'typed', type, { n: 1 })).status).toBe(200);
    const refused = await report(app, 'typed', 'type_four', { n: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      status: 'error',
      code: 'INVALID_PARAMETER',
      message: 'a user may report at most 3 report types',
    });
    expect(await latestReport(app, 'typed', 'type_four')).toBeUndefined();
    expect((await report(app, 'typed', 'app_info', { n: 2 })).status).toBe(200);
    // Another user has types of their own.
    expect((await report(app, 'other-user', 'type_four', { n: 1 })).status).toBe(200);
  });

  it('a latest report expires with the history (EVENT_RETENTION_DAYS, 90 days by default)', async () => {
    const app = await createTestApp([]);
    expect((await report(app, 'ttl', 'device_info', { model: 'x' })).status).toBe(200);
    const ttl = (await latestReport(app, 'ttl', 'device_info'))?.ttl as number;
    expect(Math.abs(ttl - (Date.now() / 1000 + 90 * 86_400))).toBeLessThan(600);
  });
});
