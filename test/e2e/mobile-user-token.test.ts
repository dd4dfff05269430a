/**
 * Signed user tokens through HTTP: for an app that requires them, every mobile route that acts on
 * X-USER-ID (its declaration's `actsOnUser`, lib/http/declaration.ts) refuses a missing or wrong X-USER-TOKEN with
 * a 401 and writes nothing, and takes the right one; the subscription API is unaffected; an app
 * without the setting behaves as the spec says; rotating the secret refuses the old tokens.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so "a refused request wrote nothing" is a comparison of two small scans.
  process.env.TABLE_NAME = `mobile-user-token-e2e-${process.pid}`;
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { issueKey, issueUserTokenSecret, setUserTokenRequired } from '../../lib/data/api-keys.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { signUserToken } from '../../lib/domain/user-token.js';
import { type MobileDeclaration, mobileRulesOf } from '../../lib/http/declaration.js';
import { ROUTES, type Route, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { declarationsOf } from '../../openapi/declarations.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { type HttpResult, useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable } from '../support/own-table.js';
import { mintReceipt } from '../support/receipts.js';
import { diffSnapshots, snapshotTable } from '../support/table-snapshot.js';

const { request } = useGateway();

const USER = 'token-user';
const IN_A_DAY = () => Math.floor(Date.now() / 1000) + 86_400;

interface Call {
  path: string;
  body?: unknown;
}

/** A request each route accepts, for `app` (receipts are minted fresh: a first purchase verifies once). */
const VALID: Record<string, (app: TestApp) => Promise<Call> | Call> = {
  VerifyFirstReceipt: async (app) => ({
    path: '/receipt/verify/first',
    body: { receipt: (await mintReceipt(app)).receipt_data, productId: 'premium_monthly' },
  }),
  RecoverReceipt: async (app) => ({
    path: '/receipt/verify/recover',
    body: { receipt: (await mintReceipt(app)).receipt_data },
  }),
  ...Object.fromEntries(
    (['', 'V2'] as const).flatMap((v) => {
      const prefix = v ? '/v2' : '';
      return [
        [
          `ReportEvents${v}`,
          () => ({
            path: `${prefix}/users/report/events`,
            body: { events: [{ name: 'app_opened', user: USER, sessionId: 's-1' }] },
          }),
        ],
        [
          `ReportSession${v}`,
          () => ({
            path: `${prefix}/sessions/report`,
            body: { sessionId: `s-${v}`, startTime: Date.now() - 60_000, duration: 60 },
          }),
        ],
        [
          `ReportOrder${v}`,
          () => ({
            path: `${prefix}/order/report`,
            body: { orderId: `order-${v}`, productId: 'premium_monthly', price: 9.99, currency: 'USD' },
          }),
        ],
        [
          `ReportConversion${v}`,
          () => ({ path: `${prefix}/conversion/report`, body: { conversionType: 'trial_started', value: 1 } }),
        ],
        [`ReportGlobalSwitch${v}`, () => ({ path: `${prefix}/report/global_switch`, body: { enabled: true } })],
        [`ReportTyped${v}`, () => ({ path: `${prefix}/report/device_info`, body: { model: 'iPhone15,2' } })],
        [`UpdateUserAttributes${v}`, () => ({ path: `${prefix}/users/attribute/update`, body: { name: 'Ada' } })],
        // Served once the user is known: ReportEvents, earlier in the route table, made them so.
        [`CustomerInfo${v}`, () => ({ path: `${prefix}/users/customer_info` })],
        [`UserOfferings${v}`, () => ({ path: `${prefix}/offerings` })],
      ];
    }),
  ),
  ReportAttribution: () => ({
    path: '/attribution/report',
    body: { network: 'appsflyer', data: { campaign_id: 'c-1' } },
  }),
  ReportSearchAds: () => ({
    path: '/searchads/report',
    body: { attribution: { 'Version3.1': { 'iad-campaign-id': '1', 'iad-attribution': 'true' } } },
  }),
  SegmentInfo: () => ({ path: '/segment/info' }),
  AdsInfo: (app) => ({ path: `/adsinfo/ios/${app.appId}/1234567` }),
  SetCustomProperties: () => ({ path: '/users/custom_properties/set', body: { properties: { plan: 'gold' } } }),
  // The DingYue SDK's calls, with its bodies.
  DingYueReportSession: () => ({
    path: '/dingyue/sessions/report',
    body: { osVersion: 'iOS 17.5', appVersion: '1.2.0', device: 'iPhone15,2', connection: 'UNKNOWN' },
  }),
  DingYueVerifyFirstReceipt: async (app) => ({
    path: '/dingyue/receipt/verify/first',
    body: {
      appleReceipt: (await mintReceipt(app)).receipt_data,
      platformProductId: 'premium_monthly',
      price: '7.99',
      currencyCode: 'USD',
      countryCode: 'US',
    },
  }),
  DingYueRecoverReceipt: async (app) => ({
    path: '/dingyue/receipt/verify/recover',
    body: { appleReceipt: (await mintReceipt(app)).receipt_data },
  }),
  DingYueReportEvents: () => ({
    path: '/dingyue/users/report/events',
    body: { events: [{ name: 'ENTER_PAYWALL', extra: '2.0', user: 'paywall-1', sessionId: 's-1' }] },
  }),
  DingYueReportTyped: () => ({ path: '/dingyue/report/idfa', body: '6D92078A-8246-4BA4-AE5B-76104861E7DC' }),
  DingYueUpdateUserAttributes: () => ({
    path: '/dingyue/users/attribute/update',
    body: [{ key: 'uniqueUser.extraData.userPurchasedSources', value: 'paywall:Summer/7306/2.0', type: 'string' }],
  }),
  DingYueSetCustomProperties: () => ({ path: '/dingyue/users/custom_properties/set', body: { plan_tier: 'gold' } }),
  DingYueReportConversion: () => ({
    path: '/dingyue/conversion/report',
    body: { conversionValue: 1, coarseValue: 'LOW' },
  }),
  DingYueReportAttribution: () => ({
    path: '/dingyue/attribution/report',
    body: { appsFlyerId: '1690000000000-1234567' },
  }),
  DingYueReportSearchAds: () => ({
    path: '/dingyue/searchads/report',
    body: { attribution: { 'Version3.1': { 'iad-attribution': 'true', 'iad-campaign-id': '542370539' } } },
  }),
  DingYueSegmentInfo: () => ({ path: '/dingyue/segment/info' }),
  DingYueReportGlobalSwitch: () => ({
    path: '/dingyue/report/global_switch',
    body: { showName: 'New onboarding', varName: 'new_onboarding', value: true },
  }),
};

