/**
 * `GET /v1/subscriptions/{subscription_id}/history` over the local gateway: two subscriptions' whole
 * lives, each step at a fixed time (Date frozen, timers real), read back as literal entries. One is
 * an API subscription (create, activate, renew, pause, resume, cancel at period end, ended by the
 * sweeper's step), one a test-store purchase (verified, then store notifications, one delivered twice).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getApp } from '../../lib/data/apps.js';
import { NOTIFICATIONS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { advanceSubscriptionClock } from '../../lib/services/subscriptions.js';
import { mintTestNotification, type TestNotificationType } from '../../lib/stores/test-store-notifications.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();

/** Runs `action` with Date stopped at `iso`: every write it makes is stamped with that time. */
async function at<T>(iso: string, action: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.parse(iso));
  try {
    return await action();
  } finally {
    vi.useRealTimers();
  }
}

describe('a subscription history over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const bearer = () => app.secretKey;
  const path = (id: string, operation = '') => `${SUBSCRIPTIONS_BASE}/${id}${operation ? `/${operation}` : ''}`;
  async function ok(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) {
    const res = await request(method, url, { bearer: bearer(), body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  }
  const history = (id: string, query = '') => request('GET', `${path(id, 'history')}${query}`, { bearer: bearer() });

  it('an API subscription: every change one entry, newest first, with its cause, action and changed fields', async () => {
    const id = await at('2030-01-01T12:00:00.000Z', async () => {
      const created = await ok('POST', SUBSCRIPTIONS_BASE, {
        user_id: 'history-user',
        product_id: 'premium_monthly',
        platform: 'ios',
      });
      return created.data.id as string;
    });
    await at('2030-01-02T12:00:00.000Z', () => ok('PUT', path(id), { status: 'active' }));
    await at('2030-01-03T12:00:00.000Z', () => ok('POST', path(id, 'renew'), {}));
    await at('2030-01-04T12:00:00.000Z', () => ok('POST', path(id, 'pause'), { pause_duration: 2 }));
    await at('2030-01-05T12:00:00.000Z', () => ok('POST', path(id, 'resume')));
    await at('2030-01-07T12:00:00.000Z', () => ok('POST', path(id, 'cancel'), { reason: 'too expensive' }));
    // What the sweeper does to each subscription due (the sweep itself would touch other files' subscriptions too).
    await at('2030-04-01T12:00:00.000Z', () => advanceSubscriptionClock(app.appId, id));

    const res = await history(id);
    expect(res.status).toBe(200);
    const api = (version: number, at: string, action: string, changes: unknown[]) => ({
      version,
      at,
      cause: 'api',
      action,
      notification_type: null,
      changes,
    });
    const change = (field: string, from: unknown, to: unknown) => ({ field, from, to });
    expect(res.body).toEqual({
      data: [
        {
          version: 7,
          at: '2030-04-01T12:00:00.000Z',
          cause: 'sweeper',
          action: 'time_passes',
          notification_type: null,
          changes: [change('status', 'active', 'cancelled')],
        },
        api(6, '2030-01-07T12:00:00.000Z', 'cancel', [
          change('auto_renew', true, false),
          change('cancel_at_period_end', false, true),
          change('cancelled_at', null, '2030-01-07T12:00:00.000Z'),
          change('cancellation_reason', null, 'too expensive'),
        ]),
        // The paused day is given back: expires_at moves by it.
        api(5, '2030-01-05T12:00:00.000Z', 'resume', [
          change('status', 'paused', 'active'),
          change('expires_at', '2030-03-01T12:00:00.000Z', '2030-03-02T12:00:00.000Z'),
          change('paused_at', '2030-01-04T12:00:00.000Z', null),
          change('paused_until', '2030-01-06T12:00:00.000Z', null),
        ]),
        api(4, '2030-01-04T12:00:00.000Z', 'pause', [
          change('status', 'active', 'paused'),
          change('paused_at', null, '2030-01-04T12:00:00.000Z'),
          change('paused_until', null, '2030-01-06T12:00:00.000Z'),
        ]),
        api(3, '2030-01-03T12:00:00.000Z', 'renew', [
          change('expires_at', '2030-02-01T12:00:00.000Z', '2030-03-01T12:00:00.000Z'),
        ]),
        api(2, '2030-01-02T12:00:00.000Z', 'update', [change('status', 'pending_verification', 'active')]),
        api(1, '2030-01-01T12:00:00.000Z', 'create', [
          change('status', null, 'pending_verification'),
          change('expires_at', null, '2030-02-01T12:00:00.000Z'),
          change('auto_renew', null, true),
          change('product_id', null, 'premium_monthly'),
          change('price', null, 9.99),
          change('currency', null, 'USD'),
          change('cancel_at_period_end', null, false),
        ]),
      ],
      pagination: { limit: 20, next_cursor: null },
    });

    // Page by page: the same entries, each page's cursor reading the next, older one.
    const pages: unknown[] = [];
    let query = '?limit=3';
    for (;;) {
      const page = await history(id, query);
      expect(page.status).toBe(200);
      pages.push(...page.body.data);
      if (page.body.pagination.next_cursor === null) break;
      query = `?limit=3&cursor=${page.body.pagination.next_cursor}`;
    }
    expect(pages).toEqual(res.body.data);
  });

  it("an unknown subscription is 404; a cursor of another subscription's history is 400", async () => {
    const unknown = await history('sub_000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    const first = await at('2030-01-01T12:00:00.000Z', () =>
      ok('POST', SUBSCRIPTIONS_BASE, { user_id: 'history-user-2', product_id: 'premium_monthly', platform: 'ios' }),
    );
    const second = await at('2030-01-01T12:00:00.000Z', () =>
      ok('POST', SUBSCRIPTIONS_BASE, { user_id: 'history-user-3', product_id: 'premium_monthly', platform: 'ios' }),
    );
    await ok('PUT', path(first.data.id), { status: 'active' });
    const page = await history(first.data.id, '?limit=1');
    expect(page.body.pagination.next_cursor).not.toBeNull();
    const crossed = await history(second.data.id, `?cursor=${page.body.pagination.next_cursor}`);
    expect(crossed.status).toBe(400);
    expect(crossed.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: [{ path: 'query.cursor' }] });
  });

  it('a store purchase: verified, then the store notifications; one delivered twice is one entry', async () => {
    const receipt = await at('2030-01-01T12:00:00.000Z', () => mintReceipt(app));
    const id = await at('2030-01-01T12:00:00.000Z', async () => {
      const verified = await ok('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
        platform: 'ios',
        user_id: 'history-buyer',
        receipt_data: receipt.receipt_data,
      });
      return verified.data.subscription_id as string;
    });
    const privateKeyPem = (await getApp(app.appId))!.test_store_private_key!;
    const notify = (type: TestNotificationType, iso: string) =>
      mintTestNotification({
        appId: app.appId,
        privateKeyPem,
        type,
        latest: {
          transactionId: receipt.transaction_id,
          originalTransactionId: receipt.transaction_id,
          productId: 'premium_monthly',
          platform: 'ios',
          purchaseDate: new Date('2030-01-01T12:00:00.000Z'),
          expiresDate: new Date('2030-01-31T12:00:00.000Z'),
          price: 9.99,
          currency: 'USD',
          trial: false,
        },
        autoRenew: true,
        now: new Date(iso),
      });
    const post = (body: unknown, iso: string) =>
      at(iso, async () => {
        const res = await request('POST', `${NOTIFICATIONS_BASE}/test-store/${app.appId}`, { body });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body;
      });
    const autoRenewOff = notify('auto_renew_off', '2030-01-10T12:00:00.000Z');
    await post(autoRenewOff, '2030-01-10T12:00:00.000Z');
    await post(autoRenewOff, '2030-01-10T12:05:00.000Z');
    await post(notify('refunded', '2030-01-12T12:00:00.000Z'), '2030-01-12T12:00:00.000Z');

    const res = await history(id);
    expect(res.status).toBe(200);
    const change = (field: string, from: unknown, to: unknown) => ({ field, from, to });
    expect(res.body.data).toEqual([
      {
        version: 3,
        at: '2030-01-12T12:00:00.000Z',
        cause: 'store_notification',
        action: 'sync',
        notification_type: 'REFUND',
        changes: [
          change('status', 'active', 'cancelled'),
          change('expires_at', '2030-01-31T12:00:00.000Z', '2030-01-12T12:00:00.000Z'),
          change('cancelled_at', null, '2030-01-12T12:00:00.000Z'),
          change('cancellation_reason', null, 'refunded_by_store'),
          change('refunded_at', null, '2030-01-12T12:00:00.000Z'),
        ],
      },
      // The second delivery of the same notification changed nothing, and is no entry.
      {
        version: 2,
        at: '2030-01-10T12:00:00.000Z',
        cause: 'store_notification',
        action: 'sync',
        notification_type: 'DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED',
        changes: [change('auto_renew', true, false)],
      },
      {
        version: 1,
        at: '2030-01-01T12:00:00.000Z',
        cause: 'verification',
        action: 'create',
        notification_type: null,
        changes: [
          change('status', null, 'active'),
          change('expires_at', null, '2030-01-31T12:00:00.000Z'),
          change('auto_renew', null, true),
          change('product_id', null, 'premium_monthly'),
          change('price', null, 9.99),
          change('currency', null, 'USD'),
          change('cancel_at_period_end', null, false),
        ],
      },
    ]);
    // The buyer's id is on the subscription, never in its history.
    expect(JSON.stringify(res.body)).not.toContain('history-buyer');
  });
});
