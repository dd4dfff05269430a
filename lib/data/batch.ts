/** BatchWriteItem until every item is stored: DynamoDB may return UnprocessedItems under load. */
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const MAX_BATCH = 25;
const MAX_ROUNDS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function batchWriteAll(requests: WriteRequest[]): Promise<void> {
  for (let start = 0; start < requests.length; start += MAX_BATCH) {
    let pending: WriteRequest[] = requests.slice(start, start + MAX_BATCH);
    for (let round = 0; pending.length > 0; round++) {
      if (round === MAX_ROUNDS) {
        throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${MAX_ROUNDS} attempts`);
      }
      if (round > 0) await sleep(Math.min(1000, 25 * 2 ** round) * (0.5 + Math.random() / 2));
      const result = await ddb.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = result.UnprocessedItems?.[tableName] ?? [];
    }
  }
}

export const putRequest = (item: Record<string, unknown>): WriteRequest => ({ PutRequest: { Item: item } });
