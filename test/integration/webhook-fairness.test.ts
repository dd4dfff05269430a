/**
 * The retry job with one app's receiver a tarpit (it accepts connections and never answers): the
 * other apps' retries are not held back behind it, the tarpit gets a bounded number of attempts
 * before its endpoint is paused, and a run starts nothing after its deadline. Ordering and attempt
 * counts are asserted, not times.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the retry job takes every due delivery of its table, and only this file's may be there.
  process.env.TABLE_NAME = `webhook-fairness-${process.pid}`;
  // The receivers listen on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
});

import { createServer, type Server, type Socket } from 'node:net';
import { handler as retryWebhooks } from '../../functions/jobs/retry-webhooks.js';
import { webhookConfig } from '../../lib/core/config.js';
import {
  countEndpointTimeout,
  createDelivery,
  type DeliveryRecord,
  getDelivery,
  getWebhook,
  setWebhook,
} from '../../lib/data/webhooks.js';
import { DEFAULT_BREAKER, PER_APP_CONCURRENCY } from '../../lib/domain/webhook-scheduling.js';
import { deliverStatusChange, retryDueDeliveries } from '../../lib/services/webhook-delivery.js';
import { lambdaContext } from '../../local/lambda-context.js';
import { createTestApp, statusChange } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Tarpit {
  url: string;
  connections: number;
  close(): Promise<void>;
}

/** Accepts every connection and never answers. */
async function startTarpit(): Promise<Tarpit> {
  const sockets: Socket[] = [];
  const tarpit = { url: '', connections: 0, close: () => Promise.resolve() };
  const server: Server = createServer((socket) => {
    tarpit.connections += 1;
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tarpit.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks`;
  tarpit.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return tarpit;
}

/** `count` deliveries of the app, recorded (and so due) `secondsAgo` seconds ago. */
async function dueDeliveries(appId: string, count: number, secondsAgo: number): Promise<DeliveryRecord[]> {
  const at = new Date(Date.now() - secondsAgo * 1000);
  const created: DeliveryRecord[] = [];
  for (let i = 0; i < count; i++) created.push((await createDelivery(statusChange(appId), at)) as DeliveryRecord);
  return created;
}

describe('webhook retries with a tarpit among the endpoints (own table)', () => {
  let tarpit: Tarpit;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    await createOwnTable();
    tarpit = await startTarpit();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await tarpit.close();
    await receiver.close();
  });

  it("app B's retry is not held back by app A's 12 older retries to a tarpit; A's endpoint is paused after a few timeouts", async () => {
    const { appId: a } = await createTestApp([]);
    const { appId: b } = await createTestApp([]);
    await setWebhook(a, tarpit.url);
    receiver.setSecret((await setWebhook(b, receiver.url)).secret);
    const aDeliveries = await dueDeliveries(a, 12, 120);
    const [bDelivery] = await dueDeliveries(b, 1, 60); // younger than every one of A's
    let tarpitConnectionsWhenBArrived: number | undefined;
    receiver.respond = () => {
      tarpitConnectionsWhenBArrived = tarpit.connections;
      return 204;
    };

    const run = await retryDueDeliveries();

    // Oldest first, B would have waited for all 12 of A's (12 timeouts at 4 in flight); round robin,
    // it went out while A had at most its cap of attempts in flight.
    expect(await getDelivery(bDelivery!.event_id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(tarpitConnectionsWhenBArrived).toBeLessThanOrEqual(PER_APP_CONCURRENCY);
    // A: a few attempts (the breaker's threshold, plus what was in flight when it tripped), the rest put off.
    const sentToTarpit = tarpit.connections;
    expect(sentToTarpit).toBeGreaterThanOrEqual(DEFAULT_BREAKER.timeouts);
    expect(sentToTarpit).toBeLessThanOrEqual(DEFAULT_BREAKER.timeouts + PER_APP_CONCURRENCY - 1);
    expect(run).toMatchObject({
      attempted: sentToTarpit + 1,
      delivered: 1,
      not_delivered: sentToTarpit,
      not_sent: 0,
      job_errors: 0,
      paused: 12 - sentToTarpit,
      left: 0,
    });

    const endpoint = await getWebhook(a);
    expect(endpoint!.breaker.consecutive_timeouts).toBe(sentToTarpit);
    const pausedUntil = endpoint!.breaker.paused_until!;
    expect(Date.parse(pausedUntil)).toBeGreaterThan(Date.now() + (DEFAULT_BREAKER.pauseSeconds - 60) * 1000);
    const records = await Promise.all(aDeliveries.map((d) => getDelivery(d.event_id)));
    const putOff = records.filter((d) => d!.attempts === 0);
    expect(putOff).toHaveLength(12 - sentToTarpit);
    // To the end of the pause (a timeout of an attempt still in flight when it tripped may have renewed it since).
    for (const delivery of putOff) {
      expect(delivery!.status).toBe('pending');
      expect(delivery!.next_attempt_at! <= pausedUntil).toBe(true);
      expect(Date.parse(delivery!.next_attempt_at!)).toBeGreaterThan(
        Date.now() + (DEFAULT_BREAKER.pauseSeconds - 60) * 1000,
      );
    }
    for (const delivery of records.filter((d) => d!.attempts === 1))
      expect(delivery!.attempt_log[0]).toMatchObject({ status_code: null, error: 'timeout' });

    // While paused: the next run (once A's timed-out attempts are due again, 1 s later in tests)
    // sends A nothing, putting those off too, and B's new retry goes out.
    const [bAgain] = await dueDeliveries(b, 1, 1);
    expect(await retryDueDeliveries(new Date(Date.now() + 5000))).toMatchObject({
      attempted: 1,
      delivered: 1,
      paused: sentToTarpit,
    });
    expect(await getDelivery(bAgain!.event_id)).toMatchObject({ status: 'delivered' });
    // A new event of A from the bus is put off too, not sent into the tarpit.
    const fromBus = await deliverStatusChange(statusChange(a));
    expect(fromBus).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: pausedUntil });
    expect(tarpit.connections).toBe(sentToTarpit);
  });

  it('an answer closes the breaker: timeouts must come in a row', async () => {
    const { appId } = await createTestApp([]);
    const { secret } = await setWebhook(appId, receiver.url);
    receiver.setSecret(secret);
    receiver.respond = () => 204;
    await countEndpointTimeout(appId, receiver.url);
    await countEndpointTimeout(appId, receiver.url);
    expect((await getWebhook(appId))!.breaker.consecutive_timeouts).toBe(2);
    expect(await deliverStatusChange(statusChange(appId))).toMatchObject({ status: 'delivered' });
    expect((await getWebhook(appId))!.breaker).toEqual({ consecutive_timeouts: 0, paused_until: null });
  });

  it('a run starts no attempt after its deadline: what it did not start stays due for the next run', async () => {
    const { appId } = await createTestApp([]);
    await setWebhook(appId, tarpit.url);
    const due = await dueDeliveries(appId, 5, 30);
    const before = tarpit.connections;
    // As the schedule invokes the job, with its function's time nearly gone: an attempt timeout
    // (WEBHOOK_TIMEOUT_MS, 2 s in tests) and the 5 s margin left, plus a moment. The first
    // attempts start at once; they time out long after the deadline.
    const timeLeftMs = webhookConfig.webhookTimeoutMs + 5000 + 1000;
    const run = await retryWebhooks({}, lambdaContext('RetryWebhooks', 'deadline', timeLeftMs));
    expect(run).toMatchObject({ attempted: PER_APP_CONCURRENCY, left: 5 - PER_APP_CONCURRENCY });
    expect(tarpit.connections - before).toBe(PER_APP_CONCURRENCY);
    const records = await Promise.all(due.map((d) => getDelivery(d.event_id)));
    const untouched = records.filter((d) => d!.attempts === 0);
    expect(untouched).toHaveLength(5 - PER_APP_CONCURRENCY);
    for (const delivery of untouched) expect(delivery!.next_attempt_at).toBe(due[0]!.next_attempt_at);
  });
});
