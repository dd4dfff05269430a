/**
 * Work the clock makes due, found through the sparse workDueByDay index: one partition per kind and
 * UTC day (see dueAttributes). A checkpoint per kind remembers the oldest day that may still hold
 * due items, so a run reads today's partition plus any day it has not finished, never a Scan.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { queryAll } from './query.js';
import { type IndexName, TABLE } from './table.js';
import { type DueKind, duePartition } from './table-keys.js';

const DAY_MS = 86_400_000;
/** Without a checkpoint (first run), look back this far. */
const FIRST_RUN_LOOKBACK_DAYS = 7;

function dayOf(date: Date) {
  return date.toISOString().slice(0, 10);
}

export interface DueDay {
  day: string;
  items: Record<string, unknown>[];
  /** False when the run's limit cut the day short: it may hold more due items. */
  complete: boolean;
}

const firstDay = (item: Record<string, unknown> | undefined, now: Date): string =>
  (item?.day as string | undefined) ?? dayOf(new Date(now.getTime() - FIRST_RUN_LOOKBACK_DAYS * DAY_MS));

async function checkpointDay(kind: DueKind, now: Date): Promise<string> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.checkpoint(`due-${kind}`), ConsistentRead: true }),
  );
  return firstDay(Item, now);
}

/**
 * The first day each kind's run must read, for a job that runs several kinds at once: their
 * checkpoints in one strongly consistent BatchGetItem instead of a GetItem each.
 */
export async function checkpointDays(kinds: readonly DueKind[], now: Date): Promise<Map<DueKind, string>> {
  const items = await batchGetConsistent(kinds.map((kind) => keys.checkpoint(`due-${kind}`)));
  return new Map(kinds.map((kind, i) => [kind, firstDay(items[i], now)]));
}

/** Records that every day before `day` has been fully processed. */
export async function advanceCheckpoint(kind: DueKind, day: string): Promise<void> {
  await ddb
    .send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.checkpoint(`due-${kind}`), type: 'checkpoint', day, updated_at: new Date().toISOString() },
        // Never move backwards (two overlapping runs).
        ConditionExpression: 'attribute_not_exists(#day) OR #day <= :day',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: { ':day': day },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/**
 * Items of this kind due at or before `now`, day by day from the checkpoint (`from`, when the
 * caller read it: checkpointDays), at most `limit`.
 */
export async function findDueItems(kind: DueKind, now: Date, limit: number, from?: string): Promise<DueDay[]> {
  const index = TABLE.indexes.workDueByDay;
  const today = dayOf(now);
  const days: DueDay[] = [];
  let remaining = limit;
  for (
    let day = from ?? (await checkpointDay(kind, now));
    day <= today && remaining > 0;
    day = dayOf(new Date(Date.parse(day) + DAY_MS))
  ) {
    const requested = remaining;
    const items = await queryAll(
      {
        IndexName: 'workDueByDay' satisfies IndexName,
        KeyConditionExpression: '#pk = :pk AND #sk <= :upTo',
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        // '~' sorts after every character of an id: everything due at or before now.
        ExpressionAttributeValues: { ':pk': duePartition(kind, day), ':upTo': `${now.toISOString()}~` },
        Limit: 100,
      },
      remaining,
    );
    remaining -= items.length;
    days.push({ day, items, complete: items.length < requested });
  }
  return days;
}
