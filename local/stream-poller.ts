/**
 * The local stand-in for a Lambda event source mapping on the table's stream: reads DynamoDB
 * Local's stream, keeps only the records its consumer takes (the same filter as the CDK event
 * source), hands them to the consumer's handler, and checkpoints each shard's position in the
 * table only after the handler succeeded. Stopped between a state write and its delivery, it
 * resumes from the checkpoint on the next start, so nothing is lost. Two consumers, as deployed:
 * the publisher (announced events -> bus) and the aggregator (subscription writes -> counters).
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler as aggregateCounters } from '../functions/events/aggregate-counters.js';
import { handler as publishStatusChanges } from '../functions/events/publish-status-changes.js';
import { ddb, tableName } from '../lib/data/client.js';
import * as keys from '../lib/data/entity-keys.js';
import type { TableKey } from '../lib/data/table-keys.js';
import { isSubscriptionRecord } from '../lib/events/aggregator.js';
import { isPublishedRecord } from '../lib/events/outbox.js';

/** A function behind an event source mapping: the records it takes, and its handler. */
export interface StreamConsumer {
  /** Names its checkpoint: each consumer keeps its own position, like each event source mapping. */
  name: string;
  accepts(record: DynamoDBRecord): boolean;
  /** Sequence numbers of the records that failed (the batch is retried from the first); throws to retry the batch. */
  handle(shardId: string, records: DynamoDBRecord[]): Promise<string[]>;
}

export const PUBLISHER: StreamConsumer = {
  name: 'stream-poller',
  accepts: isPublishedRecord,
  handle: async (_shardId, records) =>
    (await publishStatusChanges({ Records: records })).batchItemFailures.map((failure) => failure.itemIdentifier),
};

export const AGGREGATOR: StreamConsumer = {
  name: 'stream-aggregator',
  accepts: isSubscriptionRecord,
  handle: async (shardId, records) => {
    await aggregateCounters({ Records: records, shardId });
    return [];
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ShardState {
  iterator: string | undefined;
  closed: boolean;
}

export interface StreamPoller {
  stop(): Promise<void>;
}

async function loadCheckpoint(checkpoint: TableKey, streamArn: string): Promise<Record<string, string>> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: checkpoint, ConsistentRead: true }));
  // A recreated table has a new stream: old positions mean nothing there.
  return Item?.stream_arn === streamArn ? ((Item.shards as Record<string, string>) ?? {}) : {};
}

async function saveCheckpoint(checkpoint: TableKey, streamArn: string, shards: Record<string, string>): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...checkpoint, type: 'checkpoint', stream_arn: streamArn, shards, updated_at: new Date().toISOString() },
    }),
  );
}

const toLambdaRecord = (record: StreamRecord): DynamoDBRecord => record as unknown as DynamoDBRecord;

export async function startStreamPoller(options: {
  client: DynamoDBClient;
  endpoint: string;
  intervalMs?: number;
  onError?: (error: unknown) => void;
  /** Whose records it reads: the publisher unless told. */
  consumer?: StreamConsumer;
}): Promise<StreamPoller> {
  const consumer = options.consumer ?? PUBLISHER;
  const checkpoint = keys.checkpoint(consumer.name);
  const { Table } = await options.client.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${tableName} has no stream`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const positions = await loadCheckpoint(checkpoint, streamArn);
  const shards = new Map<string, ShardState>();
  let running = true;

  async function discoverShards(): Promise<void> {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      if (shards.has(shardId)) continue;
      const position = positions[shardId];
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(position
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      shards.set(shardId, { iterator: ShardIterator, closed: false });
    }
  }

  async function pollShard(shardId: string, state: ShardState): Promise<void> {
    if (!state.iterator) {
      state.closed = true;
      return;
    }
    const { Records = [], NextShardIterator } = await streams.send(
      new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 100 }),
    );
    if (Records.length > 0) {
      const taken = Records.map(toLambdaRecord).filter(consumer.accepts);
      if (taken.length > 0) {
        const failures = await consumer.handle(shardId, taken);
        if (failures.length > 0) {
          // Like the Lambda event source: retry from the failed record with the lowest sequence
          // number (the list comes in any order), keep what came before.
          const firstFailed = failures.reduce((a, b) => (BigInt(b) < BigInt(a) ? b : a));
          const before = Records.filter((r) => BigInt(r.dynamodb!.SequenceNumber!) < BigInt(firstFailed)).at(-1);
          if (before) positions[shardId] = before.dynamodb!.SequenceNumber!;
          await saveCheckpoint(checkpoint, streamArn!, positions);
          const { ShardIterator } = await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shardId,
              ShardIteratorType: 'AT_SEQUENCE_NUMBER',
              SequenceNumber: firstFailed,
            }),
          );
          state.iterator = ShardIterator;
          return;
        }
      }
      positions[shardId] = Records.at(-1)!.dynamodb!.SequenceNumber!;
      // Only checkpoint when something was handled: the checkpoint write itself is a stream record.
      if (taken.length > 0) await saveCheckpoint(checkpoint, streamArn!, positions);
    }
    state.iterator = NextShardIterator;
  }

  const loop = (async () => {
    let sinceDiscovery = Number.POSITIVE_INFINITY;
    while (running) {
      try {
        if (sinceDiscovery++ > 20) {
          await discoverShards();
          sinceDiscovery = 0;
        }
        for (const [shardId, state] of shards) if (!state.closed) await pollShard(shardId, state);
      } catch (error) {
        options.onError?.(error);
        shards.clear(); // iterators may have expired: rediscover from the checkpoint
        Object.assign(positions, await loadCheckpoint(checkpoint, streamArn).catch(() => ({})));
        sinceDiscovery = Number.POSITIVE_INFINITY;
        await sleep(1000);
      }
      await sleep(options.intervalMs ?? 200);
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
      streams.destroy();
    },
  };
}
