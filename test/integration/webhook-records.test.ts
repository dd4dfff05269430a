/**
 * The webhook items as stored (lib/data/webhooks.ts), against DynamoDB Local: their types, the due
 * entry only a pending delivery has, the attempt log kept to its newest 20, strongly consistent
 * reads, and failures that are not a duplicate or a lost claim. Claims racing each other are
 * test/integration/webhook-claim.test.ts; the listing's pages, webhook-deliveries-list.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Read once by lib/core/config.ts: a retention other than the default, set as an operator sets it.
  process.env.WEBHOOK_DELIVERY_RETENTION_DAYS = '7';
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import {
  type AttemptLog,
  createDelivery,
  type DeliveryRecord,
  getDelivery,
  listDeliveries,
  replaceDelivery,
  setWebhook,
} from '../../lib/data/webhooks.js';
import { failCommands, interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { createTestApp, statusChange } from '../support/fixtures.js';

const NOW = new Date('2026-04-01T08:00:00.000Z');
const raw = getConsistent;

afterEach(stopIntercepting);

describe('webhook items', () => {
  it('the endpoint and each delivery carry their type; a pending delivery is in the due index, a settled one is not', async () => {
    const { appId } = await createTestApp();
    await setWebhook(appId, 'https://hooks.example.com/a');
    expect(await raw(keys.webhook(appId))).toMatchObject({ type: 'webhook', url: 'https://hooks.example.com/a' });

    const created = (await createDelivery(statusChange(appId), NOW)) as DeliveryRecord;
    const key = keys.delivery(created.event_id);
    expect(await raw(key)).toMatchObject({
      type: 'webhook_delivery',
      status: 'pending',
      due_pk: 'DUE#DLV#2026-04-01',
      due_sk: `2026-04-01T08:00:00.000Z#${created.event_id}`,
    });

    const delivered: DeliveryRecord = { ...created, status: 'delivered', attempts: 1, next_attempt_at: null };
    expect(await replaceDelivery(delivered, 0)).toBe(true);
    const stored = await raw(key);
    expect(stored).toMatchObject({ type: 'webhook_delivery', status: 'delivered' });
    expect(stored).not.toHaveProperty('due_pk');
    expect(stored).not.toHaveProperty('due_sk');
  });

  it('a delivery keeps the newest 20 attempts of its log', async () => {
    const { appId } = await createTestApp();
    const created = (await createDelivery(statusChange(appId), NOW)) as DeliveryRecord;
    const attempt_log: AttemptLog[] = Array.from({ length: 25 }, (_, i) => ({
      at: new Date(NOW.getTime() + i * 1000).toISOString(),
      status_code: 500,
      error: null,
      duration_ms: i,
    }));
    expect(await replaceDelivery({ ...created, attempts: 25, attempt_log }, 0)).toBe(true);
    const stored = await getDelivery(created.event_id);
    expect(stored?.attempt_log.map((attempt) => attempt.duration_ms)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 5),
    );
  });

  it('a delivery is read strongly consistent: a worker sees the claim another just made', async () => {
    const { appId } = await createTestApp();
    const created = (await createDelivery(statusChange(appId), NOW)) as DeliveryRecord;
    const sent = interceptCommands();
    await getDelivery(created.event_id);
    expect(sent).toEqual([
      {
        command: 'GetItemCommand',
        input: { TableName: tableName, Key: keys.delivery(created.event_id), ConsistentRead: true },
      },
    ]);
  });

  it('a failed write is no duplicate and no lost claim: it fails the caller, who is tried again', async () => {
    const { appId } = await createTestApp();
    const detail = statusChange(appId);
    const created = (await createDelivery(detail, NOW)) as DeliveryRecord;
    expect(await createDelivery(detail, NOW)).toBe(false);
    failCommands('PutItemCommand', throttled);
    await expect(createDelivery(statusChange(appId), NOW)).rejects.toThrow('throughput exceeded');
    await expect(replaceDelivery({ ...created, attempts: 1 }, 0)).rejects.toThrow('throughput exceeded');
  });

  it('listed by status, a delivery whose index entry is behind its status is left out', async () => {
    const { appId } = await createTestApp();
    // Now, not NOW: a record from April is past its retention, and no listing shows it.
    const created = (await createDelivery(statusChange(appId), new Date())) as DeliveryRecord;
    // The status index is eventually consistent: its entry may still say pending after the
    // delivery went dead. Written here as that moment looks: the entry pending, the item dead.
    const item = await raw(keys.delivery(created.event_id));
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...item, status: 'dead' } }));
    expect((await listDeliveries(appId, { status: 'pending', limit: 10 })).deliveries).toEqual([]);
    expect((await listDeliveries(appId, { limit: 10 })).deliveries.map((d) => d.status)).toEqual(['dead']);
  });

  it('a delivery is deleted by TTL WEBHOOK_DELIVERY_RETENTION_DAYS after its next try, or its last change once settled', async () => {
    const { appId } = await createTestApp();
    const created = (await createDelivery(statusChange(appId), NOW)) as DeliveryRecord;
    const key = keys.delivery(created.event_id);
    const sevenDaysAfter = (iso: string) => Date.parse(iso) / 1000 + 7 * 86_400;
    expect((await raw(key))?.ttl).toBe(sevenDaysAfter('2026-04-01T08:00:00.000Z'));
    // Pending a retry a day later: kept past that try.
    const retrying: DeliveryRecord = {
      ...created,
      attempts: 1,
      next_attempt_at: '2026-04-02T08:00:00.000Z',
      updated_at: '2026-04-01T08:00:01.000Z',
    };
    expect(await replaceDelivery(retrying, 0)).toBe(true);
    expect((await raw(key))?.ttl).toBe(sevenDaysAfter('2026-04-02T08:00:00.000Z'));
    const delivered = { ...retrying, attempts: 2, status: 'delivered' as const, next_attempt_at: null };
    expect(await replaceDelivery({ ...delivered, updated_at: '2026-04-02T08:00:03.000Z' }, 1)).toBe(true);
    expect((await raw(key))?.ttl).toBe(sevenDaysAfter('2026-04-02T08:00:03.000Z'));
    // The storage attribute is not part of the record the code sees.
    expect(await getDelivery(created.event_id)).not.toHaveProperty('ttl');
  });

  it('a delivery past its TTL that DynamoDB has not deleted yet is left out of both listings', async () => {
    const { appId } = await createTestApp();
    const old = (await createDelivery(statusChange(appId), new Date(Date.now() - 8 * 86_400_000))) as DeliveryRecord;
    const recent = (await createDelivery(statusChange(appId), new Date())) as DeliveryRecord;
    expect((await listDeliveries(appId, { limit: 10 })).deliveries.map((d) => d.event_id)).toEqual([recent.event_id]);
    expect((await listDeliveries(appId, { status: 'pending', limit: 10 })).deliveries.map((d) => d.event_id)).toEqual([
      recent.event_id,
    ]);
    expect(await getDelivery(old.event_id)).toBeDefined();
  });
});
