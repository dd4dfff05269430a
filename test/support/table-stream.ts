/**
 * Reads the table's stream in DynamoDB Local, every shard up to its end, page by page: for test
 * helpers that look at what the stream carries or apply it themselves.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { localClient } from '../../local/dynamodb.js';

export type { StreamRecord };

/**
 * Calls `visit` with each page of records of every shard, in order, from the start of the shard or
 * after the sequence number `after` names for it. Answers the stream's ARN.
 */
export async function readTableStream(
  visit: (shardId: string, records: StreamRecord[], streamArn: string) => Promise<void> | void,
  after: (streamArn: string, shardId: string) => string | undefined = () => undefined,
): Promise<string> {
  const { tableName } = await import('../../lib/data/client.js');
  // Its own clients: lib/'s shared one is what tests record calls of.
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
    let next: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: next }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      next = StreamDescription?.LastEvaluatedShardId;
    } while (next);
    for (const shard of shards) {
      const position = after(streamArn, shard.ShardId!);
      let { ShardIterator: iterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ...(position
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      while (iterator) {
        const { Records = [], NextShardIterator } = await streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
        );
        if (Records.length === 0) break; // DynamoDB Local answers an open shard's end with no records
        await visit(shard.ShardId!, Records, streamArn);
        iterator = NextShardIterator;
      }
    }
    return streamArn;
  } finally {
    streams.destroy();
  }
}
