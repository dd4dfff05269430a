/**
 * Measures DynamoDB consumed capacity of whatever runs through the shared document client: a
 * middleware asks every operation for ReturnConsumedCapacity INDEXES and adds up what comes back,
 * as read units (GetItem, Query, ...) or write units (PutItem, UpdateItem, BatchWriteItem,
 * TransactWriteItems, ...): on-demand tables bill the two at different prices.
 *
 * DynamoDB Local miscounts TransactWriteItems: for the table it charges roughly one item of the
 * transaction, not each item (a transaction of four counter updates: 2 units, where DynamoDB bills
 * 8), and it doubles the index units as if index entries were transactional writes too. While a
 * measurement runs, a transaction's units are therefore recomputed from the items as stored before
 * and after it, by DynamoDB's published rules:
 * - each table item: 2 write units per started KB, the larger of its sizes before and after;
 * - each global secondary index (propagation is an ordinary write): nothing when the item's entry
 *   (its keys and projected attributes, projectionOf) is absent or unchanged, 1 unit per started KB
 *   of the entry when it is added, removed or its projected attributes change, and both the removal
 *   and the addition when its index key changes.
 * The table units of list and revenue counter items (COUNT#, REV#) are kept apart as `counters`.
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
import { type Image, indexUnits, itemSize } from './item-size.js';

export { itemSize };

export interface Capacity {
  /** Read request units. */
  read: number;
  /** Write request units (TransactWriteItems recomputed, see above). */
  write: number;
  /** Read and write units as DynamoDB Local reported them. */
  reported: number;
  /** The part of `write` that updated list and revenue counter items (COUNT#, REV#) in transactions. */
  counters: number;
  /** The part of `write` that wrote index entries in transactions. */
  indexes: number;
  /** Each item a transaction wrote: its kind (key prefixes), size in bytes and table + index units. */
  items: string[];
}

const READS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);

const total: Capacity = { read: 0, write: 0, reported: 0, counters: 0, indexes: 0, items: [] };
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

/** These items as stored (undefined for an absent item). */
async function storedImages(items: { table: string; key: Key }[]): Promise<(Image | undefined)[]> {
  imageClient ??= localClient(config.dynamodbEndpoint!);
  const table = items[0]!.table;
  if (items.some((item) => item.table !== table))
    throw new Error('the capacity meter reads images of one table per transaction');
  const found = new Map<string, Image>();
  let pending: Record<string, AttributeValue>[] = items.map(({ key }) => marshall(key));
  while (pending.length > 0) {
    const { Responses = {}, UnprocessedKeys = {} } = await imageClient.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of Responses[table] ?? [])
      found.set(`${item[TABLE.partitionKey]!.S}|${item[TABLE.sortKey]!.S}`, item);
    pending = UnprocessedKeys[table]?.Keys ?? [];
  }
  return items.map(({ key }) => found.get(`${String(key[TABLE.partitionKey])}|${String(key[TABLE.sortKey])}`));
}

/** An item's kind: the fixed prefixes of its keys (SUB/SUB, OUTBOX/OUTBOX, COUNT/LIST, ...). */
const kindOf = (key: Key) =>
  [key[TABLE.partitionKey], key[TABLE.sortKey]].map((part) => String(part).split('#')[0]).join('/');

const isCounter = (key: Key) => /^(COUNT|REV)#/.test(String(key[TABLE.partitionKey]));

const transactionalUnits = (bytes: number) => 2 * Math.max(1, Math.ceil(bytes / 1024));

ddb.middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as { ReturnConsumedCapacity?: string; TransactItems?: TransactItem[] };
    input.ReturnConsumedCapacity = 'INDEXES';
    const transaction =
      measuring > 0 && context.commandName === 'TransactWriteItemsCommand'
        ? input.TransactItems!.map(keyOf)
        : undefined;
    const before = transaction && (await storedImages(transaction));
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
    const entries = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
    const reported = entries.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
    total.reported += reported;
    if (READS.has(context.commandName ?? '')) total.read += reported;
    else if (transaction) {
      const after = await storedImages(transaction);
      transaction.forEach(({ key }, i) => {
        const size = Math.max(before![i] ? itemSize(before![i]!) : 0, after[i] ? itemSize(after[i]!) : 0);
        const [table, indexes] = [transactionalUnits(size), indexUnits(before![i], after[i])];
        total.write += table + indexes;
        total.indexes += indexes;
        if (isCounter(key)) total.counters += table;
        total.items.push(`${kindOf(key)} ${size} B: ${table} + ${indexes}`);
      });
    } else total.write += reported;
    return result;
  },
  { step: 'initialize', name: 'measureConsumedCapacity' },
);

/** Capacity consumed while `work` runs (run measured work alone: the counters are global). */
export async function measureCapacity<T>(work: () => Promise<T>): Promise<Capacity & { units: number; result: T }> {
  const start = { ...total, items: [...total.items] };
  measuring++;
  try {
    const result = await work();
    const read = total.read - start.read;
    const write = total.write - start.write;
    return {
      read,
      write,
      units: read + write,
      reported: total.reported - start.reported,
      counters: total.counters - start.counters,
      indexes: total.indexes - start.indexes,
      items: total.items.slice(start.items.length),
      result,
    };
  } finally {
    measuring--;
  }
}