/** Under /dingyue the SDK's envelope: `ok` and `fail` (with `errmsg`) for our `success` and `error` (with `message`). */
const inDingYue = (route: Route) => route.path.startsWith('/dingyue/');

const MOBILE = ROUTES.filter((route) => route.api === 'mobile');
const declarations = await declarationsOf(MOBILE);
const ACTING_ON_USER = MOBILE.filter(
  (route) => mobileRulesOf(declarations.get(route.name) as MobileDeclaration).actsOnUser,
);

async function send(
  route: Route,
  app: TestApp,
  user: string,
  headers: Record<string, string | undefined> = {},
): Promise<HttpResult> {
  const { path, body } = await VALID[route.name]!(app);
  return request(route.method, path, { headers: mobileHeaders(app, user, headers), body });
}

const tokenFor = (secret: string, app: TestApp, user: string) => signUserToken(secret, app.appId, user, IN_A_DAY());

describe('mobile routes of an app that requires signed user tokens', () => {
  let app: TestApp;
  let secret: string;
  beforeAll(async () => {
    await createOwnTable();
    app = await createTestApp();
    secret = (await setUserTokenRequired(app.appId, true)).issued_secret!;
    // A profile for USER first, so that /segment/info (404 for a user never seen) answers 200.
    const seen = await request('POST', '/sessions/report', {
      headers: mobileHeaders(app, USER, { 'x-user-token': tokenFor(secret, app, USER) }),
      body: { sessionId: 'seed', startTime: Date.now() - 60_000, duration: 1 },
    });
    expect(seen.status).toBe(200);
  });

  it('the routes that act on a user are every mobile route, each with a request in this file', () => {
    expect(ACTING_ON_USER.map((route) => route.name).sort()).toEqual(MOBILE.map((route) => route.name).sort());
    expect(Object.keys(VALID).sort()).toEqual(ACTING_ON_USER.map((route) => route.name).sort());
  });

  it.each(ACTING_ON_USER.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no token or a wrong one is a 401 that writes nothing; the right token is served',
    async (_, route) => {
      const before = await snapshotTable();
      const userWindow = async () =>
        (
          await ddb.send(
            new GetCommand({ TableName: tableName, Key: keys.rateLimitWindow(app.appId, USER), ConsistentRead: true }),
          )
        ).Item?.request_count;
      const countedBefore = await userWindow();
      const refusals: [Record<string, string>, string, RegExp][] = [
        [{}, 'MISSING_REQUIRED_HEADER', /X-USER-TOKEN/],
        [
          { 'x-user-token': tokenFor(secret, app, 'someone-else') },
          'INVALID_USER_TOKEN',
          /not issued for this X-USER-ID/,
        ],
        [{ 'x-user-token': 'v1.123.abc' }, 'INVALID_USER_TOKEN', /not a v1 user token/],
        [
          { 'x-user-token': signUserToken(secret, app.appId, USER, Math.floor(Date.now() / 1000) - 1) },
          'INVALID_USER_TOKEN',
          /expired/,
        ],
      ];
      for (const [headers, code, message] of refusals) {
        const refused = await send(route, app, USER, headers);
        expect(refused.status, JSON.stringify(headers)).toBe(401);
        expect(refused.body).toEqual(
          inDingYue(route)
            ? { status: 'fail', code, errmsg: expect.stringMatching(message) }
            : { status: 'error', code, message: expect.stringMatching(message) },
        );
        // Not counted: a request without the user's token cannot spend that user's limit. The policy applies.
        expect(refused.headers.get('ratelimit')).toBeNull();
        expect(refused.headers.get('ratelimit-policy')).toMatch(/^"standard";q=\d+;w=60$/);
      }
      expect(diffSnapshots(before, await snapshotTable())).toEqual({ added: [], removed: [], changed: [] });
      expect(await userWindow()).toBe(countedBefore);

      const served = await send(route, app, USER, { 'x-user-token': tokenFor(secret, app, USER) });
      expect(served.status, JSON.stringify(served.body)).toBe(200);
      expect(served.body.status).toBe(inDingYue(route) ? 'ok' : 'success');
    },
  );

  it('the subscription API (secret key) does not ask for user tokens', async () => {
    expect((await request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, query: { user_id: USER } })).status).toBe(
      200,
    );
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey })).status).toBe(200);
  });

  it('the header rules and the app check still come first: 400 and 403 before any token check', async () => {
    const route = ROUTES.find((r) => r.name === 'UpdateUserAttributes')!;
    expect((await send(route, app, USER, { 'x-version': undefined })).body.code).toBe('MISSING_REQUIRED_HEADER');
    expect((await send(route, app, USER, { 'x-version': undefined })).status).toBe(400);
    expect((await send(route, app, USER, { 'x-app-id': 'app_0000000000000000' })).status).toBe(403);
  });

  it('costs no DynamoDB call more than a request of an app without the setting', async () => {
    const plain = await createTestApp([]);
    const route = ROUTES.find((r) => r.name === 'UpdateUserAttributes')!;
    const withToken = await dynamoDbRoundTrips(() =>
      send(route, app, USER, { 'x-user-token': tokenFor(secret, app, USER) }),
    );
    const without = await dynamoDbRoundTrips(() => send(route, plain, USER));
    expect(withToken).toEqual(without);
    // The sdk key read (KEY_CACHE_TTL_SECONDS=0 in tests), then the user's window counted.
    expect(withToken.slice(0, 2)).toEqual([['GetItem'], ['UpdateItem']]);
  });

  it('an sdk key issued after the setting was turned on requires tokens too', async () => {
    const key = await issueKey(app.appId, 'sdk');
    const route = ROUTES.find((r) => r.name === 'SetCustomProperties')!;
    const withNewKey = { ...app, sdkKey: key.key };
    expect((await send(route, withNewKey, USER)).status).toBe(401);
    expect((await send(route, withNewKey, USER, { 'x-user-token': tokenFor(secret, app, USER) })).status).toBe(200);
  });
});

