import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // Read once by lib/core/config.ts: this file exercises the AWS dead-letter path against a mocked SQS.
  process.env.DEAD_LETTER_QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/webhook-dead-letters';
  // Its retry job takes every app's due deliveries: its own table, so they are this file's only.
  process.env.TABLE_NAME = `webhook-delivery-${process.pid}`;
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as retryWebhooks } from '../../functions/jobs/retry-webhooks.js';
import { newEventId } from '../../lib/core/ids.js';
import { logger } from '../../lib/core/logger.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getDelivery, getWebhook, listDeliveries, setWebhook } from '../../lib/data/webhooks.js';
import { type BusEventDetail, RENEWED, renewedPayload, STATUS_CHANGED } from '../../lib/events/schemas.js';
import { deliverStatusChange, redeliver, retryDueDeliveries } from '../../lib/services/webhook-delivery.js';
import { createTestApp, statusChange, storeEventData } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

const sqs = mockClient(SQSClient);

/** A store-driven renewal, as the outbox carries it (validated by its schema). */
function renewal(appId: string): BusEventDetail {
  const now = new Date();
  return {
    app_id: appId,
    event_id: newEventId(),
    payload: renewedPayload.parse({
      event: RENEWED,
      timestamp: now.toISOString(),
      data: {
        ...storeEventData(new Date(now.getTime() + 30 * 86_400_000).toISOString()),
        transaction_id: '2000000000000002',
      },
    }),
  };
}

const recentDeliveries = async (appId: string) => (await listDeliveries(appId, { limit: 50 })).deliveries;

/** Runs the retry job until the delivery settles (the test schedule retries every second). */
async function settle(appId: string, eventId: string) {
  await waitUntil(
    async () => {
      await retryDueDeliveries();
      const delivery = (await recentDeliveries(appId)).find((d) => d.event_id === eventId);
      return delivery !== undefined && delivery.status !== 'pending';
    },
    20_000,
    `delivery ${eventId} to settle`,
  );
  return (await recentDeliveries(appId)).find((d) => d.event_id === eventId)!;
}

