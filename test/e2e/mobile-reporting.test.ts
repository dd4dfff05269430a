import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchGetConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { queryAll } from '../../lib/data/query.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';

const { request, send } = useGateway();

const headersFor = (app: TestApp, user: string) =>
  mobileHeaders(app, user, { 'x-platform': 'Android', 'x-version': '2.1.0' });

/** Events stored for a user (test-only read of the table). */
function storedEvents(appId: string, userId: string): Promise<Record<string, any>[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `EVENTS#${appId}#${userId}` },
  });
}

describe('mobile reporting: events and sessions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const post = (path: string, user: string, body: unknown) =>
    request('POST', path, { headers: headersFor(app, user), body });

  it.each(['/users/report/events', '/v2/users/report/events'])(
    '%s stores a batch of Shape A and Shape B events',
    async (path) => {
      const user = `events-${path.length}`;
      const sentAt = Date.now() - 1000;
      const res = await post(path, user, {
        events: [
          { name: 'app_opened', user, sessionId: 's-1', extra: { source: 'push' } },
          { eventName: 'screen_view', timestamp: sentAt, properties: { screen_name: 'paywall' } },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', message: '2 event(s) recorded', data: { accepted: 2 } });
      const stored = await storedEvents(app.appId, user);
      expect(stored.map((e) => e.name).sort()).toEqual(['app_opened', 'screen_view']);
      // Kept for EVENT_RETENTION_DAYS (default 90), then deleted by TTL.
      const retention = 90 * 86_400;
      for (const event of stored)
        expect(Math.abs((event.ttl as number) - (Date.now() / 1000 + retention))).toBeLessThan(600);
      // What the key holds (app, user, the event's key) is not stored again: a 1 KB event takes one write unit.
      const screenView = stored.find((e) => e.name === 'screen_view')!;
      expect(screenView).toEqual({
        pk: `EVENTS#${app.appId}#${user}`,
        sk: expect.stringMatching(/^EVT#h:/),
        name: 'screen_view',
        timestamp: sentAt,
        extra: { screen_name: 'paywall' },
        platform: 'android',
        sdk_version: '2.1.0',
        received_at: expect.any(Number),
        ttl: expect.any(Number),
      });
      // Without a time of its own an event happened when it was received; without extra it stores none.
      const opened = stored.find((e) => e.name === 'app_opened')!;
      expect(opened).toMatchObject({ session_id: 's-1', extra: { source: 'push' } });
      expect(opened.timestamp).toBeUndefined();
      expect(Math.abs((opened.received_at as number) - Date.now())).toBeLessThan(60_000);
    },
  );

  it('an event batch leaves the profile alone: first and last seen and features go to small items of their own', async () => {
    // An update is billed at the size of the whole item: touching a 6 KB profile cost 6 write units per batch.
    const user = 'large-profile';
    for (const half of [0, 50]) {
      const properties = Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`property_${half + i}`, 'x'.repeat(40)]),
      );
      expect((await post('/users/custom_properties/set', user, { properties })).status).toBe(200);
    }
    const profileKey = keys.userProfile(app.appId, user);
    const read = async (key: { pk: string; sk: string }) =>
      (await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    const profile = await read(profileKey);
    const sent = await post('/v2/users/report/events', user, {
      events: [
        { name: 'feature_used', user, sessionId: 's', extra: { feature_name: 'export' } },
        { name: 'screen_view', user, sessionId: 's' },
      ],
    });
    expect(sent.status).toBe(200);
    expect(await read(profileKey)).toEqual(profile);
    const activity = await read(keys.userActivity(app.appId, user));
    expect(activity).toEqual({
      ...keys.userActivity(app.appId, user),
      first_seen: expect.any(String),
      last_seen: expect.any(String),
    });
    expect(activity!.last_seen >= profile!.last_seen).toBe(true);
    expect((await read(keys.userFeatures(app.appId, user)))?.features).toEqual(new Set(['export']));
  });

  it('a 1,000-event batch is stored completely, and sending it again stores it once', async () => {
    const user = 'bulk-user';
    const events = Array.from({ length: 1000 }, (_, i) => ({
      name: 'button_click',
      user,
      sessionId: `s-${i % 7}`,
      extra: { button_name: `b-${i}` },
    }));
    expect((await post('/v2/users/report/events', user, { events })).status).toBe(200);
    expect((await post('/v2/users/report/events', user, { events })).status).toBe(200);
    expect(await storedEvents(app.appId, user)).toHaveLength(1000);
  }, 120_000);

  it('without user tokens, 1,000 events naming 1,000 made-up users are all filed under X-USER-ID: one profile written, no other', async () => {
    const sender = 'one-sender';
    const named = Array.from({ length: 1000 }, (_, i) => `made-up-${i}`);
    const res = await post('/v2/users/report/events', sender, {
      events: named.map((user, i) => ({
        name: 'feature_used',
        user,
        sessionId: 's',
        extra: { feature_name: `f-${i % 3}` },
      })),
    });
    expect(res.status).toBe(200);
    expect(await storedEvents(app.appId, sender)).toHaveLength(1000);
    expect((await batchGetConsistent([keys.userFeatures(app.appId, sender)]))[0]?.features).toEqual(
      new Set(['f-0', 'f-1', 'f-2']),
    );
    // Each event is one item, all 1,000 under the sender; and nothing of any named user's profile.
    const theirs = named.flatMap((user) => [
      keys.userProfile(app.appId, user),
      keys.userActivity(app.appId, user),
      keys.userFeatures(app.appId, user),
    ]);
    expect((await batchGetConsistent(theirs)).filter(Boolean)).toEqual([]);
  }, 120_000);

  it.each([
    [{ events: [{ user: 'u', sessionId: 's' }] }, 'EVENT_NAME_REQUIRED'],
    [{ events: [{ name: 'x', sessionId: 's' }] }, 'USER_REQUIRED'],
    [{ events: [{ name: 'x', user: 'u' }] }, 'SESSION_ID_REQUIRED'],
    [{ events: 'many' }, 'INVALID_PARAMETER'],
    [{}, 'INVALID_PARAMETER'],
  ])('%o is a 400 %s and stores nothing', async (body, code) => {
    const user = `invalid-${code}`;
    const res = await post('/users/report/events', user, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', code });
    expect(await storedEvents(app.appId, user)).toHaveLength(0);
  });

  it('an invalid event anywhere in the batch stores none of it (all or nothing)', async () => {
    const user = 'all-or-nothing';
    const events = [
      ...Array.from({ length: 5 }, () => ({ name: 'ok', user, sessionId: 's' })),
      { name: 'broken', user },
    ];
    const res = await post('/users/report/events', user, { events });
    expect(res.body).toMatchObject({ code: 'SESSION_ID_REQUIRED', message: expect.stringContaining('events[5]') });
    expect(await storedEvents(app.appId, user)).toHaveLength(0);
  });

  it('over 1,000 events or over 1 MB is a 400 naming the limit', async () => {
    const tooMany = await post('/users/report/events', 'u', {
      events: Array(1001).fill({ name: 'x', user: 'u', sessionId: 's' }),
    });
    expect(tooMany.body).toMatchObject({
      status: 'error',
      code: 'INVALID_PARAMETER',
      message: expect.stringContaining('1000'),
    });
    const tooBig = await post('/users/report/events', 'u', {
      events: Array(40).fill({ name: 'x', user: 'u', sessionId: 's', extra: { blob: 'x'.repeat(30_000) } }),
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('1 MB') });
  });

  it('sessions and feature_used events show in the subscription detail usage_stats; a repeated session counts once', async () => {
    const user = 'usage-user';
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: user, product_id: 'premium_monthly', platform: 'android' },
    });
    for (const sessionId of ['s-1', 's-2', 's-2']) {
      const res = await post('/v2/sessions/report', user, { sessionId, startTime: Date.now() - 60_000, duration: 60 });
      expect(res.status).toBe(200);
    }
    const reported = Date.now();
    await post('/users/report/events', user, {
      events: ['sync', 'export', 'sync'].map((feature) => ({
        name: 'feature_used',
        user,
        sessionId: 's-1',
        extra: { feature_name: feature },
      })),
    });
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, { bearer: app.secretKey });
    expect(detail.body.data.usage_stats).toEqual({
      features_used: 2,
      last_activity: expect.any(String),
      total_sessions: 2,
    });
    // The last report's time (the gateway runs in this worker: the same clock), however long it took.
    const lastActivity = Date.parse(detail.body.data.usage_stats.last_activity);
    expect(lastActivity).toBeGreaterThanOrEqual(reported);
    expect(lastActivity).toBeLessThanOrEqual(Date.now());
  });

  it.each(['/sessions/report', '/v2/sessions/report'])('%s records a session', async (path) => {
    const res = await post(path, `session-${path.length}`, { sessionId: 'only', startTime: Date.now(), duration: 30 });
    expect(res.body).toEqual({ status: 'success', message: 'Session recorded' });
  });

  it('/sessions/report validates its body', async () => {
    for (const body of [
      { sessionId: 's' },
      { sessionId: '', startTime: 1, duration: 1 },
      { sessionId: 's', startTime: 'now', duration: 1 },
      { sessionId: 's', startTime: 1, duration: -5 },
    ]) {
      const res = await post('/sessions/report', 'u', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_PARAMETER');
    }
  });

  it('a body that is not UTF-8, or nests 100,000 levels deep, is a 400 and stores nothing', async () => {
    const user = 'hostile-bytes';
    const valid = Buffer.from(JSON.stringify({ events: [{ name: 'x', user, sessionId: 's' }] }));
    for (const body of [
      Buffer.concat([valid.subarray(0, 20), Buffer.from([0xc0, 0xaf]), valid.subarray(20)]),
      Buffer.from(`{"events":${'['.repeat(100_000)}`),
    ]) {
      const res = await send('POST', '/users/report/events', {
        headers: { ...headersFor(app, user), 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({
        status: 'error',
        code: 'INVALID_PARAMETER',
        message: expect.stringMatching(/^body (is not valid UTF-8|nests deeper than)/),
      });
    }
    expect(await storedEvents(app.appId, user)).toHaveLength(0);
  });

  it.each([
    ['an integer beyond 2^53', '{"n":9007199254740993}'],
    ['a number below 1e-130', '{"n":1e-200}'],
    ['an empty key', '{"a":{"":1}}'],
    ['a nested __proto__ key', '{"a":{"__proto__":{"admin":true}}}'],
  ])(
    'an event or a report holding %s (which DynamoDB cannot store as sent) is a 400, not a 500',
    async (_name, extra) => {
      const user = 'unstorable';
      const events = await request('POST', '/users/report/events', {
        headers: headersFor(app, user),
        rawBody: `{"events":[{"name":"x","user":"${user}","sessionId":"s","extra":${extra}}]}`,
      });
      const report = await request('POST', '/report/device_info', {
        headers: { ...headersFor(app, user), 'content-type': 'application/json' },
        rawBody: extra,
      });
      for (const res of [events, report]) {
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 'error', code: 'INVALID_PARAMETER' });
      }
      expect(await storedEvents(app.appId, user)).toHaveLength(0);
    },
  );

  it('a session starting at 2^53 ms (beyond any date) is a 400, not a 500', async () => {
    const res = await post('/sessions/report', 'far-future', {
      sessionId: 's',
      startTime: Number.MAX_SAFE_INTEGER,
      duration: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('startTime') });
  });

  it("one app's sdk key never writes into another app", async () => {
    const other = await createTestApp();
    const res = await request('POST', '/users/report/events', {
      headers: { ...headersFor(app, 'x'), 'x-app-id': other.appId },
      body: { events: [{ name: 'x', user: 'x', sessionId: 's' }] },
    });
    expect(res.status).toBe(403);
    expect(await storedEvents(other.appId, 'x')).toHaveLength(0);
  });
});
