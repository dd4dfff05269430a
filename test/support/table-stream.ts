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

const STALE_ITERATOR = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

/** Where to begin reading a shard: after a record read before, or at an iterator taken earlier (streamTip). */
export type ShardStart = { after: string } | { iterator: string };

/**
 * Where each shard of the table's stream ends now, as iterators that read only what is written
 * after this call, by `<stream ARN> <shard id>`; none for a table that does not exist (yet). A test
 * file that reads the shared table's stream starts there: what came before is other files'.
 */
export async function streamTip(tableName: string | undefined): Promise<Map<string, string>> {
  const tip = new Map<string, string>();
  if (!tableName || !process.env.DYNAMODB_ENDPOINT) return tip;
  const client = localClient(process.env.DYNAMODB_ENDPOINT);
  const streamArn = await client
    .send(new DescribeTableCommand({ TableName: tableName }))
    .then(
      ({ Table }) => Table?.LatestStreamArn,
      () => undefined,
    )
    .finally(() => client.destroy());
  if (!streamArn) return tip;
  const streams = streamsClient();
  try {
    for (const shard of await shardsOf(streams, streamArn)) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' }),
      );
      if (ShardIterator) tip.set(`${streamArn} ${shard.ShardId}`, ShardIterator);
    }
  } finally {
    streams.destroy();
  }
  return tip;
}

const streamsClient = () =>
  new DynamoDBStreamsClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

async function shardsOf(streams: DynamoDBStreamsClient, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let next: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: next }),
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    next = StreamDescription?.LastEvaluatedShardId;
  } while (next);
  return shards;
}

/**
 * Where the test table's stream stood when this module was first imported by the running test file
 * (as it is by the helpers below, before the file's tests write anything). On the suite's shared
 * table what came before is other files', of other apps: reading it all again from the start, as
 * each file once did, made a file's first read as slow as the suite so far was long (a 30 s time-out
 * late in a run). A file's own table does not exist yet when it imports this: read from the start.
 */
const TIP_AT_IMPORT = await streamTip(process.env.TABLE_NAME);

/** Where a helper that has read up to `readUpTo` (by `<stream ARN> <shard id>`) goes on reading. */
export function resumeFrom(readUpTo: ReadonlyMap<string, string>, streamArn: string, shardId: string) {
  const key = `${streamArn} ${shardId}`;
  const after = readUpTo.get(key);
  if (after) return { after };
  const iterator = TIP_AT_IMPORT.get(key);
  return iterator ? { iterator } : undefined;
}

/**
 * Calls `visit` with each page of records of every shard, in order, from where `start` says (by
 * default, and for a shard it says nothing of, the start of the shard). Answers the stream's ARN.
 */
export async function readTableStream(
  visit: (shardId: string, records: StreamRecord[], streamArn: string) => Promise<void> | void,
  start: (streamArn: string, shardId: string) => ShardStart | undefined = () => undefined,
): Promise<string> {
  const { tableName } = await import('../../lib/data/client.js');
  // Its own clients: lib/'s shared one is what tests record calls of.
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  const { Table } = await client
    .send(new DescribeTableCommand({ TableName: tableName }))
    .finally(() => client.destroy());
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${tableName} has no stream`);
  const streams = streamsClient();
  try {
    for (const shard of await shardsOf(streams, streamArn)) {
      const position = start(streamArn, shard.ShardId!);
      const iteratorAt = async (from: ShardStart | undefined) =>
        (
          await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shard.ShardId,
              ...(from && 'after' in from
                ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: from.after }
                : { ShardIteratorType: 'TRIM_HORIZON' }),
            }),
          )
        ).ShardIterator;
      let iterator = position && 'iterator' in position ? position.iterator : await iteratorAt(position);
      let saved = position !== undefined && 'iterator' in position;
      while (iterator) {
        const page = await streams
          .send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }))
          .catch((error: unknown) => {
            // An iterator kept since the file began can expire, or fall behind the shard's trimmed
            // start: read that shard from its start instead (slower, never wrong).
            if (saved && STALE_ITERATOR.has((error as Error).name)) return undefined;
            throw error;
          });
        if (page === undefined) {
          saved = false;
          iterator = await iteratorAt(undefined);
          continue;
        }
        saved = false;
        const { Records = [], NextShardIterator } = page;
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
