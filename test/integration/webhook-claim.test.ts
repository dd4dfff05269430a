import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // Its own table: the retry job reads every due delivery of its table, and only this file's may be there.
  process.env.TABLE_NAME = `webhook-claim-${process.pid}`;
});

import { ddb } from '../../lib/data/client.js';
import { createDelivery, getDelivery, replaceDelivery, setWebhook } from '../../lib/data/webhooks.js';
import { retryDueDeliveries } from '../../lib/services/webhook-delivery.js';
import { createTestApp, statusChange } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Holds the first PutItem on this event's delivery until a second one arrives, then lets both go
 * at once: two workers that both read the delivery before either claimed it send their claims
 * together, whatever the scheduling. Later puts pass untouched.
 */
function holdFirstTwoPutsTogether(eventId: string): () => void {
  const name = `claimBarrier-${eventId}`;
  let arrived = 0;
  let release!: () => void;
  const bothArrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      const input = (args as { input?: { Item?: unknown } }).input;
      if (context.commandName === 'PutItemCommand' && JSON.stringify(input?.Item ?? '').includes(eventId)) {
        arrived += 1;
        if (arrived === 1) await Promise.race([bothArrived, new Promise((r) => setTimeout(r, 5_000))]);
        else if (arrived === 2) release();
      }
      return next(args);
    },
    { step: 'build', name },
  );
  return () => ddb.middlewareStack.remove(name);
}

describe('two workers racing for one webhook attempt (own table)', () => {
  let receiver: WebhookReceiver;
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    ({ appId } = await createTestApp([]));
    receiver.setSecret((await setWebhook(appId, receiver.url)).secret);
  });
  afterAll(() => receiver.close());

  it('two retry runs that both see the attempt due send it once: one claim wins, the other backs off', async () => {
    const detail = statusChange(appId);
    const created = await createDelivery(detail, new Date());
    expect(created).toMatchObject({ status: 'pending', attempts: 0 });
    const release = holdFirstTwoPutsTogether(detail.event_id);
    let runs: Awaited<ReturnType<typeof retryDueDeliveries>>[];
    try {
      runs = await Promise.all([retryDueDeliveries(), retryDueDeliveries()]);
    } finally {
      release();
    }
    // Both runs found it due and tried; only the one whose claim held sent it.
    expect(runs.map((r) => r.attempted)).toEqual([1, 1]);
    expect(runs.map((r) => r.delivered).sort()).toEqual([0, 1]);
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toHaveLength(1);
    expect(await getDelivery(detail.event_id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('a claim holds only at the attempt count and status it was read at', async () => {
    const detail = statusChange(appId);
    const read = (await createDelivery(detail, new Date())) as Exclude<
      Awaited<ReturnType<typeof createDelivery>>,
      false
    >;
    const claim = { ...read, attempts: 1 };
    // Two claims of the same attempt at once: exactly one holds.
    expect((await Promise.all([replaceDelivery(claim, 0), replaceDelivery(claim, 0)])).sort()).toEqual([false, true]);
    // A worker that read before that claim cannot claim the attempt again.
    expect(await replaceDelivery(claim, 0)).toBe(false);
    // The next attempt, claimed at the count now stored, holds.
    expect(await replaceDelivery({ ...read, attempts: 2 }, 1)).toBe(true);
    // Once delivered, no claim holds, even at the stored count.
    expect(await replaceDelivery({ ...read, attempts: 2, status: 'delivered', next_attempt_at: null }, 2)).toBe(true);
    expect(await replaceDelivery({ ...read, attempts: 3 }, 2)).toBe(false);
    expect(await getDelivery(detail.event_id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});
