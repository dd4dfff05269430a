import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  process.env.TABLE_NAME = `notifications-e2e-${process.pid}`;
});

import { setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { admin } from '../support/processes.js';
import { seedSubscription } from '../support/subscriptions.js';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
  waitUntil,
} from '../support/webhook-receiver.js';

const SWEEP_INTERVAL_SECONDS = 1;

describe('status-change notifications end to end (gateway -> table -> stream -> bus -> webhook)', () => {
  let runtime: LocalRuntime;
  let receiver: WebhookReceiver;
  let app: TestApp;
  const request = async (method: string, path: string, body?: unknown) => {
    const response = await contractFetch(`${runtime.gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${app.secretKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const webhooksOf = (subscriptionId: string): ReceivedWebhook[] =>
    receiver.accepted().filter((r) => r.payload.data.subscription_id === subscriptionId);

  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp();
    const { secret } = await setWebhook(app.appId, receiver.url);
    receiver.setSecret(secret);
    // As test/support/http.ts: on a loaded machine 50 parallel requests can outlast the stack's
    // 10 s function timeout, and a timed-out handler still writes after its 502, past any count.
    runtime = await startLocalRuntime({
      port: 0,
      sweepIntervalSeconds: SWEEP_INTERVAL_SECONDS,
      functionTimeoutMs: 60_000,
    });
  });
  afterAll(async () => {
    await runtime?.stop();
    await receiver?.close();
  });

  it('a subscription whose expires_at passes is expired by the sweeper and its signed webhook arrives', async () => {
    const sub = await seedSubscription(app.appId, {
      expires_at: new Date(Date.now() + 500).toISOString(),
      user_id: 'u-expiring',
    });
    await waitUntil(() => webhooksOf(sub.id).length > 0, 15_000, 'the expiry webhook');
    const detail = (await request('GET', `${SUBSCRIPTIONS_BASE}/${sub.id}`)).body.data;
    expect(detail.status).toBe('expired');
    const [webhook] = webhooksOf(sub.id);
    // The notification's timestamp is the moment of the status change (the record's, not the
    // clock's on arrival): how soon after expires_at that came depends on the machine's load.
    expect(webhook!.payload.timestamp).toBe(detail.updated_at);
    expect(Date.parse(webhook!.payload.timestamp)).toBeGreaterThanOrEqual(Date.parse(sub.expires_at));
    expect(webhook!.verified).toBe(true);
    expect(webhook!.payload).toEqual({
      event: 'subscription.status_changed',
      timestamp: expect.any(String),
      data: {
        subscription_id: sub.id,
        user_id: 'u-expiring',
        old_status: 'active',
        new_status: 'expired',
        expires_at: sub.expires_at,
        auto_renew: false,
      },
    });
  });

  it('a subscription cancelled at period end turns cancelled at expires_at, with one webhook per change', async () => {
    const sub = await seedSubscription(app.appId, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(
      (await request('POST', `${SUBSCRIPTIONS_BASE}/${sub.id}/cancel`, { reason: 'moving_on' })).body.data,
    ).toMatchObject({ status: 'active', cancel_at_period_end: true });
    await waitUntil(() => webhooksOf(sub.id).length > 0, 15_000, 'the cancellation webhook');
    await waitForIdlePipeline({ appId: app.appId });
    expect(webhooksOf(sub.id).map((w) => `${w.payload.data.old_status}->${w.payload.data.new_status}`)).toEqual([
      'active->cancelled',
    ]);
  });

  it('an immediate cancel after a scheduled one ends access now, in the detail and in the webhook', async () => {
    const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const sub = await seedSubscription(app.appId, { expires_at: future, user_id: 'u-cancel-twice' });
    const scheduled = await request('POST', `${SUBSCRIPTIONS_BASE}/${sub.id}/cancel`, { reason: 'too_expensive' });
    expect(scheduled.body.data).toMatchObject({ status: 'active', cancel_at_period_end: true, expires_at: future });

    const before = Date.now();
    const immediate = await request('POST', `${SUBSCRIPTIONS_BASE}/${sub.id}/cancel`, { immediate: true });
    expect(immediate.status).toBe(200);
    const detail = immediate.body.data;
    expect(detail).toMatchObject({ status: 'cancelled', cancel_at_period_end: false, auto_renew: false });
    expect(detail.expires_at).toBe(detail.cancelled_at);
    expect(Date.parse(detail.expires_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(detail.expires_at)).toBeLessThanOrEqual(Date.now());

    await waitForIdlePipeline({ appId: app.appId });
    expect(webhooksOf(sub.id).map((w) => w.payload.data)).toEqual([
      {
        subscription_id: sub.id,
        user_id: 'u-cancel-twice',
        old_status: 'active',
        new_status: 'cancelled',
        expires_at: detail.expires_at,
        auto_renew: false,
      },
    ]);
  });

  it('50 parallel cancel/renew/pause/resume requests: no lost update, one webhook per committed status change', async () => {
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      user_id: 'u-race',
      product_id: 'premium_monthly',
      platform: 'android',
    });
    const id = created.body.data.id as string;
    await request('PUT', `${SUBSCRIPTIONS_BASE}/${id}`, { status: 'active' });
    const operations = Array.from({ length: 50 }, (_, i) => ['pause', 'resume', 'renew', 'cancel'][i % 4]!);
    const bodies: Record<string, unknown> = {
      pause: { pause_duration: 1 },
      resume: undefined,
      renew: {},
      cancel: { immediate: false },
    };
    const burst = () =>
      Promise.all(
        operations.map(async (op) => ({
          op,
          ...(await request('POST', `${SUBSCRIPTIONS_BASE}/${id}/${op}`, bodies[op])),
        })),
      );
    // pause and resume always change the status; cancel (at period end) does when it meets a paused
    // subscription, which it cancels at once; renew never does.
    const statusChangesOf = (results: Awaited<ReturnType<typeof burst>>) =>
      results.filter(
        (r) =>
          r.status === 200 &&
          (r.op === 'pause' || r.op === 'resume' || (r.op === 'cancel' && r.body.data.status === 'cancelled')),
      ).length;
    // On a loaded machine the few requests that win a burst may all be renewals, which change no
    // status: burst again (three times at most) so that the race has status changes to check.
    const results: Awaited<ReturnType<typeof burst>> = [];
    for (let round = 0; round < 3 && statusChangesOf(results) === 0; round++) results.push(...(await burst()));

    // 503 is DynamoDB Local giving up under a loaded machine: retryable, and the change may or may
    // not have been committed, so it only widens the count below; the chain still proves no loss.
    for (const result of results) expect([200, 409, 503]).toContain(result.status);
    const unavailable = results.filter((r) => r.status === 503);
    for (const result of unavailable)
      expect(result.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    const statusChanges = statusChangesOf(results);
    expect(statusChanges).toBeGreaterThan(0);

    // Every committed status change produces exactly one webhook (plus the activation), counted
    // once everything written has been relayed and delivered: nothing more can arrive.
    await waitForIdlePipeline({ appId: app.appId });
    const events = webhooksOf(id).map((w) => w.payload.data as { old_status: string; new_status: string });
    expect(events.length).toBeGreaterThanOrEqual(statusChanges + 1);
    expect(events.length).toBeLessThanOrEqual(statusChanges + 1 + unavailable.length);
    expect(new Set(webhooksOf(id).map((w) => w.id)).size).toBe(events.length);

    // The events form one unbroken chain from pending_verification to the final state: no update was lost.
    const remaining = [...webhooksOf(id)]
      .sort((a, b) => a.payload.timestamp.localeCompare(b.payload.timestamp))
      .map((w) => w.payload.data);
    let status = 'pending_verification';
    while (remaining.length > 0) {
      const next = remaining.findIndex((e) => e.old_status === status);
      expect(next, `an event leaving ${status}`).toBeGreaterThanOrEqual(0);
      status = remaining.splice(next, 1)[0]!.new_status;
    }
    expect((await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`)).body.data.status).toBe(status);
  }, 120_000);

  it('admin webhooks deliveries lists each delivery with its status and attempts', async () => {
    const result = await admin('webhooks', 'deliveries', '--app', app.appId, '--json');
    expect(result.code).toBe(0);
    const { deliveries } = JSON.parse(result.stdout);
    expect(deliveries.length).toBeGreaterThan(3);
    expect(deliveries[0]).toMatchObject({
      event_id: expect.stringMatching(/^evt_/),
      status: 'delivered',
      attempts: 1,
      last_status_code: 204,
    });
  });
});
