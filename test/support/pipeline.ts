/**
 * "Nothing more arrives", decided from the pipeline's state instead of a pause. The local runtime
 * (in the test worker or `npm start` as a process) relays the events writes announce on the table's stream to
 * the bus and the webhook deliverer; waitForIdlePipeline reads the same stream and waits until
 *   - the stream poller's checkpoint covers every record of an event on it: none will be published
 *     again, and each one's first attempt is over (the local bus awaits the deliverer before the
 *     poller checkpoints), and
 *   - every one of those events has a delivery that is no longer pending: no attempt in flight,
 *     none due, no retry to come.
 * After it returns, every webhook the events written so far will ever cause has been answered by
 * the receiver, however slow the machine, so a count taken then is final. It polls with a deadline.
 * The table must be the test file's own (test/support/own-table.ts): the whole stream is read.
 */
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { readTableStream } from './table-stream.js';

interface StreamOutbox {
  streamArn: string;
  /** Per shard, the sequence number of its last record with events. */
  lastOutboxBySeq: Map<string, bigint>;
  eventIds: string[];
}

async function readOutboxFromStream(appId: string | undefined): Promise<StreamOutbox> {
  const { isOutboxInsert, subscriptionEventsOf } = await import('../../lib/events/outbox.js');
  const lastOutboxBySeq = new Map<string, bigint>();
  const eventIds: string[] = [];
  const streamArn = await readTableStream((shardId, records) => {
    for (const record of records as unknown as DynamoDBRecord[]) {
      const image = record.dynamodb?.NewImage;
      const events = isOutboxInsert(record)
        ? [{ app_id: image!.app_id!.S!, event_id: image!.event_id!.S! }]
        : subscriptionEventsOf(record);
      if (events.length === 0) continue;
      lastOutboxBySeq.set(shardId, BigInt(record.dynamodb!.SequenceNumber!));
      for (const event of events) if (!appId || event.app_id === appId) eventIds.push(event.event_id);
    }
  });
  return { streamArn, lastOutboxBySeq, eventIds };
}

/** What is still under way: empty when the pipeline is idle. */
async function outstanding(outbox: StreamOutbox): Promise<string[]> {
  const { ddb, tableName } = await import('../../lib/data/client.js');
  const keys = await import('../../lib/data/entity-keys.js');
  const busy: string[] = [];
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.checkpoint('stream-poller'), ConsistentRead: true }),
  );
  const positions = (Item?.stream_arn === outbox.streamArn ? Item.shards : {}) as Record<string, string>;
  for (const [shard, last] of outbox.lastOutboxBySeq) {
    const position = positions[shard];
    if (position === undefined || BigInt(position) < last) busy.push(`shard ${shard} not relayed up to ${last}`);
  }
  for (let start = 0; start < outbox.eventIds.length; start += 100) {
    const ids = outbox.eventIds.slice(start, start + 100);
    const { Responses } = await ddb.send(
      new BatchGetCommand({
        RequestItems: { [tableName]: { Keys: ids.map((id) => keys.delivery(id)), ConsistentRead: true } },
      }),
    );
    const statusById = new Map((Responses?.[tableName] ?? []).map((item) => [item.event_id as string, item.status]));
    for (const id of ids) {
      const status = statusById.get(id);
      if (status === undefined || status === 'pending') busy.push(`delivery of ${id}: ${status ?? 'not recorded'}`);
    }
  }
  return busy;
}

/**
 * Resolves once every event written so far (of `appId`, or all) has been relayed and its delivery
 * settled; see the file's comment. Throws what is still under way after `timeoutMs`.
 */
export async function waitForIdlePipeline(options: { appId?: string; timeoutMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const outbox = await readOutboxFromStream(options.appId);
  for (;;) {
    const busy = await outstanding(outbox);
    if (busy.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`pipeline still busy after ${timeoutMs} ms: ${busy.slice(0, 5).join('; ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
