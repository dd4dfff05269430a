/** Webhook events whose retries are exhausted go to an SQS dead-letter queue (an alarm watches its depth). */
import { config } from '../core/config.js';
import type { BusEventDetail } from './schemas.js';

/** Locally (no queue configured) the delivery record's `dead` status is the dead letter. */
export async function sendToDeadLetterQueue(detail: BusEventDetail, reason: string): Promise<void> {
  if (!config.deadLetterQueueUrl) return;
  // The SQS client is set up on the first dead letter, not at every cold start of the deliverer
  // and the retry job, which almost never need it (bench/cold-start.ts).
  const { sendMessage } = await import('./dead-letter-queue.js');
  await sendMessage(config.deadLetterQueueUrl, JSON.stringify({ ...detail, reason }), { app_id: detail.app_id });
}
