import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  process.env.TABLE_NAME = `transfers-e2e-${process.pid}`;
});

import { setRestorePolicy } from '../../lib/data/apps.js';
import { getPurchaseOwner } from '../../lib/data/purchase-ownership.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { subscriptionDetail } from '../../lib/schemas/subscription.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { interceptCommands, type SentCommand, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

describe('a restore that transfers a purchase is never silent (gateway -> table -> stream -> bus -> webhook)', () => {
  let runtime: LocalRuntime;
  let receiver: WebhookReceiver;
  let app: TestApp;
  const call = async (path: string, init: { headers: Record<string, string>; body?: unknown }) => {
    const response = await contractFetch(`${runtime.gateway.url}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const detail = async (id: string) =>
    subscriptionDetail.parse(
      (await call(`${SUBSCRIPTIONS_BASE}/${id}`, { headers: { authorization: `Bearer ${app.secretKey}` } })).body.data,
    );

  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp();
    await setRestorePolicy(app.appId, 'transfer');
    const { secret } = await setWebhook(app.appId, receiver.url);
    receiver.setSecret(secret);
    runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 60 });
  });
  afterAll(async () => {
    await runtime?.stop();
    await receiver?.close();
  });
  afterEach(stopIntercepting);

  it('sends a signed subscription.transferred webhook naming both users, besides both status changes, and lists the transfer on both subscriptions', async () => {
    // The day of the purchase, read with the day of the check: a run crossing UTC midnight still finds it.
    const boughtOn = new Date().toISOString().slice(0, 10);
    const { receipt_data, transaction_id } = await mintReceipt(app);
    const bought = await call('/receipt/verify/first', {
      headers: mobileHeaders(app, 'first-owner'),
      body: { receipt: receipt_data, productId: 'premium_monthly' },
    });
    const moved = await call('/receipt/verify/recover', {
      headers: mobileHeaders(app, 'second-owner'),
      body: { receipt: receipt_data },
    });
    expect(moved.status).toBe(200);
    const from = bought.body.data.subscription_id as string;
    const to = moved.body.data.subscription_id as string;

    const transferredOf = () =>
      receiver
        .accepted()
        .filter((w) => w.payload.event === 'subscription.transferred' && w.payload.data.to_subscription_id === to);
    await waitUntil(() => transferredOf().length > 0, 15_000, 'the transfer webhook');
    const [webhook] = transferredOf();
    expect(webhook!.verified).toBe(true);
    expect(webhook!.payload).toEqual({
      event: 'subscription.transferred',
      timestamp: expect.any(String),
      data: {
        original_transaction_id: transaction_id,
        product_id: 'premium_monthly',
        from_user_id: 'first-owner',
        to_user_id: 'second-owner',
        from_subscription_id: from,
        to_subscription_id: to,
      },
    });

    // The two status changes: the previous owner's subscription ends, the new one starts.
    const changesOf = (id: string) =>
      receiver
        .accepted()
        .filter((w) => w.payload.event === 'subscription.status_changed' && w.payload.data.subscription_id === id)
        .map((w) => `${w.payload.data.user_id}: ${w.payload.data.old_status}->${w.payload.data.new_status}`);
    // Counted once every event written so far is delivered: a duplicate cannot arrive later.
    await waitForIdlePipeline({ appId: app.appId });
    expect(transferredOf()).toHaveLength(1);
    expect(changesOf(from).sort()).toEqual([
      'first-owner: active->cancelled',
      'first-owner: pending_verification->active',
    ]);
    expect(changesOf(to)).toEqual(['second-owner: pending_verification->active']);

    // Both subscriptions list the transfer; its event id is the webhook's id.
    const transfer = {
      from_user_id: 'first-owner',
      to_user_id: 'second-owner',
      from_subscription_id: from,
      to_subscription_id: to,
      original_transaction_id: transaction_id,
      transferred_at: webhook!.payload.timestamp,
      event_id: webhook!.id,
    };
    expect(await detail(from)).toMatchObject({
      user_id: 'first-owner',
      status: 'cancelled',
      cancellation_reason: 'transferred_to_another_user',
      transfers: [transfer],
    });
    expect(await detail(to)).toMatchObject({ user_id: 'second-owner', status: 'active', transfers: [transfer] });

    // The previous owner restoring takes it back: a second transfer, listed on both of its subscriptions too.
    const back = await call('/receipt/verify/recover', {
      headers: mobileHeaders(app, 'first-owner'),
      body: { receipt: receipt_data },
    });
    expect(back.status).toBe(200);
    const returned = (await detail(back.body.data.subscription_id)).transfers;
    expect(returned).toEqual([
      expect.objectContaining({ from_user_id: 'second-owner', to_user_id: 'first-owner', from_subscription_id: to }),
    ]);
    expect((await detail(to)).transfers).toEqual([transfer, returned[0]]);

    // The money was paid once: two transfers add nothing to revenue.
    const today = new Date().toISOString().slice(0, 10);
    const revenue = await call(`${SUBSCRIPTIONS_BASE}/revenue?start_date=${boughtOn}&end_date=${today}`, {
      headers: { authorization: `Bearer ${app.secretKey}` },
    });
    expect(revenue.body.data.total_revenue).toBe(9.99);

    // The operator's delivery list shows it as a transfer.
    await waitUntil(
      () => receiver.accepted().some((w) => w.id === returned[0]!.event_id),
      15_000,
      'the second transfer webhook',
    );
    const { deliveries } = JSON.parse((await admin('webhooks', 'deliveries', '--app', app.appId, '--json')).stdout);
    expect(deliveries).toContainEqual(
      expect.objectContaining({
        event_id: webhook!.id,
        event: 'subscription.transferred',
        subscription_id: to,
        change: `transferred from ${from}`,
        status: 'delivered',
      }),
    );
  });

  describe('a restore that activates its own pending record of a purchase another user owns', () => {
    /**
     * The first owner verified the purchase; the restoring user's record of a later transaction
     * of it (POST /v1/subscriptions) is still pending_verification. The restore activates that
     * record, so the previous owner's cancellation, the activation and the move of the purchase
     * are one write.
     */
    async function pendingRecordOfAnOwnedPurchase(from: string, to: string) {
      const first = await mintReceipt(app);
      const renewal = await mintReceipt(app, { renews: first.transaction_id, expiresIn: 40 * 86_400 });
      const bought = await call('/receipt/verify/first', {
        headers: mobileHeaders(app, from),
        body: { receipt: first.receipt_data, productId: 'premium_monthly' },
      });
      expect(bought.status).toBe(200);
      const pending = await call(SUBSCRIPTIONS_BASE, {
        headers: { authorization: `Bearer ${app.secretKey}` },
        body: { user_id: to, product_id: 'premium_monthly', platform: 'ios', transaction_id: renewal.transaction_id },
      });
      expect(pending.status).toBe(201);
      const fromId = bought.body.data.subscription_id as string;
      const toId = pending.body.data.id as string;
      const restore = () =>
        call('/receipt/verify/recover', { headers: mobileHeaders(app, to), body: { receipt: renewal.receipt_data } });
      // Read straight from the table: what a crash would leave.
      const state = async () => ({
        from: (await getSubscriptionRecord(app.appId, fromId))?.status,
        to: (await getSubscriptionRecord(app.appId, toId))?.status,
        owner: (await getPurchaseOwner(app.appId, first.transaction_id))?.user_id,
      });
      return { fromId, toId, restore, state };
    }
    /** The restore's transactions: those that write one of this app's subscriptions. */
    const writesSubscription = ({ command, input }: SentCommand) =>
      command === 'TransactWriteItemsCommand' &&
      (input.TransactItems as { Put?: { Item?: Record<string, unknown> } }[]).some(
        (item) => item.Put?.Item?.type === 'subscription' && item.Put.Item.app_id === app.appId,
      );

    it('moves the purchase: the previous owner cancelled and notified, the record active, the transfer listed and notified', async () => {
      const { fromId, toId, restore, state } = await pendingRecordOfAnOwnedPurchase('pending-from', 'pending-to');
      const restored = await restore();
      expect(restored.status).toBe(200);
      expect(restored.body.data.subscription_id).toBe(toId);
      expect(await state()).toEqual({ from: 'cancelled', to: 'active', owner: 'pending-to' });
      expect(await detail(fromId)).toMatchObject({ cancellation_reason: 'transferred_to_another_user' });

      await waitForIdlePipeline({ appId: app.appId });
      const events = receiver
        .accepted()
        .filter((w) => [fromId, toId].includes(w.payload.data.subscription_id ?? w.payload.data.to_subscription_id))
        .map((w) =>
          w.payload.event === 'subscription.transferred'
            ? `transferred ${w.payload.data.from_user_id}->${w.payload.data.to_user_id}`
            : `${w.payload.data.user_id}: ${w.payload.data.old_status}->${w.payload.data.new_status}`,
        );
      expect(events.sort()).toEqual([
        'pending-from: active->cancelled',
        'pending-from: pending_verification->active',
        'pending-to: pending_verification->active',
        'transferred pending-from->pending-to',
      ]);
      const [transfer] = (await detail(toId)).transfers;
      expect(transfer).toMatchObject({ from_subscription_id: fromId, to_subscription_id: toId });
      expect((await detail(fromId)).transfers).toEqual([transfer]);
    });

    it('is one transaction: a crash after the first write leaves both halves or neither; a refused one, neither', async () => {
      const once = await pendingRecordOfAnOwnedPurchase('crash-from', 'crash-to');
      let transactions = 0;
      interceptCommands(async (sent, send) => {
        if (writesSubscription(sent) && ++transactions > 1) throw throttled();
        return send();
      });
      await once.restore();
      stopIntercepting();
      expect(await once.state()).toEqual({ from: 'cancelled', to: 'active', owner: 'crash-to' });
      expect(transactions).toBe(1);

      const refused = await pendingRecordOfAnOwnedPurchase('refused-from', 'refused-to');
      interceptCommands(async (sent, send) => {
        if (writesSubscription(sent)) throw throttled();
        return send();
      });
      expect((await refused.restore()).status).toBeGreaterThanOrEqual(500);
      stopIntercepting();
      expect(await refused.state()).toEqual({ from: 'active', to: 'pending_verification', owner: 'refused-from' });
      expect((await refused.restore()).status).toBe(200);
      expect(await refused.state()).toEqual({ from: 'cancelled', to: 'active', owner: 'refused-to' });
    });

    it("a concurrent change of the previous owner's subscription makes the restore decide again, writing nothing meanwhile", async () => {
      const { fromId, restore, state } = await pendingRecordOfAnOwnedPurchase('raced-from', 'raced-to');
      const before = (await getSubscriptionRecord(app.appId, fromId))!;
      let transactions = 0;
      let refusedWith: unknown;
      interceptCommands(async (sent, send) => {
        if (!writesSubscription(sent) || ++transactions > 1) return send();
        // The previous owner turns renewal off just before the restore's write lands.
        await updateSubscription(app.appId, fromId, { auto_renew: false });
        try {
          return await send();
        } catch (error) {
          refusedWith = error;
          // Nothing of the refused write is there.
          expect(await state()).toEqual({ from: 'active', to: 'pending_verification', owner: 'raced-from' });
          throw error;
        }
      });
      const restored = await restore();
      stopIntercepting();
      expect(restored.status).toBe(200);
      expect((refusedWith as Error | undefined)?.name).toBe('TransactionCanceledException');
      expect(await state()).toEqual({ from: 'cancelled', to: 'active', owner: 'raced-to' });
      // Cancelled over the concurrent change, not over the version the restore first read.
      expect(await getSubscriptionRecord(app.appId, fromId)).toMatchObject({ version: before.version + 2 });
    });
  });
});
