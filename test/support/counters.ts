/**
 * The list counts and revenue counters follow the subscription writes through the table's stream
 * (lib/events/aggregator.ts). A test that reads them right after writing calls settleCounters
 * first: it runs the aggregator itself over the stream, up to its end. That is safe beside the
 * local runtime's own aggregator poller (or another test worker's) on the same stream: the
 * counters' markers make each record count once, whoever applies it first. The aggregator's
 * writes go through lib/'s client: a test recording a request's DynamoDB calls settles first.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { localClient } from '../../local/dynamodb.js';

/** Per stream and shard, the last record this process has applied: the next call starts after it. */
const applied = new Map<string, string>();

export async function settleCounters(): Promise<void> {
  const { tableName } = await import('../../lib/data/client.js');
  const { aggregateRecords } = await import('../../lib/events/aggregator.js');
  // Its own client for the table's description: lib/'s shared one is what tests record calls of.
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  const { Table } = await client
    .send(new DescribeTableCommand({ TableName: tableName }))
    .finally(() => client.destroy());
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${tableName} has no stream`);
  const streams = new DynamoDBStreamsClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const shards: Shard[] = [];
    let after: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: after }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      after = StreamDescription?.LastEvaluatedShardId;
    } while (after);
    for (const shard of shards) {
      const position = `${streamArn} ${shard.ShardId}`;
      const last = applied.get(position);
      let { ShardIterator: iterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ...(last
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      while (iterator) {
        const { Records = [], NextShardIterator } = await streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
        );
        if (Records.length === 0) break; // DynamoDB Local answers an open shard's end with no records
        await aggregateRecords(shard.ShardId!, Records as unknown as DynamoDBRecord[]);
        applied.set(position, Records.at(-1)!.dynamodb!.SequenceNumber!);
        iterator = NextShardIterator;
      }
    }
  } finally {
    streams.destroy();
  }
}
