/** Webhook events whose retries are exhausted go to an SQS dead-letter queue (an alarm watches its depth). */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.js';
import type { BusEventDetail } from './schemas.js';

const sqs = new SQSClient({ region: config.region });

/** Locally (no queue configured) the delivery record's `dead` status is the dead letter. */
export async function sendToDeadLetterQueue(detail: BusEventDetail, reason: string): Promise<void> {
  if (!config.deadLetterQueueUrl) return;
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: config.deadLetterQueueUrl,
      MessageBody: JSON.stringify({ ...detail, reason }),
      MessageAttributes: { app_id: { DataType: 'String', StringValue: detail.app_id } },
    }),
  );
}
