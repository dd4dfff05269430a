/** Reads and writes by key: many items in one request, or one item strongly consistently. */
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, BatchWriteCommand, type BatchWriteCommandInput, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { keyIdOf, type TableKey } from './table-keys.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const MAX_BATCH = 25;
const MAX_BATCH_GET = 100;
const MAX_ROUNDS = 10;

/**
 * The pause after the `round`th request left some unprocessed, before the next: equal jitter,
 * half of 50, 100, 200, ... ms (at most 1,000) plus up to the other half.
 */
export const unprocessedDelayMs = (round: number, random: number = Math.random()): number =>
  Math.min(1000, 25 * 2 ** round) * (0.5 + random / 2);

/** BatchWriteItem until every item is stored: DynamoDB may return UnprocessedItems under load. */
export async function batchWriteAll(requests: WriteRequest[]): Promise<void> {
  for (let start = 0; start < requests.length; start += MAX_BATCH) {
    let pending: WriteRequest[] = requests.slice(start, start + MAX_BATCH);
    for (let round = 1; ; round++) {
      const result = await ddb.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = result.UnprocessedItems?.[tableName] ?? [];
      if (pending.length === 0) break;
      if (round === MAX_ROUNDS) {
        throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${MAX_ROUNDS} attempts`);
      }
      await sleep(unprocessedDelayMs(round));
    }
  }
}

export function putRequest(item: Record<string, unknown>): WriteRequest {
  return { PutRequest: { Item: item } };
}

/**
 * Items by key in strongly consistent BatchGetItem requests: one request per 100 distinct keys
 * instead of one per item. In the order of the keys, a key given twice answered twice (read once:
 * BatchGetItem refuses a repeated key); undefined where there is none. Keys DynamoDB leaves
 * unprocessed (it may, under throttling) are read one by one, so a throttled read fails as a GetItem would.
 */
export async function batchGetConsistent(keys: TableKey[]): Promise<(Record<string, unknown> | undefined)[]> {
  const distinct = [...new Map(keys.map((key) => [keyIdOf(key), key])).values()];
  const found = new Map<string, Record<string, unknown>>();
  for (let start = 0; start < distinct.length; start += MAX_BATCH_GET) {
    const { Responses, UnprocessedKeys } = await ddb.send(
      new BatchGetCommand({
        RequestItems: { [tableName]: { Keys: distinct.slice(start, start + MAX_BATCH_GET), ConsistentRead: true } },
      }),
    );
    for (const item of Responses?.[tableName] ?? []) found.set(keyIdOf(item), item);
    for (const key of UnprocessedKeys?.[tableName]?.Keys ?? []) {
      const item = await getConsistent(key as TableKey);
      if (item) found.set(keyIdOf(key), item);
    }
  }
  return keys.map((key) => found.get(keyIdOf(key)));
}

/** One item by key in a strongly consistent GetItem; undefined when there is none. */
export async function getConsistent(key: TableKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return Item;
}

/**
 * Items by key (distinct, any number) through eventually consistent BatchGetItem requests of up to
 * 100 keys, retrying the keys DynamoDB leaves unprocessed with backoff. In the order of the keys;
 * undefined where there is none.
 */
export async function batchGetAll(keys: TableKey[]): Promise<(Record<string, unknown> | undefined)[]> {
  const found = new Map<string, Record<string, unknown>>();
  for (let start = 0; start < keys.length; start += MAX_BATCH_GET) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + MAX_BATCH_GET).map((key) => ({ ...key }));
    for (let round = 1; ; round++) {
      const { Responses, UnprocessedKeys } = await ddb.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending } } }),
      );
      for (const item of Responses?.[tableName] ?? []) found.set(keyIdOf(item), item);
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
      if (pending.length === 0) break;
      if (round === MAX_ROUNDS) {
        throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_ROUNDS} attempts`);
      }
      await sleep(unprocessedDelayMs(round));
    }
  }
  return keys.map((key) => found.get(keyIdOf(key)));
}