describe('events of an app that requires signed user tokens belong to the user who sends them', () => {
  let app: TestApp;
  let secret: string;
  const VICTIM = 'token-victim';
  const withToken = (user: string) => mobileHeaders(app, user, { 'x-user-token': tokenFor(secret, app, user) });
  beforeAll(async () => {
    await createOwnTable();
    app = await createTestApp();
    secret = (await setUserTokenRequired(app.appId, true)).issued_secret!;
    // The victim has a history, an activity item and features of their own.
    const own = await request('POST', '/users/report/events', {
      headers: withToken(VICTIM),
      body: { events: [{ name: 'feature_used', user: VICTIM, sessionId: 's', extra: { feature_name: 'own' } }] },
    });
    expect(own.status).toBe(200);
  });

  it.each(['/users/report/events', '/v2/users/report/events'])(
    '%s: a valid token for one user and an event naming another is a 400 that writes nothing of either user',
    async (path) => {
      const victimItems = () =>
        Promise.all(
          [keys.userActivity(app.appId, VICTIM), keys.userFeatures(app.appId, VICTIM)].map(
            async (key) =>
              (await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item,
          ),
        );
      const victimBefore = await victimItems();
      const before = await snapshotTable();
      const res = await request('POST', path, {
        headers: withToken(USER),
        body: {
          events: [
            { name: 'app_opened', user: USER, sessionId: 's' },
            { name: 'feature_used', user: VICTIM, sessionId: 's', extra: { feature_name: 'planted' } },
          ],
        },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status: 'error',
        code: 'INVALID_PARAMETER',
        message: 'events[1]: user must be X-USER-ID: an event belongs to the user who sends it',
      });
      expect(await victimItems()).toEqual(victimBefore);
      expect(victimBefore[1]?.features).toEqual(new Set(['own']));
      expect(diffSnapshots(before, await snapshotTable())).toEqual({ added: [], removed: [], changed: [] });
    },
  );
});

describe('rotation and turning the setting off', () => {
  it('after the secret is rotated, tokens of the old one are refused and tokens of the new one served', async () => {
    const app = await createTestApp([]);
    const old = (await setUserTokenRequired(app.appId, true)).issued_secret!;
    const route = ROUTES.find((r) => r.name === 'UpdateUserAttributes')!;
    const oldToken = tokenFor(old, app, USER);
    expect((await send(route, app, USER, { 'x-user-token': oldToken })).status).toBe(200);

    const rotated = await issueUserTokenSecret(app.appId, true);
    expect(rotated.issued_secret).not.toBe(old);
    const refused = await send(route, app, USER, { 'x-user-token': oldToken });
    expect([refused.status, refused.body.code]).toEqual([401, 'INVALID_USER_TOKEN']);
    expect((await send(route, app, USER, { 'x-user-token': tokenFor(rotated.issued_secret, app, USER) })).status).toBe(
      200,
    );
  });

  it('turned off, requests without a token are served again; turned on again, the same secret holds', async () => {
    const app = await createTestApp([]);
    const secret = (await setUserTokenRequired(app.appId, true)).issued_secret!;
    const route = ROUTES.find((r) => r.name === 'SetCustomProperties')!;
    expect((await send(route, app, USER)).status).toBe(401);
    expect(await setUserTokenRequired(app.appId, false)).toEqual({ app_id: app.appId, require_user_token: false });
    expect((await send(route, app, USER)).status).toBe(200);
    // Off means not checked at all: a stale or garbage token changes nothing.
    expect((await send(route, app, USER, { 'x-user-token': 'garbage' })).status).toBe(200);
    expect(await setUserTokenRequired(app.appId, true)).toEqual({ app_id: app.appId, require_user_token: true });
    expect((await send(route, app, USER, { 'x-user-token': tokenFor(secret, app, USER) })).status).toBe(200);
  });
});

describe("mobile routes of an app without the setting (the spec's behaviour)", () => {
  let app: TestApp;
  beforeAll(async () => {
    await createOwnTable();
    app = await createTestApp();
    await request('POST', '/sessions/report', {
      headers: mobileHeaders(app, USER),
      body: { sessionId: 'seed', startTime: Date.now() - 60_000, duration: 1 },
    });
  });

  it.each(MOBILE.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s is served without X-USER-TOKEN, and with any',
    async (_, route) => {
      // Under /dingyue a refusal is a 200 too: served is `ok`.
      const served = inDingYue(route) ? { status: 200, body: { status: 'ok' } } : { status: 200 };
      for (const headers of [{}, { 'x-user-token': 'v1.1.not-a-token' }])
        expect(await send(route, app, USER, headers)).toMatchObject(served);
    },
  );
});
