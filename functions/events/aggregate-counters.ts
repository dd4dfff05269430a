import type { DynamoDBStreamEvent } from 'aws-lambda';
import { aggregateRecords } from '../../lib/events/aggregator.js';

/**
 * Table stream (filtered to subscription items) -> list counts and revenue counters. The event
 * source has a tumbling window so that each event names its shard, which the counters' markers
 * need; the (unused) window state must be returned.
 */
export const handler = async (event: DynamoDBStreamEvent & { shardId?: string }) => {
  if (!event.shardId) throw new Error('the event names no shard: the event source needs a tumbling window');
  await aggregateRecords(event.shardId, event.Records);
  return { state: {} };
};
