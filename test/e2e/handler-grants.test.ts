import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/routes.js';
import { dynamoDbActions } from '../support/dynamodb-calls.js';
import { ROUTE_GRANTS } from '../support/grants.js';
import { authHeaders, buildFixture, type Fixture, VALID } from '../support/hostile-endpoints.js';
import { pathOf } from '../support/hostile-input.js';
import { useGateway } from '../support/http.js';
import { seedSubscription } from '../support/subscriptions.js';

const { request } = useGateway();

/**
 * What each route's handler actually sends to DynamoDB, recorded in-process (the local gateway
 * runs the handlers in this worker) for its valid request (the seed of the hostile-input fuzzing),
 * checked against the grants written out in test/support/grants.ts, which test/cdk/stack.test.ts
 * checks the template against: a handler calling what its function may not would fail in AWS only.
 */
describe('every DynamoDB action a route handler calls is granted to its function', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await buildFixture();
  });
  // A fresh active subscription per route: cancel would leave the next routes a cancelled one.
  beforeEach(async () => {
    if (fixture)
      fixture.subscriptions.active = (await seedSubscription(fixture.app.appId, { user_id: 'fuzz-user' })).id;
  });

  it.each(ROUTES.map((route) => [route.name, route] as const))('%s', async (name, route) => {
    const valid = VALID[name]!(fixture);
    const query = new URLSearchParams(valid.query ?? {}).toString();
    let status = 0;
    const actions = await dynamoDbActions(async () => {
      const res = await request(route.method, `${pathOf(route, valid.params ?? {})}${query ? `?${query}` : ''}`, {
        headers: authHeaders(route, fixture),
        body: valid.body,
      });
      status = res.status;
    });
    // The valid request succeeds, so the handler went all the way.
    expect(status, name).toBeLessThan(300);
    const granted = new Set(ROUTE_GRANTS[name]?.table ?? []);
    expect([...actions].filter((action) => !granted.has(action as never)).sort(), name).toEqual([]);
    // Every route authenticates and counts the request.
    expect(actions, name).toContain('UpdateItem');
  });
});
