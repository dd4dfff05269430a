/**
 * The store's life of one purchase, end to end as an SDK developer drives it with the test store:
 * `admin receipts mint` and `admin notifications mint` run as processes, their output POSTed to the
 * running API (`npm start`'s runtime: gateway, stream poller, bus, webhook deliverer, sweeper), the
 * webhooks received and their signatures verified. Purchase, a renewal while the app stays closed,
 * auto-renew off, a billing issue in the grace period, recovery, refund; the same notification
 * delivered twice changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  process.env.TABLE_NAME = `store-story-${process.pid}`;
});

import { setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { admin, mintNotification } from '../support/processes.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

describe('a purchase followed through the store (test store notifications, gateway, webhooks)', () => {
  let runtime: LocalRuntime;
  let receiver: WebhookReceiver;
  let app: TestApp;
  let subscriptionId: string;
  let transaction: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await contractFetch(`${runtime.gateway.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const api = (method: string, path: string, body?: unknown) =>
    call(method, path, body, { authorization: `Bearer ${app.secretKey}` });
  const detail = async () => (await api('GET', `${SUBSCRIPTIONS_BASE}/${subscriptionId}`)).body.data;
  const kinds = () =>
    receiver
      .accepted()
      .filter((webhook) => webhook.payload.data.subscription_id === subscriptionId)
      .map((webhook) => webhook.payload.event as string);
  /** The file's first day and the next, fixed once: a before/after pair read across UTC midnight reads the same days. */
  const days = `start_date=${new Date().toISOString().slice(0, 10)}&end_date=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`;
  /** The revenue statistics of those days: the money and the renewals counted. */
  const revenueOfTheDays = async (): Promise<{ revenue: number; renewals: number }> => {
    const { body } = await api('GET', `${SUBSCRIPTIONS_BASE}/revenue?${days}`);
    const breakdown = body.data.breakdown as { renewals: number }[];
    return { revenue: body.data.total_revenue, renewals: breakdown.reduce((sum, b) => sum + b.renewals, 0) };
  };

  /** `admin notifications mint` as a process; its body POSTed to its path, as a store would. */
  const mint = (type: string, ...args: string[]) => mintNotification(app.appId, transaction, type, ...args);
  async function deliver(minted: { path: string; body: unknown }) {
    const response = await call('POST', minted.path, minted.body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data as { notification_id: string; type: string; outcome: string };
  }
  const arrived = (count: number, what: string) => waitUntil(() => kinds().length >= count, 20_000, what);

  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp();
    receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);
    runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 1 });
  });
  afterAll(async () => {
    await runtime?.stop();
    await receiver?.close();
  });

  it('purchase: verified through the API, active, one status change', async () => {
    const minted = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--json',
    );
    expect(minted.code, minted.stderr).toBe(0);
    const receipt = JSON.parse(minted.stdout) as { receipt_data: string; transaction_id: string };
    transaction = receipt.transaction_id;
    const verified = await api('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      platform: 'ios',
      receipt_data: receipt.receipt_data,
      user_id: 'story-user',
    });
    expect(verified.status).toBe(200);
    subscriptionId = verified.body.data.subscription_id;
    await arrived(1, 'the purchase webhook');
    expect(await detail()).toMatchObject({ status: 'active', store: 'test_store', environment: 'test' });
  });

  it('renewed while the app stays closed: same subscription, one renewed event, revenue once, a redelivery changes nothing', async () => {
    const before = await detail();
    const revenueBefore = await revenueOfTheDays();
    const renewal = await mint('renewed', '--expires-in', String(60 * 86_400));
    expect(await deliver(renewal)).toMatchObject({ type: 'DID_RENEW', outcome: 'applied' });
    expect(await deliver(renewal)).toMatchObject({ type: 'DID_RENEW', outcome: 'duplicate' });
    await arrived(2, 'the renewed webhook');
    const after = await detail();
    expect(after.id).toBe(before.id);
    expect(after.status).toBe('active');
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.parse(before.expires_at));
    const revenueAfter = await revenueOfTheDays();
    expect(revenueAfter.renewals - revenueBefore.renewals).toBe(1);
    expect(revenueAfter.revenue - revenueBefore.revenue).toBeCloseTo(9.99, 2);
    // Nothing more arrives for the duplicate: counted once all that was written is delivered.
    await waitForIdlePipeline({ appId: app.appId });
    expect(kinds()).toEqual(['subscription.status_changed', 'subscription.renewed']);
  });

  it('auto-renew turned off in the store settings', async () => {
    expect(await deliver(await mint('auto_renew_off'))).toMatchObject({ outcome: 'applied' });
    await arrived(3, 'the auto_renew_changed webhook');
    expect(await detail()).toMatchObject({ status: 'active', auto_renew: false });
    expect(kinds().at(-1)).toBe('subscription.auto_renew_changed');
  });

  it('a billing issue in the grace period keeps access and says until when', async () => {
    expect(await deliver(await mint('billing_issue', '--expires-in', String(16 * 86_400)))).toMatchObject({
      outcome: 'applied',
    });
    await waitUntil(() => kinds().includes('subscription.billing_issue'), 20_000, 'the billing_issue webhook');
    const inGrace = await detail();
    expect(inGrace).toMatchObject({ status: 'active', auto_renew: true });
    expect(inGrace.billing_issue_at).not.toBeNull();
    expect(Date.parse(inGrace.grace_period_expires_at)).toBeGreaterThan(Date.now() + 15 * 86_400_000);
  });

  it('recovered: the same subscription renews, the billing issue is cleared', async () => {
    const count = kinds().filter((kind) => kind === 'subscription.renewed').length;
    expect(await deliver(await mint('billing_recovered'))).toMatchObject({ type: 'DID_RENEW', outcome: 'applied' });
    await waitUntil(
      () => kinds().filter((kind) => kind === 'subscription.renewed').length > count,
      20_000,
      'the recovery renewed webhook',
    );
    expect(await detail()).toMatchObject({
      id: subscriptionId,
      status: 'active',
      billing_issue_at: null,
      grace_period_expires_at: null,
    });
  });

  it('refunded: cancelled now, a refund, every webhook signed', async () => {
    const revenueBefore = await revenueOfTheDays();
    expect(await deliver(await mint('refunded'))).toMatchObject({ type: 'REFUND', outcome: 'applied' });
    // Everything written is delivered before the story's webhooks are counted below.
    await waitForIdlePipeline({ appId: app.appId });
    expect(await detail()).toMatchObject({ status: 'cancelled', cancellation_reason: 'refunded_by_store' });
    // The refund takes the last period's price back.
    expect((await revenueOfTheDays()).revenue - revenueBefore.revenue).toBeCloseTo(-9.99, 2);
    const ours = receiver.accepted().filter((webhook) => webhook.payload.data.subscription_id === subscriptionId);
    expect(ours.every((webhook) => webhook.verified)).toBe(true);
    expect(ours.map((webhook) => webhook.payload.event).sort()).toEqual(
      [
        // off, then on again with the billing issue (the store retries only a renewing subscription)
        'subscription.auto_renew_changed',
        'subscription.auto_renew_changed',
        'subscription.billing_issue',
        'subscription.refunded',
        'subscription.renewed',
        'subscription.renewed',
        'subscription.status_changed',
        'subscription.status_changed',
      ].sort(),
    );
  });

  it('a notification changed by one byte, or minted for another app, is refused and changes nothing', async () => {
    const minted = await mint('auto_renew_on');
    const [header, payload, signature] = minted.body.signedPayload.split('.') as [string, string, string];
    // The last character holds padding bits too; the one before it is all signature.
    const changed = signature.at(-2) === 'A' ? 'B' : 'A';
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${changed}${signature.slice(-1)}`;
    expect(flipped).not.toBe(minted.body.signedPayload);
    const tampered = await call('POST', minted.path, { signedPayload: flipped });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.code).toBe('INVALID_NOTIFICATION');
    const other = await createTestApp();
    const elsewhere = await call('POST', minted.path.replace(app.appId, other.appId), minted.body);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.code).toBe('INVALID_NOTIFICATION');
    expect(await detail()).toMatchObject({ status: 'cancelled', auto_renew: false });
  });
});
