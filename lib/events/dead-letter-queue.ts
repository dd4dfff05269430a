/** The SQS side of lib/events/dead-letter.ts, imported only when a dead letter is sent. */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../core/config.js';

// Stryker disable next-line ObjectLiteral: Lambda sets AWS_REGION, which the client reads without being told
const sqs = new SQSClient({ region: config.region });

export async function sendMessage(queueUrl: string, body: string, attributes: Record<string, string>): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: Object.fromEntries(
        Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
      ),
    }),
  );
}
