/**
 * The local stand-in for the Lambda event source mapping on the table's stream: reads DynamoDB
 * Local's stream, keeps only outbox INSERTs (the same filter as the CDK event source), hands them
 * to the publisher handler, and checkpoints each shard's position in the table only after the
 * publisher succeeded. Stopped between a state write and its delivery, it resumes from the
 * checkpoint on the next start, so no notification is lost.
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
import { handler as publishStatusChanges } from '../functions/events/publish-status-changes.js';
import { ddb, tableName } from '../lib/data/client.js';
import { keys } from '../lib/data/keys.js';
import { isOutboxInsert } from '../lib/events/outbox.js';

const CHECKPOINT = keys.checkpoint('stream-poller');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ShardState {
  iterator: string | undefined;
  closed: boolean;
}

export interface StreamPoller {
  stop(): Promise<void>;
}

async function loadCheckpoint(streamArn: string): Promise<Record<string, string>> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: CHECKPOINT, ConsistentRead: true }));
  // A recreated table has a new stream: old positions mean nothing there.
  return Item?.stream_arn === streamArn ? ((Item.shards as Record<string, string>) ?? {}) : {};
}

async function saveCheckpoint(streamArn: string, shards: Record<string, string>): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...CHECKPOINT, type: 'checkpoint', stream_arn: streamArn, shards, updated_at: new Date().toISOString() },
    }),
  );
}

const toLambdaRecord = (record: StreamRecord): DynamoDBRecord => record as unknown as DynamoDBRecord;

export async function startStreamPoller(options: {
  client: DynamoDBClient;
  endpoint: string;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): Promise<StreamPoller> {
  const { Table } = await options.client.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${tableName} has no stream`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const positions = await loadCheckpoint(streamArn);
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
      const lambdaRecords = Records.map(toLambdaRecord);
      const outbox = lambdaRecords.filter(isOutboxInsert);
      if (outbox.length > 0) {
        const { batchItemFailures } = await publishStatusChanges({ Records: outbox });
        if (batchItemFailures.length > 0) {
          // Like the Lambda event source: retry from the failed record with the lowest sequence
          // number (the list comes in any order), keep what came before.
          const firstFailed = batchItemFailures
            .map((f) => f.itemIdentifier)
            .reduce((a, b) => (BigInt(b) < BigInt(a) ? b : a));
          const before = Records.filter((r) => BigInt(r.dynamodb!.SequenceNumber!) < BigInt(firstFailed)).at(-1);
          if (before) positions[shardId] = before.dynamodb!.SequenceNumber!;
          await saveCheckpoint(streamArn!, positions);
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
      // Only checkpoint when something was published: the checkpoint write itself is a stream record.
      if (outbox.length > 0) await saveCheckpoint(streamArn!, positions);
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
        Object.assign(positions, await loadCheckpoint(streamArn).catch(() => ({})));
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
