import type { DynamoDBStreamEvent } from 'aws-lambda';
import { publishOutboxRecords } from '../../lib/events/publisher.js';

/** Table stream (filtered to outbox INSERTs) -> EventBridge PutEvents; reports failures per record. */
export const handler = (event: DynamoDBStreamEvent) => publishOutboxRecords(event.Records);
