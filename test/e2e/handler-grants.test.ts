import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleCounters } from '../support/counters.js';

// The App Store notification is signed by the stand-in chain; Google's push is checked against the stand-in.
vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));
const google = await vi.hoisted(async () => {
  const { startGooglePlayStandIn } = await import('../support/google-play-standin.js');
  const standIn = await startGooglePlayStandIn('com.example.subs');
  // Store URLs are configuration read once at start-up: set before lib/ is imported.
  process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
  process.env.GOOGLE_PLAY_API_BASE_URL = standIn.url;
  process.env.GOOGLE_OAUTH_TOKEN_URL = standIn.tokenUrl;
  return standIn;
});

import { ROUTES } from '../../lib/routes.js';
import { dynamoDbActions } from '../support/dynamodb-calls.js';
import { ROUTE_GRANTS } from '../support/grants.js';
import { authHeaders, buildFixture, type Fixture, VALID } from '../support/hostile-endpoints.js';
import { pathOf } from '../support/hostile-input.js';
import { useGateway } from '../support/http.js';
import { buildNotificationFixture } from '../support/notification-requests.js';
import { seedSubscription } from '../support/subscriptions.js';

const { request } = useGateway();

/**
 * What each route's handler actually sends to DynamoDB, recorded in-process (the local gateway
 * runs the handlers in this worker) for its valid request (the seed of the hostile-input fuzzing),
 * checked against the grants written out in test/support/grants.ts, which test/cdk/stack.test.ts
 * checks the synthesized templates against: a handler calling what its function may not would fail in AWS only.
 */
describe('every DynamoDB action a route handler calls is granted to its function', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await buildFixture();
    fixture.notifications = await buildNotificationFixture(fixture.app, google);
  });
  afterAll(() => google.close());
  // A fresh active subscription per route: cancel would leave the next routes a cancelled one.
  beforeEach(async () => {
    if (fixture)
      fixture.subscriptions.active = (await seedSubscription(fixture.app.appId, { user_id: 'fuzz-user' })).id;
    // Counted now, so that a list or revenue read below does not count it in the handler's calls.
    await settleCounters();
  });

  it.each(ROUTES.map((route) => [route.name, route] as const))('%s', async (name, route) => {
    const valid = VALID[name]!(fixture);
    const query = new URLSearchParams(valid.query ?? {}).toString();
    let status = 0;
    let body: any;
    const stacks = new Map<string, string>();
    const actions = await dynamoDbActions(async () => {
      const res = await request(route.method, `${pathOf(route, valid.params ?? {})}${query ? `?${query}` : ''}`, {
        headers: authHeaders(route, fixture),
        body: valid.body,
      });
      status = res.status;
      body = res.body;
    }, stacks);
    // The valid request succeeds, so the handler went all the way (under /dingyue a refusal is a 200 too).
    expect(status, name).toBeLessThan(300);
    if (route.path.startsWith('/dingyue/')) expect(body.status, JSON.stringify(body)).toBe('ok');
    const granted = new Set(ROUTE_GRANTS[name]?.table ?? []);
    const ungranted = [...actions].filter((action) => !granted.has(action as never)).sort();
    // Where each was sent from, to tell the handler's own call from anything else in this process.
    expect(ungranted, `${name}\n${ungranted.map((action) => stacks.get(action)).join('\n')}`).toEqual([]);
    if (route.api === 'notifications') {
      // Applied to the verified test-store purchase; kept on the purchases no user verified yet.
      expect(body.data.outcome, name).toBe(name === 'TestStoreNotification' ? 'applied' : 'kept');
      // No key to count; the purchase is read with the notification's record, and something is written.
      expect(actions, name).toContain('BatchGetItem');
      expect(actions.has('PutItem') || actions.has('UpdateItem'), name).toBe(true);
    } else if (route.table.length === 0) {
      // RevenueCat's health check, sent without a key: nothing read, nothing counted.
      expect([...actions], name).toEqual([]);
    } else {
      // Every other route authenticates and counts the request.
      expect(actions, name).toContain('UpdateItem');
    }
  });
});
