/**
 * The outbox relay: turns the events that subscription writes announce (and transfers' outbox
 * inserts) from the table's stream into bus events. Failed events are reported per record, so the
 * stream retries from the first failure and nothing is skipped.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { logger } from '../core/logger.js';
import { putEvents } from './bus.js';
import { isOutboxInsert, subscriptionEventsOf } from './outbox.js';
import { type BusEventDetail, busEventDetail } from './schemas.js';

/** The events of one stream record, unchecked: an outbox item's, or those a subscription write announced. */
function eventsOf(record: DynamoDBRecord): unknown[] {
  if (!isOutboxInsert(record)) return subscriptionEventsOf(record);
  const image = unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>);
  return [{ app_id: image.app_id, event_id: image.event_id, payload: image.payload }];
}

export async function publishOutboxRecords(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const events: { detail: BusEventDetail; sequenceNumber: string }[] = [];
  for (const record of records) {
    for (const event of eventsOf(record)) {
      const parsed = busEventDetail.safeParse(event);
      if (!parsed.success) {
        // An event that does not parse can never be published; retrying it would block the shard.
        logger.error('stream record holds an invalid event; skipped', {
          pk: record.dynamodb?.Keys?.pk?.S,
          issues: parsed.error.issues.length,
        });
        continue;
      }
      events.push({ detail: parsed.data, sequenceNumber: record.dynamodb!.SequenceNumber! });
    }
  }
  // Stryker disable next-line ConditionalExpression: putEvents sends nothing for no events, and finds none failed
  if (events.length === 0) return { batchItemFailures: [] };
  const failed = await putEvents(events.map((e) => e.detail));
  if (failed.length > 0)
    logger.warn('some events were not accepted by the bus', { failed: failed.length, of: events.length });
  const failedRecords = new Set(failed.map((i) => events[i]!.sequenceNumber));
  return { batchItemFailures: [...failedRecords].map((itemIdentifier) => ({ itemIdentifier })) };
}
