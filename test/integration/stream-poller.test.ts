import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so that its stream carries only this file's writes.
  process.env.TABLE_NAME = `stream-poller-${process.pid}`;
});

import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, dynamodb, tableName } from '../../lib/data/client.js';
import { subscriptionItem } from '../../lib/data/subscription-items.js';
import { useLocalBus } from '../../lib/events/bus.js';
import { announcedEventId, announcedEvents } from '../../lib/events/outbox.js';
import { type StreamPoller, startStreamPoller } from '../../local/stream-poller.js';
import { createOwnTable } from '../support/own-table.js';
import { buildSubscription } from '../support/subscriptions.js';
import { waitUntil } from '../support/webhook-receiver.js';

/** Writes `count` expired subscriptions announcing their expiry in one transaction: one stream batch. Their event ids. */
async function writeStatusChanges(count: number): Promise<string[]> {
  const records = Array.from({ length: count }, (_, i) =>
    buildSubscription('app_poller', { id: `sub_${i}`, status: 'expired', auto_renew: false }),
  );
  const items = records.map((record) =>
    subscriptionItem(record, null, announcedEvents(record.version, { from: 'active', to: 'expired' })),
  );
  await ddb.send(
    new TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: tableName, Item } })) }),
  );
  return records.map((record) => announcedEventId(record.app_id, record.id, record.version, 'status_changed'));
}

describe('local stream poller (the event source mapping of npm start)', () => {
  let poller: StreamPoller | undefined;
  beforeAll(() => createOwnTable());
  afterEach(async () => {
    await poller?.stop();
    useLocalBus(undefined);
  });

  it('retries from the failed record with the lowest sequence number, whatever order the failures are reported in', async () => {
    const eventIds = await writeStatusChanges(3);
    const accepted = new Set<string>();
    let firstBatch = true;
    useLocalBus(async (events) => {
      const ours = events.filter((e) => eventIds.includes(e.event_id));
      if (firstBatch && ours.length === 3) {
        firstBatch = false;
        // The bus rejects the first and the last; the last one's failure is reported first, as
        // concurrent targets failing at different times would report them.
        const first = events.findIndex((e) => e.event_id === eventIds[0]);
        const last = events.findIndex((e) => e.event_id === eventIds[2]);
        accepted.add(eventIds[1]!);
        return [last, first];
      }
      for (const event of events) accepted.add(event.event_id);
      return [];
    });
    poller = await startStreamPoller({ client: dynamodb, endpoint: process.env.DYNAMODB_ENDPOINT!, intervalMs: 50 });
    await waitUntil(async () => eventIds.every((id) => accepted.has(id)), 15_000, 'all three events on the bus');
    expect(firstBatch).toBe(false);
    expect([...accepted].sort()).toEqual([...eventIds].sort());
  });
});
