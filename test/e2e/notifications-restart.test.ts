import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/ports.js';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  process.env.TABLE_NAME = `restart-e2e-${process.pid}`;
});

import { setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { startTs } from '../support/processes.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

describe('npm start killed between a state write and its delivery', () => {
  let receiver: WebhookReceiver;
  let app: TestApp;
  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp();
    receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);
  });
  afterAll(() => receiver?.close());

  async function start(port: number) {
    // The external DynamoDB of the test run stays up while npm start dies, as DATA_DIR would on disk.
    const service = startTs('local/start.ts', [], { PORT: String(port), SWEEP_INTERVAL_SECONDS: '1' });
    await waitUntil(() => service.output().includes('Mobile API'), 45_000, `npm start:\n${service.output()}`);
    return service;
  }

  it('delivers the pending notification after the restart, exactly once', async () => {
    const port = await freePort();
    const first = await start(port);
    const created = await fetch(`http://127.0.0.1:${port}${SUBSCRIPTIONS_BASE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'u-restart', product_id: 'premium_monthly', platform: 'ios' }),
    });
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    await updateSubscription(app.appId, id, { status: 'active' });
    // The activation fully relayed and its delivery recorded before the kill, so the kill falls
    // between the next write and its delivery, not inside this one's.
    await waitForIdlePipeline({ appId: app.appId });
    expect(receiver.accepted()).toHaveLength(1);

    // Abrupt death: no shutdown handler runs.
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    // The state write (and its outbox item) happens while nothing relays the stream: the one
    // process that could deliver it has exited, so there is nothing to wait for before counting.
    await updateSubscription(app.appId, id, { status: 'cancelled', cancellation_reason: 'written while down' });
    expect(receiver.accepted()).toHaveLength(1);

    const second = await start(port);
    try {
      // Counted once the restarted poller has relayed every outbox record and each delivery is settled.
      await waitForIdlePipeline({ appId: app.appId });
      const changes = receiver.accepted().map((r) => `${r.payload.data.old_status}->${r.payload.data.new_status}`);
      expect(changes).toEqual(['pending_verification->active', 'active->cancelled']);
    } finally {
      const exited2 = new Promise((resolve) => second.child.once('exit', resolve));
      second.child.kill('SIGINT');
      await exited2;
    }
  }, 120_000);
});
