import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { admin } from '../support/processes.js';

const { request } = useGateway();

const common = (app: TestApp, user: string, platform = 'iOS') => mobileHeaders(app, user, { 'x-platform': platform });

async function file(content: unknown): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'audience-')), 'file.json');
  await writeFile(path, JSON.stringify(content));
  return path;
}

describe('mobile API: attribution, segments, ad-network info', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it('attribution keeps the first touch and the latest; Search Ads is read from its version object', async () => {
    const user = 'attributed';
    await request('POST', '/attribution/report', {
      headers: common(app, user),
      body: { network: 'appsflyer', data: { campaign: 'spring_sale', media_source: 'facebook' } },
    });
    const searchAds = await request('POST', '/searchads/report', {
      headers: common(app, user),
      body: {
        attribution: {
          'Version3.1': {
            'iad-attribution': 'true',
            'iad-campaign-id': '1234567890',
            'iad-campaign-name': 'Brand',
            'iad-keyword': 'todo app',
          },
        },
      },
    });
    expect(searchAds.body).toEqual({ status: 'success', message: 'Search Ads attribution recorded' });
    const info = await request('GET', `/adsinfo/ios/${app.appId}/1234567`, { headers: common(app, user) });
    expect(info.status).toBe(200);
    expect(info.body.data.user.attribution.first).toMatchObject({ network: 'appsflyer', campaign_id: 'spring_sale' });
    expect(info.body.data.user.attribution.latest).toMatchObject({
      network: 'apple_search_ads',
      campaign_id: '1234567890',
      campaign_name: 'Brand',
      attributed: true,
    });
  });

  it('Search Ads from an Android app, or without a version object, is INVALID_PARAMETER', async () => {
    const android = await request('POST', '/searchads/report', {
      headers: common(app, 'a', 'Android'),
      body: { attribution: { 'Version3.1': { 'iad-attribution': 'true' } } },
    });
    expect(android.body).toMatchObject({ status: 'error', code: 'INVALID_PARAMETER' });
    const shapeless = await request('POST', '/searchads/report', {
      headers: common(app, 'a'),
      body: { attribution: { campaign: 'x' } },
    });
    expect(shapeless.body.code).toBe('INVALID_PARAMETER');
  });

  it('a Search Ads entry named constructor or with an empty name is INVALID_PARAMETER, not a failed write', async () => {
    // Found by the hostile-input fuzz (seed 230810132): such a key made the DynamoDB write fail (500).
    // (`__proto__` never gets this far: parsing the record drops it.)
    for (const key of ['constructor', '']) {
      const entry = JSON.stringify({ 'iad-campaign-name': 'Spring', [key]: 'x' });
      const res = await request('POST', '/searchads/report', {
        headers: { ...common(app, 'a'), 'content-type': 'application/json' },
        rawBody: `{"attribution":{"Version3.1":${entry}}}`,
      });
      expect(res.status, key).toBe(400);
      expect(res.body).toMatchObject({ status: 'error', code: 'INVALID_PARAMETER' });
    }
  });

  it('segment/info lists built-in and rule segments, needing only X-API-KEY, X-USER-ID and X-APP-ID', async () => {
    const segmentsFile = await file([
      {
        id: 'german_speakers',
        name: 'German speakers',
        conditions: [{ field: 'attributes.language', op: 'in', value: ['de', 'de-AT'] }],
      },
      {
        id: 'power_users',
        name: 'Power users',
        conditions: [
          { field: 'counters.total_sessions', op: 'gte', value: 2 },
          { field: 'custom_properties.plan_tier', op: 'eq', value: 'gold' },
        ],
      },
      {
        id: 'paid_subscribers',
        name: 'Active subscribers',
        conditions: [{ field: 'subscription.status', op: 'eq', value: 'active' }],
      },
    ]);
    const put = await admin('segments', 'put', '--app', app.appId, '--file', segmentsFile, '--json');
    expect(JSON.parse(put.stdout)).toEqual({
      app_id: app.appId,
      segments: ['german_speakers', 'power_users', 'paid_subscribers'],
    });

    const user = 'segmented';
    await request('PUT', '/users/attribute/update', { headers: common(app, user), body: { language: 'de' } });
    await request('POST', '/users/custom_properties/set', {
      headers: common(app, user),
      body: { properties: { plan_tier: 'gold' } },
    });
    for (const sessionId of ['a', 'b'])
      await request('POST', '/sessions/report', {
        headers: common(app, user),
        body: { sessionId, startTime: Date.now(), duration: 5 },
      });
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: user, product_id: 'premium_monthly', platform: 'ios' },
    });
    await request('PUT', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, {
      bearer: app.secretKey,
      body: { status: 'active' },
    });

    const res = await request('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-user-id': user, 'x-app-id': app.appId },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(user);
    expect(res.body.data.segments.map((s: { id: string }) => s.id)).toEqual([
      'new_user',
      'active_7d',
      'paying',
      'german_speakers',
      'power_users',
      'paid_subscribers',
    ]);
    expect(res.body.data.segments.find((s: { id: string }) => s.id === 'power_users')).toEqual({
      id: 'power_users',
      name: 'Power users',
      type: 'custom',
    });
  });

  it('segment/info reads first and last seen from the profile and from what event batches record apart', async () => {
    const user = 'returning-after-a-while';
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    // A profile whose user was first seen 60 days ago and last 40 days ago (dormant, not new).
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.userProfile(app.appId, user),
          type: 'user_profile',
          app_id: app.appId,
          user_id: user,
          first_seen: daysAgo(60),
          last_seen: daysAgo(40),
          features: new Set(['export']),
        },
      }),
    );
    const segmentsOf = async () =>
      (
        await request('GET', '/segment/info', {
          headers: { 'x-api-key': app.sdkKey, 'x-user-id': user, 'x-app-id': app.appId },
        })
      ).body.data.segments.map((s: { id: string }) => s.id);
    expect(await segmentsOf()).toEqual(['dormant_30d', 'never_subscribed']);
    const events = await request('POST', '/v2/users/report/events', {
      headers: common(app, user),
      body: { events: [{ name: 'feature_used', user, sessionId: 's', extra: { feature_name: 'sync' } }] },
    });
    expect(events.status).toBe(200);
    // Seen now (active), but first seen 60 days ago still (not new).
    expect(await segmentsOf()).toEqual(['active_7d', 'never_subscribed']);
  });

  it('segment/info for a user never seen is 404 USER_NOT_FOUND; without X-USER-ID it is MISSING_REQUIRED_HEADER', async () => {
    const unknown = await request('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-user-id': 'nobody-ever', 'x-app-id': app.appId },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 'error', code: 'USER_NOT_FOUND' });
    const noUser = await request('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-app-id': app.appId },
    });
    expect(noUser.body).toMatchObject({
      code: 'MISSING_REQUIRED_HEADER',
      message: expect.stringContaining('X-USER-ID'),
    });
  });

  it("adsinfo answers the app's ad networks for the platform, and refuses another app id (403) or platform (400)", async () => {
    const adsFile = await file({
      ios: { networks: [{ name: 'admob', settings: { app_id: 'ca-app-pub-1~2', banner_unit: 'ca-app-pub-1/3' } }] },
      android: { networks: [{ name: 'admob', enabled: false, settings: {} }] },
    });
    expect((await admin('ads', 'put', '--app', app.appId, '--file', adsFile, '--json')).code).toBe(0);
    const ios = await request('GET', `/adsinfo/ios/${app.appId}/1234567`, { headers: common(app, 'ads-user') });
    expect(ios.body.data).toEqual({
      platform: 'ios',
      app_id: app.appId,
      store_id: '1234567',
      user: { user_id: 'ads-user', attribution: { first: null, latest: null } },
      networks: [
        { name: 'admob', enabled: true, settings: { app_id: 'ca-app-pub-1~2', banner_unit: 'ca-app-pub-1/3' } },
      ],
    });
    const android = await request('GET', `/adsinfo/Android/${app.appId}/-`, {
      headers: common(app, 'ads-user', 'Android'),
    });
    expect(android.body.data.networks).toEqual([{ name: 'admob', enabled: false, settings: {} }]);
    expect((await request('GET', `/adsinfo/ios/app_0000000000000000/1`, { headers: common(app, 'u') })).status).toBe(
      403,
    );
    expect((await request('GET', `/adsinfo/windows/${app.appId}/1`, { headers: common(app, 'u') })).body.code).toBe(
      'INVALID_PARAMETER',
    );
  });

  it('ads put refuses a credential in the settings any sdk key holder reads back, and keeps what was there', async () => {
    const publicFile = await file({ ios: { networks: [{ name: 'applovin', settings: { sdk_key: 'abc123' } }] } });
    expect((await admin('ads', 'put', '--app', app.appId, '--file', publicFile, '--json')).code).toBe(0);
    for (const settings of [
      // Values no temporary file's path can hold by chance (the message names the file: /tmp/audience-2k2hDE/).
      { reporting_api_key: 'never-echoed-value-1' },
      { client_secret: 'never-echoed-value-2' },
      { key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----' },
    ]) {
      const refused = await admin(
        ...['ads', 'put', '--app', app.appId, '--file'],
        await file({ ios: { networks: [{ name: 'applovin', settings }] } }),
        '--json',
      );
      expect(refused.code, JSON.stringify(settings)).not.toBe(0);
      const error = JSON.parse(refused.stdout).error;
      expect(error.message).toContain('readable by any sdk key holder (GET /adsinfo)');
      // The value itself is never echoed back.
      expect(error.message).not.toContain(Object.values(settings)[0]);
    }
    const info = await request('GET', `/adsinfo/ios/${app.appId}/1`, { headers: common(app, 'ads-user') });
    expect(info.body.data.networks).toEqual([{ name: 'applovin', enabled: true, settings: { sdk_key: 'abc123' } }]);
  });

  it('adsinfo never serves a credential an earlier version stored in the ad settings', async () => {
    const other = await createTestApp([]);
    const settings = { app_id: 'ca-app-pub-1~2', client_secret: 'shh', key: '-----BEGIN PRIVATE KEY-----\nx' };
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.adsConfig(other.appId),
          type: 'ads_config',
          config: { ios: { networks: [{ name: 'admob', enabled: true, settings }] } },
        },
      }),
    );
    const info = await request('GET', `/adsinfo/ios/${other.appId}/1`, { headers: common(other, 'ads-user') });
    expect(info.body.data.networks).toEqual([{ name: 'admob', enabled: true, settings: { app_id: 'ca-app-pub-1~2' } }]);
  });
});
