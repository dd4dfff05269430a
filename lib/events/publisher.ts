/**
 * The outbox relay: turns outbox INSERTs from the table's stream into bus events. Failed events
 * are reported per record, so the stream retries from the first failure and nothing is skipped.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { logger } from '../core/logger.js';
import { putEvents } from './bus.js';
import { isOutboxInsert } from './outbox.js';
import { type BusEventDetail, busEventDetail } from './schemas.js';

export async function publishOutboxRecords(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const events: { detail: BusEventDetail; sequenceNumber: string }[] = [];
  for (const record of records.filter(isOutboxInsert)) {
    const image = unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>);
    const parsed = busEventDetail.safeParse({ app_id: image.app_id, event_id: image.event_id, payload: image.payload });
    if (!parsed.success) {
      // A malformed outbox item can never be published; retrying it would block the shard.
      logger.error('outbox item is not a valid event; skipped', { pk: image.pk, issues: parsed.error.issues.length });
      continue;
    }
    events.push({ detail: parsed.data, sequenceNumber: record.dynamodb!.SequenceNumber! });
  }
  if (events.length === 0) return { batchItemFailures: [] };
  const failed = await putEvents(events.map((e) => e.detail));
  if (failed.length > 0)
    logger.warn('some events were not accepted by the bus', { failed: failed.length, of: events.length });
  return { batchItemFailures: failed.map((i) => ({ itemIdentifier: events[i]!.sequenceNumber })) };
}
