/**
 * Measures DynamoDB consumed capacity of whatever runs through the shared document client: a
 * middleware asks every operation for ReturnConsumedCapacity INDEXES and adds up what comes back,
 * as read units (GetItem, Query, ...) or write units (PutItem, UpdateItem, BatchWriteItem,
 * TransactWriteItems, ...): on-demand tables bill the two at different prices.
 *
 * DynamoDB Local under-reports TransactWriteItems: for the table it charges roughly one item of the
 * transaction, not each item (a transaction of four counter updates: 2 units, where DynamoDB bills
 * 8). While a measurement runs, the table units of a transaction are therefore recomputed with
 * DynamoDB's published rule, 2 write units per started KB of each item, the larger of its sizes
 * before and after, from the items as stored; its index units are DynamoDB Local's.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type ConsumedCapacity,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { config } from '../../lib/core/config.js';
import { ddb } from '../../lib/data/client.js';
import { TABLE } from '../../lib/data/table.js';
import { localClient } from '../../local/dynamodb.js';

export interface Capacity {
  /** Read request units. */
  read: number;
  /** Write request units (TransactWriteItems recomputed, see above). */
  write: number;
  /** Read and write units as DynamoDB Local reported them. */
  reported: number;
}

const READS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);

const total: Capacity = { read: 0, write: 0, reported: 0 };
let measuring = 0;

// Its own client (and so its own middleware stack): the images it reads are not counted.
let imageClient: DynamoDBClient | undefined;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Key = Record<string, unknown>;

function keyOf(item: TransactItem): { table: string; key: Key } {
  const { Put, Update, Delete, ConditionCheck } = item;
  if (Put)
    return {
      table: Put.TableName!,
      key: { [TABLE.partitionKey]: Put.Item![TABLE.partitionKey], [TABLE.sortKey]: Put.Item![TABLE.sortKey] },
    };
  const target = Update ?? Delete ?? ConditionCheck;
  if (!target) throw new Error('transaction item without an action');
  return { table: target.TableName!, key: target.Key! };
}

/** Sizes in bytes of these items as stored (0 for an absent item), per DynamoDB's item size rules. */
async function storedSizes(items: { table: string; key: Key }[]): Promise<number[]> {
  imageClient ??= localClient(config.dynamodbEndpoint!);
  const table = items[0]!.table;
  if (items.some((item) => item.table !== table))
    throw new Error('the capacity meter reads images of one table per transaction');
  const found = new Map<string, number>();
  let pending: Record<string, AttributeValue>[] = items.map(({ key }) => marshall(key));
  while (pending.length > 0) {
    const { Responses = {}, UnprocessedKeys = {} } = await imageClient.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of Responses[table] ?? [])
      found.set(`${item[TABLE.partitionKey]!.S}|${item[TABLE.sortKey]!.S}`, itemSize(item));
    pending = UnprocessedKeys[table]?.Keys ?? [];
  }
  return items.map(({ key }) => found.get(`${String(key[TABLE.partitionKey])}|${String(key[TABLE.sortKey])}`) ?? 0);
}

/** DynamoDB's documented item size: attribute names plus values (numbers: 1 byte per 2 digits + 1). */
export function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((size, [name, value]) => size + Buffer.byteLength(name) + valueSize(value), 0);
}

function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.SS !== undefined) return value.SS.reduce((size, s) => size + Buffer.byteLength(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((size, n) => size + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((size, b) => size + b.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((size, element) => size + 1 + valueSize(element), 0);
  if (value.M !== undefined)
    return (
      3 +
      Object.entries(value.M).reduce(
        (size, [name, element]) => size + 1 + Buffer.byteLength(name) + valueSize(element),
        0,
      )
    );
  return 1; // BOOL, NULL
}

const transactionalUnits = (bytes: number) => 2 * Math.max(1, Math.ceil(bytes / 1024));

ddb.middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as { ReturnConsumedCapacity?: string; TransactItems?: TransactItem[] };
    input.ReturnConsumedCapacity = 'INDEXES';
    const transaction =
      measuring > 0 && context.commandName === 'TransactWriteItemsCommand'
        ? input.TransactItems!.map(keyOf)
        : undefined;
    const before = transaction && (await storedSizes(transaction));
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
    const entries = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
    const reported = entries.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
    total.reported += reported;
    if (READS.has(context.commandName ?? '')) total.read += reported;
    else if (transaction) {
      const after = await storedSizes(transaction);
      const tableUnits = before!.reduce((sum, size, i) => sum + transactionalUnits(Math.max(size, after[i]!)), 0);
      const indexUnits = entries
        .flatMap((entry) => Object.values(entry.GlobalSecondaryIndexes ?? {}))
        .reduce((sum, index) => sum + (index.CapacityUnits ?? 0), 0);
      total.write += tableUnits + indexUnits;
    } else total.write += reported;
    return result;
  },
  { step: 'initialize', name: 'measureConsumedCapacity' },
);

/** Capacity consumed while `work` runs (run measured work alone: the counters are global). */
export async function measureCapacity<T>(work: () => Promise<T>): Promise<Capacity & { units: number; result: T }> {
  const start = { ...total };
  measuring++;
  try {
    const result = await work();
    const read = total.read - start.read;
    const write = total.write - start.write;
    return { read, write, units: read + write, reported: total.reported - start.reported, result };
  } finally {
    measuring--;
  }
}
