import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so that its stream carries only this file's outbox items.
  process.env.TABLE_NAME = `stream-poller-${process.pid}`;
});

import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, dynamodb, tableName } from '../../lib/data/client.js';
import { INITIAL_LIFECYCLE, type SubscriptionState } from '../../lib/domain/subscription-state.js';
import { useLocalBus } from '../../lib/events/bus.js';
import { outboxItem } from '../../lib/events/outbox.js';
import { type StreamPoller, startStreamPoller } from '../../local/stream-poller.js';
import { createOwnTable } from '../support/own-table.js';
import { waitUntil } from '../support/webhook-receiver.js';

const state: SubscriptionState = {
  status: 'expired',
  expires_at: new Date().toISOString(),
  auto_renew: false,
  ...INITIAL_LIFECYCLE,
};

/** Writes `count` outbox items in one transaction, so that they reach the stream in one batch. */
async function writeOutboxItems(count: number): Promise<string[]> {
  const items = Array.from({ length: count }, (_, i) =>
    outboxItem(
      { app_id: 'app_poller', id: `sub_${i}`, user_id: 'u' },
      state,
      { from: 'active', to: 'expired' },
      new Date(),
    ),
  );
  await ddb.send(
    new TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: tableName, Item } })) }),
  );
  return items.map((item) => item.event_id);
}

describe('local stream poller (the event source mapping of npm start)', () => {
  let poller: StreamPoller | undefined;
  beforeAll(() => createOwnTable());
  afterEach(async () => {
    await poller?.stop();
    useLocalBus(undefined);
  });

  it('retries from the failed record with the lowest sequence number, whatever order the failures are reported in', async () => {
    const eventIds = await writeOutboxItems(3);
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