describe('webhook delivery (Standard Webhooks, DynamoDB Local, local receiver)', () => {
  let receiver: WebhookReceiver;
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    ({ appId } = await createTestApp([]));
    const { secret } = await setWebhook(appId, receiver.url);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // 32 random bytes
    receiver.setSecret(secret);
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    sqs.reset();
    receiver.respond = () => 204;
  });

  it('delivers the spec payload with a valid signature and the event id as webhook-id', async () => {
    const detail = statusChange(appId);
    const delivery = await deliverStatusChange(detail);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    const got = receiver.received.find((r) => r.id === detail.event_id)!;
    expect(got.verified).toBe(true);
    expect(got.payload).toEqual(detail.payload);
    expect(got.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
  });

  it('a receiver that fails the first 3 attempts gets the event exactly once as a success, always with the same webhook-id', async () => {
    receiver.respond = (attempt) => (attempt < 3 ? 503 : 200);
    const detail = statusChange(appId);
    await deliverStatusChange(detail);
    const delivery = await settle(appId, detail.event_id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4 });
    expect(delivery.attempt_log.map((a) => a.status_code)).toEqual([503, 503, 503, 200]);
    const requests = receiver.received.filter((r) => r.id === detail.event_id);
    expect(requests).toHaveLength(4);
    expect(requests.every((r) => r.verified)).toBe(true);
    expect(receiver.accepted().filter((r) => r.id === detail.event_id)).toHaveLength(1);
    // A repeat of the same event from the bus (at-least-once) sends nothing more.
    await deliverStatusChange(detail);
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toHaveLength(4);
  });

  it('the retry job\'s "webhook retries" line counts a failed attempt as not delivered, apart from the job\'s own errors', async () => {
    receiver.respond = () => 500;
    const detail = statusChange(appId);
    expect(await deliverStatusChange(detail)).toMatchObject({ status: 'pending', attempts: 1 });
    await waitUntil(
      async () => (await getDelivery(detail.event_id))!.next_attempt_at! <= new Date().toISOString(),
      10_000,
      'the retry to be due',
    );
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    logger.setLogLevel('INFO');
    let run: Awaited<ReturnType<typeof retryWebhooks>>;
    try {
      run = await retryWebhooks({});
    } finally {
      logger.setLogLevel('SILENT');
      write.mockRestore();
    }
    expect(await getDelivery(detail.event_id)).toMatchObject({ status: 'pending', attempts: 2 });
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'webhook retries');
    // Every request of this run got a 500: none delivered, this one among those not delivered.
    expect(logged).toMatchObject({ ...run, delivered: 0, job_errors: 0 });
    expect(run.not_delivered).toBeGreaterThanOrEqual(1);
    expect(run.attempted).toBe(run.delivered + run.not_delivered + run.not_sent);
  });

  it('a receiver down past the last retry leaves the event in the dead-letter queue and visible as dead', async () => {
    receiver.respond = () => 500;
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const detail = statusChange(appId);
    await deliverStatusChange(detail);
    const delivery = await settle(appId, detail.event_id);
    expect(delivery).toMatchObject({ status: 'dead', attempts: 5, next_attempt_at: null });
    // The retry job works through every due delivery of the shared table: other test files' dead
    // events may be dead-lettered by it too. This event's are counted.
    const sent = sqs
      .commandCalls(SendMessageCommand)
      .filter((call) => JSON.parse(call.args[0].input.MessageBody!).event_id === detail.event_id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.args[0].input.QueueUrl).toBe(process.env.DEAD_LETTER_QUEUE_URL);
    expect(JSON.parse(sent[0]!.args[0].input.MessageBody!)).toMatchObject({
      event_id: detail.event_id,
      app_id: appId,
      payload: detail.payload,
      reason: expect.any(String),
    });
    // The app as a message attribute: an operator filters or redrives one app's dead letters.
    expect(sent[0]!.args[0].input.MessageAttributes).toEqual({ app_id: { DataType: 'String', StringValue: appId } });
  });

  it('redelivering a dead event sends it again with the same webhook-id', async () => {
    receiver.respond = () => 500;
    sqs.on(SendMessageCommand).resolves({});
    const detail = statusChange(appId);
    await deliverStatusChange(detail);
    await settle(appId, detail.event_id);
    receiver.respond = () => 200;
    const again = await redeliver(detail.event_id);
    expect(again).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.accepted().filter((r) => r.id === detail.event_id)).toHaveLength(1);
  });

  it('honours Retry-After: no retry before the receiver asked', async () => {
    receiver.respond = (attempt) => (attempt === 0 ? { status: 429, headers: { 'retry-after': '3600' } } : 200);
    const detail = statusChange(appId);
    const sent = Date.now();
    const first = await deliverStatusChange(detail);
    expect(first.status).toBe('pending');
    // An hour after the answer came, which was after `sent`: no tolerance for a slow machine needed.
    expect(Date.parse(first.next_attempt_at!)).toBeGreaterThanOrEqual(sent + 3600_000);
    await retryDueDeliveries();
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toHaveLength(1);
  });

  it('410 Gone disables the endpoint; later events are not sent', async () => {
    const { appId: gone } = await createTestApp([]);
    const { secret } = await setWebhook(gone, receiver.url);
    receiver.setSecret(secret);
    receiver.respond = () => 410;
    const first = await deliverStatusChange(statusChange(gone));
    expect(first.status).toBe('endpoint_disabled');
    expect(await getWebhook(gone)).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    const before = receiver.received.length;
    expect((await deliverStatusChange(statusChange(gone))).status).toBe('endpoint_disabled');
    expect(receiver.received.length).toBe(before);
  });

  it('an app without an endpoint records the event as undeliverable, without retries', async () => {
    const { appId: silent } = await createTestApp([]);
    const delivery = await deliverStatusChange(statusChange(silent));
    expect(delivery).toMatchObject({ status: 'no_endpoint', attempts: 0, next_attempt_at: null });
  });

  it('an unreachable receiver is retried', async () => {
    const { appId: unreachable } = await createTestApp([]);
    await setWebhook(unreachable, 'http://127.0.0.1:9/closed-port');
    const delivery = await deliverStatusChange(statusChange(unreachable));
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    // The category, not the connect error's text (which names the address and port).
    expect(delivery.attempt_log[0]).toMatchObject({ status_code: null, error: 'connection_refused' });
  });

  /** Makes DynamoDB refuse the next `times` writes of a delivery's outcome, as if it went away right after the POST. */
  function refuseOutcomeWrites(eventId: string, times: number) {
    let refused = 0;
    ddb.middlewareStack.add(
      (next) => async (args) => {
        const item = (args.input as { Item?: { event_id?: string; attempt_log?: unknown[] } }).Item;
        // The outcome's write is the one whose log holds the attempt (the claim before the POST holds none).
        if (item?.event_id === eventId && (item.attempt_log?.length ?? 0) > 0 && refused < times) {
          refused += 1;
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseOutcomeWrites' },
    );
    return { refused: () => refused, restore: () => ddb.middlewareStack.remove('refuseOutcomeWrites') };
  }

  it('DynamoDB away right after a successful POST: the outcome is recorded once it answers again, so the event is never sent twice', async () => {
    const detail = statusChange(appId);
    const outage = refuseOutcomeWrites(detail.event_id, 3);
    try {
      const delivery = await deliverStatusChange(detail, { recordUntil: Date.now() + 10_000 });
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      outage.restore();
    }
    expect(outage.refused()).toBe(3);
    expect(await getDelivery(detail.event_id)).toMatchObject({ status: 'delivered', attempts: 1 });
    await retryDueDeliveries(new Date(Date.now() + 10 * 60_000)); // long after any claim would have run out
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toHaveLength(1);
  });

  it('DynamoDB away past the deadline: the attempt fails and stays claimed (sent again only after the claim runs out)', async () => {
    const detail = statusChange(appId);
    const outage = refuseOutcomeWrites(detail.event_id, 100);
    try {
      await expect(deliverStatusChange(detail, { recordUntil: Date.now() + 600 })).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      outage.restore();
    }
    expect(await getDelivery(detail.event_id)).toMatchObject({ status: 'pending', attempts: 1 });
    await retryDueDeliveries();
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toHaveLength(1);
  });

  describe('an endpoint that receives some event kinds only (webhooks set --events)', () => {
    let filtered: string;
    beforeAll(async () => {
      ({ appId: filtered } = await createTestApp([]));
    });
    const postsOf = (eventId: string) => receiver.received.filter((r) => r.id === eventId);
    const subscribe = async (events: string[] | null) => {
      const endpoint = await setWebhook(filtered, receiver.url, events);
      receiver.setSecret(endpoint.secret);
      return endpoint;
    };

    it('subscribed to status changes only, it receives a status change and records a renewal as filtered, never POSTed nor retried', async () => {
      await subscribe([STATUS_CHANGED]);
      const change = statusChange(filtered);
      expect(await deliverStatusChange(change)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(postsOf(change.event_id).map((r) => r.verified)).toEqual([true]);

      const renewed = renewal(filtered);
      expect(await deliverStatusChange(renewed)).toMatchObject({
        status: 'filtered',
        attempts: 0,
        next_attempt_at: null,
        attempt_log: [],
      });
      await retryDueDeliveries(new Date(Date.now() + 10 * 60_000));
      expect(postsOf(renewed.event_id)).toEqual([]);
      expect((await recentDeliveries(filtered)).find((d) => d.event_id === renewed.event_id)).toMatchObject({
        status: 'filtered',
        payload: renewed.payload,
      });
    });

    it('redelivering a filtered event sends it anyway (the operator asked for it), its retries too', async () => {
      await subscribe([STATUS_CHANGED]);
      const renewed = renewal(filtered);
      expect((await deliverStatusChange(renewed)).status).toBe('filtered');
      receiver.respond = (attempt) => (attempt === 0 ? 503 : 200);
      expect(await redeliver(renewed.event_id)).toMatchObject({
        status: 'pending',
        attempts: 1,
        redelivered_at: expect.any(String),
      });
      expect(await settle(filtered, renewed.event_id)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(postsOf(renewed.event_id).map((r) => [r.answeredWith, r.verified, r.payload.event])).toEqual([
        [503, true, RENEWED],
        [200, true, RENEWED],
      ]);
    });

    it('the filter applies at each attempt: a pending event whose kind the endpoint no longer receives is filtered at its retry', async () => {
      await subscribe(null);
      receiver.respond = () => 503;
      const renewed = renewal(filtered);
      expect((await deliverStatusChange(renewed)).status).toBe('pending');
      await subscribe([STATUS_CHANGED]);
      expect(await settle(filtered, renewed.event_id)).toMatchObject({ status: 'filtered', attempts: 1 });
      expect(postsOf(renewed.event_id)).toHaveLength(1);
    });

    it('set again without --events, it receives every kind: the absence of a filter is stored, not the list of today', async () => {
      await subscribe([STATUS_CHANGED]);
      await subscribe(null);
      const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.webhook(filtered) }));
      expect(Item).not.toHaveProperty('events');
      expect(await getWebhook(filtered)).toMatchObject({ events: null, enabled: true });
      const renewed = renewal(filtered);
      expect(await deliverStatusChange(renewed)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(postsOf(renewed.event_id)[0]).toMatchObject({ verified: true, payload: renewed.payload });
    });
  });

  it('a receiver slower than the timeout counts as a failed attempt', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 3000 }); // WEBHOOK_TIMEOUT_MS is 2000 in tests
    const delivery = await deliverStatusChange(statusChange(appId));
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery.attempt_log[0]!.error).toBe('timeout');
  });
});
