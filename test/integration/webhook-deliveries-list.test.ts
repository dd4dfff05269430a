import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // Its own table: the retry job of other files must not pick up the pending delivery seeded here.
  process.env.TABLE_NAME = `webhook-deliveries-list-${process.pid}`;
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { createDelivery, type DeliveryRecord, replaceDelivery, setWebhook } from '../../lib/data/webhooks.js';
import type { DeliveryStatus } from '../../lib/domain/webhook-deliveries.js';
import { listDeliveryPage, redeliver } from '../../lib/services/webhook-delivery.js';
import { createTestApp, statusChange } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** Deliveries of one app, one a minute from an hour ago (within their retention), in these statuses (oldest first). */
const STATUSES: DeliveryStatus[] = ['delivered', 'dead', 'delivered', 'pending', 'dead', 'delivered', 'dead'];

async function seed(appId: string): Promise<DeliveryRecord[]> {
  const records: DeliveryRecord[] = [];
  const start = Date.now() - 3600_000;
  for (const [i, status] of STATUSES.entries()) {
    const created = await createDelivery(statusChange(appId), new Date(start + i * 60_000));
    if (!created) throw new Error('a fresh event was already recorded');
    const record: DeliveryRecord = {
      ...created,
      status,
      next_attempt_at: status === 'pending' ? created.created_at : null,
    };
    await replaceDelivery(record, 0, true);
    records.push(record);
  }
  return records;
}

const ids = (page: { data: { event_id: string }[] }) => page.data.map((d) => d.event_id);

describe('webhook deliveries: listing and redelivery of one app (DynamoDB Local)', () => {
  let appId: string;
  let otherAppId: string;
  let records: DeliveryRecord[];
  let receiver: WebhookReceiver;
  const newestFirst = () => [...records].reverse();

  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    ({ appId } = await createTestApp([]));
    ({ appId: otherAppId } = await createTestApp([]));
    receiver.setSecret((await setWebhook(appId, receiver.url)).secret);
    records = await seed(appId);
    await seed(otherAppId);
  });
  afterAll(() => receiver.close());

  it('lists every delivery newest first, page after page by cursor, without repeating or skipping one', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await listDeliveryPage(appId, { limit: 3, cursor });
      sizes.push(page.data.length);
      seen.push(...ids(page));
      cursor = page.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(newestFirst().map((r) => r.event_id));
  });

  it('a page that ends exactly at the last delivery says so (no cursor to an empty page)', async () => {
    const page = await listDeliveryPage(appId, { limit: STATUSES.length });
    expect(page.data).toHaveLength(STATUSES.length);
    expect(page.pagination).toEqual({ limit: STATUSES.length, next_cursor: null });
  });

  it.each<[DeliveryStatus, number]>([
    ['dead', 3],
    ['delivered', 3],
    ['pending', 1],
    ['filtered', 0],
  ])('status=%s lists exactly the deliveries in it, newest first', async (status, count) => {
    const expected = newestFirst()
      .filter((r) => r.status === status)
      .map((r) => r.event_id);
    expect(expected).toHaveLength(count);
    const first = await listDeliveryPage(appId, { limit: 2, status });
    const rest = first.pagination.next_cursor
      ? await listDeliveryPage(appId, { limit: 2, status, cursor: first.pagination.next_cursor })
      : { data: [] };
    expect([...ids(first), ...ids(rest)]).toEqual(expected);
    expect([...first.data, ...rest.data].every((d) => d.status === status)).toBe(true);
  });

  it("never lists another app's deliveries", async () => {
    const all = await listDeliveryPage(otherAppId, { limit: 100 });
    expect(all.data).toHaveLength(STATUSES.length);
    expect(ids(all).some((id) => records.some((r) => r.event_id === id))).toBe(false);
  });

  it('a delivery that changes status moves from one status list to the other', async () => {
    const pending = records[3]!;
    await replaceDelivery({ ...pending, status: 'delivered', next_attempt_at: null }, pending.attempts, true);
    expect(ids(await listDeliveryPage(appId, { limit: 100, status: 'pending' }))).toEqual([]);
    expect(ids(await listDeliveryPage(appId, { limit: 100, status: 'delivered' }))).toContain(pending.event_id);
    await replaceDelivery(pending, pending.attempts, true);
  });

  it("redelivering with another app's id finds nothing and writes nothing", async () => {
    const dead = records[1]!;
    const stored = async () =>
      (
        await ddb.send(
          new GetCommand({ TableName: tableName, Key: keys.delivery(dead.event_id), ConsistentRead: true }),
        )
      ).Item;
    const before = await stored();
    expect(await redeliver(dead.event_id, { appId: otherAppId })).toBeUndefined();
    expect(await stored()).toEqual(before);
    expect(receiver.received.filter((r) => r.id === dead.event_id)).toEqual([]);
  });

  it("redelivering a dead event of the app sends it at once, and an attempt is cut at the caller's timeout", async () => {
    const [, dead, , , otherDead] = records;
    receiver.respond = () => 200;
    expect(await redeliver(dead!.event_id, { appId })).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.accepted().map((r) => r.id)).toContain(dead!.event_id);

    receiver.respond = () => ({ status: 200, delayMs: 2_000 });
    const slow = await redeliver(otherDead!.event_id, { appId, timeoutMs: 200 });
    expect(slow).toMatchObject({ status: 'pending', attempts: 1 });
    expect(slow!.attempt_log.at(-1)).toMatchObject({ status_code: null, error: 'timeout' });
  });
});
