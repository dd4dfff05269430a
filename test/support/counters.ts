/**
 * The list counts and revenue counters follow the subscription writes through the table's stream
 * (lib/events/aggregator.ts). A test that reads them right after writing calls settleCounters
 * first: it runs the aggregator itself over the stream, up to its end. That is safe beside the
 * local runtime's own aggregator poller (or another test worker's) on the same stream: the
 * counters' markers make each record count once, whoever applies it first. The aggregator's
 * writes go through lib/'s client: a test recording a request's DynamoDB calls settles first.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { readTableStream, resumeFrom } from './table-stream.js';

/** Per stream and shard, the last record this process has applied: the next call starts after it. */
const applied = new Map<string, string>();

export async function settleCounters(): Promise<void> {
  const { aggregateRecords } = await import('../../lib/events/aggregator.js');
  await readTableStream(
    async (shardId, records, streamArn) => {
      await aggregateRecords(shardId, records as unknown as DynamoDBRecord[]);
      applied.set(`${streamArn} ${shardId}`, records.at(-1)!.dynamodb!.SequenceNumber!);
    },
    (streamArn, shardId) => resumeFrom(applied, streamArn, shardId),
  );
}
