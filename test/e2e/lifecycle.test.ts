import { beforeAll, describe, expect, it } from 'vitest';
import { STATUS_CHANGED, statusChangedPayload } from '../../lib/events/schemas.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { subscriptionDetail } from '../../lib/schemas/subscription.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { outboxEventsOf } from '../support/outbox.js';

const { request } = useGateway();

/** The status changes announced for one subscription, oldest first (read back from the table's stream). */
const statusChangesOf = async (appId: string, subscriptionId: string) =>
  (await outboxEventsOf(appId, subscriptionId)).filter((payload) => payload.event === STATUS_CHANGED);

describe('subscription lifecycle through HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const path = (id: string, operation = '') => `${SUBSCRIPTIONS_BASE}/${id}${operation ? `/${operation}` : ''}`;
  const post = (id: string, operation: string, body?: unknown) =>
    request('POST', path(id, operation), { bearer: app.secretKey, body });
  async function subscription(
    status: 'pending_verification' | 'active' | 'paused' | 'cancelled' | 'expired' = 'active',
  ): Promise<string> {
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: 'u-life', product_id: 'premium_monthly', platform: 'ios' },
    });
    const id = created.body.data.id as string;
    if (status === 'pending_verification') return id;
    await request('PUT', path(id), { bearer: app.secretKey, body: { status: 'active' } });
    if (status === 'paused') await post(id, 'pause', { pause_duration: 7 });
    if (status === 'cancelled') await post(id, 'cancel', { immediate: true });
    if (status === 'expired') await request('PUT', path(id), { bearer: app.secretKey, body: { status: 'expired' } });
    return id;
  }

  it('renew moves expires_at forward by one billing period and records the payment', async () => {
    const id = await subscription();
    const before = (await request('GET', path(id), { bearer: app.secretKey })).body.data;
    const res = await post(id, 'renew', { transaction_id: 'renewal-1', receipt_data: 'cmVuZXdhbA==' });
    expect(res.status).toBe(200);
    const after = subscriptionDetail.parse(res.body.data);
    expect(new Date(after.expires_at).getUTCMonth()).toBe((new Date(before.expires_at).getUTCMonth() + 1) % 12);
    expect(after.payment_info).toMatchObject({ transaction_id: 'renewal-1', receipt_data: 'cmVuZXdhbA==' });
    expect(after.payment_info.last_payment).not.toBeNull();
    expect(await outboxEventsOf(app.appId, id)).toHaveLength(1); // only the activation: a renewal changes no status
  });

  it('renew with an explicit expires_at that is not later is a 400', async () => {
    const id = await subscription();
    const res = await post(id, 'renew', { expires_at: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.expires_at');
  });

  it('renewing twice with the same transaction is applied once', async () => {
    const id = await subscription();
    const first = await post(id, 'renew', { transaction_id: 'renewal-once' });
    const again = await post(id, 'renew', { transaction_id: 'renewal-once' });
    expect(again.status).toBe(200);
    expect(again.body.data.expires_at).toBe(first.body.data.expires_at);
    const other = await subscription();
    expect((await post(other, 'renew', { transaction_id: 'renewal-once' })).body.error.code).toBe(
      'RECEIPT_ALREADY_USED',
    );
  });

  it('pause sets paused_until and resume pushes expires_at back by the time paused', async () => {
    const id = await subscription();
    const before = (await request('GET', path(id), { bearer: app.secretKey })).body.data;
    const paused = await post(id, 'pause', { pause_duration: 2, unit: 'weeks', reason: 'travel' });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ status: 'paused', pause_reason: 'travel' });
    expect(Date.parse(paused.body.data.paused_until) - Date.parse(paused.body.data.paused_at)).toBe(14 * 86_400_000);
    const resumed = await post(id, 'resume');
    expect(resumed.body.data).toMatchObject({ status: 'active', paused_at: null, paused_until: null });
    // Pausing leaves expires_at; resuming adds exactly the time paused: from paused_at to the
    // resume (the updated_at of the change).
    expect(paused.body.data.expires_at).toBe(before.expires_at);
    const pausedMs = Date.parse(resumed.body.data.updated_at) - Date.parse(paused.body.data.paused_at);
    expect(resumed.body.data.expires_at).toBe(new Date(Date.parse(before.expires_at) + pausedMs).toISOString());
    const events = (await statusChangesOf(app.appId, id)).map((payload) => statusChangedPayload.parse(payload).data);
    expect(events.map((e) => `${e.old_status}->${e.new_status}`)).toEqual([
      'pending_verification->active',
      'active->paused',
      'paused->active',
    ]);
  });

  it('cancel without immediate keeps access until expires_at with auto_renew off', async () => {
    const id = await subscription();
    const res = await post(id, 'cancel', { reason: 'too_expensive' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'active',
      auto_renew: false,
      cancel_at_period_end: true,
      cancellation_reason: 'too_expensive',
    });
    expect(res.body.data.payment_info.next_billing).toBeNull();
    expect(await outboxEventsOf(app.appId, id)).toHaveLength(1);
  });

  it('cancel immediate with refund ends access now and emits one notification with the spec payload', async () => {
    const id = await subscription();
    const res = await post(id, 'cancel', { immediate: true, refund: true, reason: 'refund_requested' });
    expect(res.body.data).toMatchObject({ status: 'cancelled', auto_renew: false, refunded_at: expect.any(String) });
    // Announced for this app's subscription (outboxEventsOf reads one app's events).
    const outbox = await outboxEventsOf(app.appId, id);
    expect(outbox).toHaveLength(2);
    const payload = statusChangedPayload.parse(outbox[1]);
    expect(payload).toEqual({
      event: 'subscription.status_changed',
      timestamp: expect.any(String),
      data: {
        subscription_id: id,
        user_id: 'u-life',
        old_status: 'active',
        new_status: 'cancelled',
        expires_at: res.body.data.expires_at,
        auto_renew: false,
      },
    });
  });

  it('refund without immediate is a 400', async () => {
    const id = await subscription();
    const res = await post(id, 'cancel', { refund: true });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.refund');
  });

  it.each([
    ['pending_verification', 'renew', {}],
    ['pending_verification', 'pause', { pause_duration: 3 }],
    ['pending_verification', 'resume', undefined],
    ['active', 'resume', undefined],
    ['paused', 'renew', {}],
    ['paused', 'pause', { pause_duration: 3 }],
    ['cancelled', 'renew', {}],
    ['cancelled', 'pause', { pause_duration: 3 }],
    ['cancelled', 'resume', undefined],
    ['cancelled', 'cancel', { immediate: true }],
    ['cancelled', 'cancel', {}],
  ] as const)('%s + %s is a 409 INVALID_STATUS_TRANSITION naming the status', async (status, operation, body) => {
    const id = await subscription(status);
    const res = await post(id, operation, body);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      message: expect.stringContaining(status),
    });
  });

  it.each([
    ['renew', {}],
    ['pause', { pause_duration: 3 }],
    ['resume', undefined],
    ['cancel', { immediate: true }],
    ['cancel', {}],
  ] as const)('expired + %s is SUBSCRIPTION_EXPIRED', async (operation, body) => {
    const id = await subscription('expired');
    const res = await post(id, operation, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SUBSCRIPTION_EXPIRED');
  });

  it.each([
    ['pending_verification', 'cancel', { immediate: false }, 'cancelled'],
    ['paused', 'cancel', {}, 'cancelled'],
    ['paused', 'cancel', { immediate: true }, 'cancelled'],
    ['pending_verification', 'cancel', { immediate: true }, 'cancelled'],
  ] as const)('%s + %s %o -> %s', async (status, operation, body, expected) => {
    const id = await subscription(status);
    const res = await post(id, operation, body);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe(expected);
  });

  it.each([
    [{ pause_duration: 0 }, 'body.pause_duration'],
    [{ pause_duration: 366 }, 'body.pause_duration'],
    [{ pause_duration: 53, unit: 'weeks' }, 'body.pause_duration'],
    [{ pause_duration: 1.5 }, 'body.pause_duration'],
    [{ pause_duration: 3, unit: 'fortnights' }, 'body.unit'],
    [{}, 'body.pause_duration'],
  ])('pause %o is a 400 naming %s', async (body, field) => {
    const id = await subscription();
    const res = await post(id, 'pause', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('resume with a body is a 400; lifecycle operations on unknown or foreign ids are 404', async () => {
    const id = await subscription('paused');
    expect((await post(id, 'resume', { now: true })).status).toBe(400);
    expect((await post('sub_0123456789abcdef01234567', 'cancel', {})).status).toBe(404);
    const other = await createTestApp();
    const foreign = await request('POST', path(id, 'resume'), { bearer: other.secretKey });
    expect(foreign.status).toBe(404);
  });
});
