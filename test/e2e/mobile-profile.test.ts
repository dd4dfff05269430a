import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { MAX_FEATURES_PER_USER } from '../../lib/data/reports.js';
import { reportKeys } from '../../lib/data/table-keys.js';
import { atTime } from '../support/clock.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';

const { request } = useGateway();

const headersFor = (app: TestApp, user: string) => mobileHeaders(app, user);

const profileOf = async (appId: string, userId: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.userProfile(appId, userId), ConsistentRead: true })))
    .Item ?? {};

const historyOf = async (appId: string, userId: string) =>
  (
    await ddb.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REPORTS#${appId}#${userId}` },
      }),
    )
  ).Items ?? [];

describe('mobile reporting: orders, conversions, typed reports, user data', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const send = (method: string, path: string, user: string, body: unknown) =>
    request(method, path, { headers: headersFor(app, user), body });

  it.each(['', '/v2'])('%s/order/report records an order once per orderId', async (version) => {
    const user = `buyer${version.replace('/', '-')}`;
    const order = { orderId: `order-${version}-1`, productId: 'premium_monthly', price: 9.99, currency: 'usd' };
    const first = await send('POST', `${version}/order/report`, user, order);
    const again = await send('POST', `${version}/order/report`, user, order);
    expect(first.body).toEqual({ status: 'success', message: 'Order recorded' });
    expect(again.body).toEqual({ status: 'success', message: 'Order already recorded' });
    expect((await profileOf(app.appId, user)).order_count).toBe(1);
    const stored = await ddb.send(
      new GetCommand({ TableName: tableName, Key: reportKeys.reportedOrder(app.appId, user, order.orderId) }),
    );
    expect(stored.Item).toMatchObject({ product_id: 'premium_monthly', price: 9.99, currency: 'USD', user_id: user });
  });

  it("an order id another user reported first is no claim on the buyer's own order (orders are kept per user)", async () => {
    const order = { orderId: 'GPA.1234-shared', productId: 'premium_monthly', price: 9.99, currency: 'USD' };
    const squatter = await send('POST', '/order/report', 'squatter', order);
    const buyer = await send('POST', '/order/report', 'real-buyer', order);
    expect([squatter.body.message, buyer.body.message]).toEqual(['Order recorded', 'Order recorded']);
    expect((await profileOf(app.appId, 'real-buyer')).order_count).toBe(1);
    const stored = await ddb.send(
      new GetCommand({ TableName: tableName, Key: reportKeys.reportedOrder(app.appId, 'real-buyer', order.orderId) }),
    );
    expect(stored.Item).toMatchObject({ user_id: 'real-buyer', order_id: order.orderId });
  });

  it.each(['', '/v2'])('%s/conversion/report appends a conversion and counts it', async (version) => {
    const user = `converter${version.replace('/', '-')}`;
    expect(
      (await send('POST', `${version}/conversion/report`, user, { conversionType: 'trial_started', value: 1 })).status,
    ).toBe(200);
    expect((await profileOf(app.appId, user)).conversion_count).toBe(1);
    expect((await historyOf(app.appId, user)).map((h) => h.kind)).toEqual(['conversion']);
  });

  const latestOf = async (appId: string, userId: string, type: string) =>
    (
      await ddb.send(
        new GetCommand({
          TableName: tableName,
          Key: reportKeys.latestReport(appId, userId, type),
          ConsistentRead: true,
        }),
      )
    ).Item;

  it.each(['', '/v2'])(
    '%s/report/{type} keeps the latest body per type and every report in history',
    async (version) => {
      const user = `reporter${version.replace('/', '-')}`;
      await send('POST', `${version}/report/device_info`, user, { model: 'iPhone15,2', os: '17.0' });
      await send('POST', `${version}/report/device_info`, user, { model: 'iPhone16,1', os: '18.1' });
      await send('POST', `${version}/report/app_info`, user, { build: 42 });
      expect((await latestOf(app.appId, user, 'device_info'))?.payload).toEqual({ model: 'iPhone16,1', os: '18.1' });
      expect((await latestOf(app.appId, user, 'app_info'))?.payload).toEqual({ build: 42 });
      expect((await profileOf(app.appId, user)).last_seen).toEqual(expect.any(String));
      expect((await historyOf(app.appId, user)).map((h) => h.kind).sort()).toEqual([
        'report:app_info',
        'report:device_info',
        'report:device_info',
      ]);
    },
  );

  it('any number of report types, each near the 32 KB limit, never outgrow the profile item (400 KB)', async () => {
    const user = 'many-types';
    const body = { blob: 'x'.repeat(32_000) };
    for (let i = 0; i < 16; i++) {
      const res = await send('POST', `/report/type_${i}`, user, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await latestOf(app.appId, user, 'type_15'))?.payload).toEqual(body);
    expect(JSON.stringify(await profileOf(app.appId, user)).length).toBeLessThan(2_000);
  });

  it(`keeps at most ${MAX_FEATURES_PER_USER} distinct features per user; the events beyond are stored and the user stays seen`, async () => {
    const user = 'feature-collector';
    const feature = (i: number) => `feature_${i}_${'f'.repeat(180)}`;
    for (let start = 0; start < MAX_FEATURES_PER_USER + 100; start += 100) {
      const events = Array.from({ length: 100 }, (_, i) => ({
        name: 'feature_used',
        user,
        sessionId: 's',
        extra: { feature_name: feature(start + i) },
      }));
      const res = await send('POST', '/v2/users/report/events', user, { events });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const featuresOf = async () =>
      (
        await ddb.send(
          new GetCommand({ TableName: tableName, Key: keys.userFeatures(app.appId, user), ConsistentRead: true }),
        )
      ).Item?.features as Set<string>;
    const activityOf = async () =>
      (
        await ddb.send(
          new GetCommand({ TableName: tableName, Key: keys.userActivity(app.appId, user), ConsistentRead: true }),
        )
      ).Item ?? {};
    expect((await featuresOf()).size).toBe(MAX_FEATURES_PER_USER);
    const before = await activityOf();
    // A second later (injected: the gateway runs in this worker), so last_seen must move.
    const res = await atTime(Date.now() + 1_000, () =>
      send('POST', '/v2/users/report/events', user, {
        events: [{ name: 'feature_used', user, sessionId: 's', extra: { feature_name: 'one_more' } }],
      }),
    );
    expect(res.status).toBe(200);
    expect((await featuresOf()).has('one_more')).toBe(false);
    const after = await activityOf();
    expect(after.last_seen > before.last_seen).toBe(true);
    expect(after.first_seen).toBe(before.first_seen);
  }, 60_000);

  it.each(['', '/v2'])('%s/report/global_switch is its own endpoint, not a report type', async (version) => {
    const user = `switcher${version.replace('/', '-')}`;
    const res = await send('POST', `${version}/report/global_switch`, user, { enabled: false, reason: 'maintenance' });
    expect(res.body.message).toBe('Global switch state recorded');
    const profile = await profileOf(app.appId, user);
    expect(profile.global_switch).toEqual({ enabled: false, reason: 'maintenance' });
    expect(profile.report_global_switch).toBeUndefined();
  });

  it.each([
    ['Device-Info', 'upper case'],
    ['a'.repeat(65), 'too long'],
    ['device%20info', 'a space'],
  ])('report type %s (%s) is INVALID_PARAMETER', async (type) => {
    const res = await send('POST', `/report/${type}`, 'u', { x: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_PARAMETER');
  });

  it('custom properties merge, null deletes, and limits hold', async () => {
    const user = 'props-user';
    await send('POST', '/users/custom_properties/set', user, {
      properties: { plan_tier: 'gold', level: 3, beta: true },
    });
    const res = await send('POST', '/users/custom_properties/set', user, { properties: { level: 4, beta: null } });
    expect(res.body).toEqual({ status: 'success', message: 'Custom properties updated', data: { properties: 2 } });
    expect((await profileOf(app.appId, user)).custom_properties).toEqual({ plan_tier: 'gold', level: 4 });

    for (const properties of [
      { '1abc': 1 },
      { 'with space': 1 },
      { ok: { nested: true } },
      { ok: 'x'.repeat(513) },
      {},
    ]) {
      const bad = await send('POST', '/users/custom_properties/set', user, { properties });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_PARAMETER');
    }
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, i]));
    await send('POST', '/users/custom_properties/set', user, { properties: many });
    const tooMany = await send('POST', '/users/custom_properties/set', user, {
      properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`q${i}`, i])),
    });
    expect(tooMany.body).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('100') });
  });

  it('prototype-pollution keys are refused and change nothing', async () => {
    const user = 'polluter';
    const res = await request('POST', '/users/custom_properties/set', {
      headers: { ...headersFor(app, user), 'content-type': 'application/json' },
      rawBody: '{"properties":{"__proto__":{"admin":true},"constructor":1}}',
    });
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect((await profileOf(app.appId, user)).custom_properties).toBeUndefined();
  });

  it.each(['', '/v2'])('PUT %s/users/attribute/update sets standard attributes; null clears one', async (version) => {
    const user = `attributes${version.replace('/', '-')}`;
    const first = await send('PUT', `${version}/users/attribute/update`, user, {
      email: 'ada@example.com',
      name: 'Ada',
      country: 'GB',
      language: 'en-GB',
      gender: 'female',
      birthday: '1990-12-10',
      phone: '+442071234567',
      timezone: 'Europe/London',
    });
    expect(first.body).toEqual({ status: 'success', message: 'Attributes updated' });
    await send('PUT', `${version}/users/attribute/update`, user, { phone: null, name: 'Ada L.' });
    expect((await profileOf(app.appId, user)).attributes).toEqual({
      email: 'ada@example.com',
      name: 'Ada L.',
      country: 'GB',
      language: 'en-GB',
      gender: 'female',
      birthday: '1990-12-10',
      timezone: 'Europe/London',
    });
  });

  it.each([
    [{ email: 'not-an-email' }, 'email'],
    [{ country: 'England' }, 'country'],
    [{ birthday: '10/12/1990' }, 'birthday'],
    [{ phone: '0207 123' }, 'phone'],
    [{ favourite_colour: 'blue' }, 'unknown'],
    [{}, 'empty'],
  ] as [Record<string, unknown>, string][])('attributes %o are INVALID_PARAMETER (%s)', async (body) => {
    const res = await send('PUT', '/users/attribute/update', 'u', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_PARAMETER');
  });
});
