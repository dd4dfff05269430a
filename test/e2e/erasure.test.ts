/**
 * Issue #16, deletion: DELETE /v1/customers/{user_id} over HTTP through the local gateway, for a
 * user the mobile SDK reported (profile, attributes, custom properties, sessions, events, reports),
 * who holds a grant and bought through the test store. Its own table, so a Scan shows that nothing
 * of the user is left.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `erasure-e2e-${process.pid}`;
});

import { newEventId } from '../../lib/core/ids.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { userPartitionsOf } from '../../lib/data/table-keys.js';
import { createDelivery } from '../../lib/data/webhooks.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE, WEBHOOKS_BASE } from '../../lib/routes.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { type RequestOptions, useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable } from '../support/own-table.js';
import { mintReceipt } from '../support/receipts.js';
import { seedSubscription } from '../support/subscriptions.js';

const { request } = useGateway();
const USER = 'leaving-user';

describe('erasure (DELETE /v1/customers/{user_id})', () => {
  let app: TestApp;
  let subscriptionId: string;

  const server = (method: string, path: string, options: RequestOptions = {}) =>
    request(method, path, { bearer: app.secretKey, ...options });
  const sdk = async (method: string, path: string, body?: unknown) => {
    const res = await request(method, path, { headers: mobileHeaders(app, USER), body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  /** Every item that is the user's or names them. */
  async function itemsOfUser(): Promise<string[]> {
    const partitions: string[] = Object.values(userPartitionsOf(app.appId, USER));
    const { Items = [] } = await ddb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
    return Items.filter(
      (item) =>
        partitions.includes(item.pk) ||
        (item.app_id === app.appId && (item.user_id === USER || item.owner_user_id === USER)),
    ).map((item) => `${item.pk} ${item.sk}`);
  }

  beforeAll(async () => {
    await createOwnTable();
    app = await createTestApp([PREMIUM_MONTHLY]);
    await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    await sdk('PUT', '/users/attribute/update', { email: 'leaving@example.com', language: 'de' });
    await sdk('POST', '/users/custom_properties/set', { properties: { tier: 'gold' } });
    await sdk('POST', '/sessions/report', { sessionId: 's-1', startTime: Date.now() - 60_000, duration: 60 });
    await sdk('POST', '/users/report/events', {
      events: ['paywall', 'settings', 'export'].map((screen) => ({ eventName: 'screen_view', properties: { screen } })),
    });
    await sdk('POST', '/conversion/report', { conversionType: 'trial_started', value: 1 });
    await sdk('POST', '/order/report', { orderId: 'o-1', productId: 'premium_monthly', price: 9.99, currency: 'USD' });
    const granted = await server('POST', `${CUSTOMERS_BASE}/${USER}/entitlements/pro/grant`, {
      body: { duration: 'P1M' },
    });
    expect(granted.status).toBe(200);
    const { receipt_data } = await mintReceipt(app, { product: PREMIUM_MONTHLY });
    const verified = await server('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      body: { platform: 'ios', receipt_data, user_id: USER },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    subscriptionId = verified.body.data.subscription_id;
  });

  it("removes the user's data, answers the counts, keeps the subscription anonymised; the events are gone from the table", async () => {
    expect((await itemsOfUser()).some((key) => key.startsWith('EVENTS#'))).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    const revenue = () => server('GET', `${SUBSCRIPTIONS_BASE}/revenue?start_date=${today}&end_date=${today}`);
    const revenueBefore = (await revenue()).body;

    const res = await server('DELETE', `${CUSTOMERS_BASE}/${USER}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      data: {
        user_id: USER,
        status: 'erased',
        removed: {
          // The profile (attributes and custom properties in it) and the activity of the event batch.
          profile: 2,
          events: 3,
          sessions: 1,
          orders: 1,
          // The conversion's history item.
          reports: 1,
          grants: 1,
          // No webhook deliverer runs here: no event was recorded as naming the user.
          webhook_events: 0,
          subscriptions_detached: 1,
        },
      },
    });
    expect(await itemsOfUser()).toEqual([]);

    expect((await server('GET', `${CUSTOMERS_BASE}/${USER}`)).body.error.code).toBe('CUSTOMER_NOT_FOUND');
    const mobile = await request('GET', '/users/customer_info', { headers: mobileHeaders(app, USER) });
    expect(mobile.body.code).toBe('USER_NOT_FOUND');
    expect((await server('GET', `${SUBSCRIPTIONS_BASE}?user_id=${USER}`)).body.pagination.total).toBe(0);
    const kept = await server('GET', `${SUBSCRIPTIONS_BASE}/${subscriptionId}`);
    expect(kept.body.data).toMatchObject({ status: 'active', user_id: expect.stringMatching(/^erased_/) });
    expect((await revenue()).body).toEqual(revenueBefore);
  });

  it('is idempotent: a second DELETE answers 200 with zero counts', async () => {
    const res = await server('DELETE', `${CUSTOMERS_BASE}/${USER}`);
    expect(res.body).toEqual({
      data: {
        user_id: USER,
        status: 'erased',
        removed: {
          profile: 0,
          events: 0,
          sessions: 0,
          orders: 0,
          reports: 0,
          grants: 0,
          webhook_events: 0,
          subscriptions_detached: 0,
        },
      },
    });
  });

  it('stays done under concurrent writes: 12 parallel PUT auto_renew toggles never put the user back (8 rounds)', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 8; round++) {
      const user = `racing-user-${round}`;
      const { id } = await seedSubscription(app.appId, { user_id: user });
      const toggles = Array.from({ length: 12 }, (_, i) =>
        server('PUT', `${SUBSCRIPTIONS_BASE}/${id}`, { body: { auto_renew: i % 2 === 0 } }),
      );
      let erased = await server('DELETE', `${CUSTOMERS_BASE}/${user}`);
      await Promise.all(toggles);
      // Writers that kept refusing the detach leave it under way (202): asked again, it finishes.
      for (let again = 0; erased.status === 202 && again < 5; again++)
        erased = await server('DELETE', `${CUSTOMERS_BASE}/${user}`);
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
      const kept = await server('GET', `${SUBSCRIPTIONS_BASE}/${id}`);
      const listed = await server('GET', `${SUBSCRIPTIONS_BASE}?user_id=${user}`);
      outcomes.push(
        `${kept.body.data.user_id.startsWith('erased_') ? 'erased' : kept.body.data.user_id}, listed ${listed.body.data.length}`,
      );
    }
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => 'erased, listed 0'));
  }, 120_000);

  it("refuses to redeliver an erased user's event it could not delete: 409 EVENT_OF_ERASED_USER", async () => {
    const user = 'erased-with-old-delivery';
    const { id } = await seedSubscription(app.appId, { user_id: user });
    const event = {
      app_id: app.appId,
      event_id: newEventId(),
      payload: {
        event: 'subscription.status_changed' as const,
        timestamp: new Date().toISOString(),
        data: {
          subscription_id: id,
          user_id: user,
          old_status: 'pending_verification' as const,
          new_status: 'active' as const,
          expires_at: new Date(Date.now() + 86_400_000).toISOString(),
          auto_renew: true,
        },
      },
    };
    // Recorded the way deliveries were before the deliverer noted the users an event names.
    await createDelivery(event, new Date());
    expect((await server('DELETE', `${CUSTOMERS_BASE}/${user}`)).status).toBe(200);
    const res = await server('POST', `${WEBHOOKS_BASE}/deliveries/${event.event_id}/redeliver`);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 409, code: 'EVENT_OF_ERASED_USER' });
  });

  it('a user id over 256 characters is a 400', async () => {
    const res = await server('DELETE', `${CUSTOMERS_BASE}/${'u'.repeat(257)}`);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: 'INVALID_PARAMETER' });
  });
});
