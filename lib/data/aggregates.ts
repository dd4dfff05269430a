/**
 * The aggregator's writes: amounts added to the items every change of an app would otherwise
 * write (list counts, revenue counters), applied from the table's stream in batches, so that one
 * item takes one write per stream batch instead of one per change.
 *
 * Exactly once: the stream delivers each record at least once, in order per shard the first time,
 * and a retried batch may start or end elsewhere. Every reader (Lambda's event source, the local
 * pollers, the tests' settleCounters) reads a shard in order from its start or from where it got
 * itself, so when a record is first applied every earlier record of its shard has been. So each counter item records, per stream shard,
 * the sequence number of the last record it has counted (`applied#<shard>`). A batch adds only
 * records after it: the update is conditioned on the marker being before the batch's first record;
 * when it is not (a retry, or a second reader of the same shard), the item is read and only the
 * records after its marker are added, conditioned on the marker read. Markers of shards that ended
 * longer ago than the stream keeps records are removed as the item is written.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionFailure, tableName } from './client.js';
import type { TableKey } from './table-keys.js';
import { allEqual, updateExpression } from './update-expression.js';

/** An amount one stream record adds to one item. */
export interface Contribution {
  key: TableKey;
  /** Attributes that name the item (its type, day, ...): set on every write. */
  set: Record<string, string>;
  add: Record<string, number>;
}

export interface StreamChange {
  /** The record's sequence number in its shard (digits). */
  sequenceNumber: string;
  contributions: readonly Contribution[];
}

export interface AppliedBatch {
  /** Items written. */
  written: number;
  /** Items whose contributions in this batch were all counted before (a retry): not written. */
  alreadyCounted: number;
}

const MARKER_PREFIX = 'applied#';
/** Stream records live 24 h; a marker older than this can never be needed again. */
const MARKER_RETENTION_MS = 48 * 3_600_000;
const MAX_ATTEMPTS = 8;
const PARALLEL_ITEMS = 8;

/** Sequence numbers are 21 to 40 digits: padded, they compare as strings. */
const padded = (sequenceNumber: string): string => sequenceNumber.padStart(40, '0');
const markerValue = (sequence: string, now: Date) => `${sequence}@${now.getTime()}`;
const markerSequence = (marker: string): string => marker.split('@')[0]!;
const markerTime = (marker: string): number => Number(marker.split('@')[1]);

interface Entry {
  sequence: string;
  set: Record<string, string>;
  add: Record<string, number>;
}

function sum(entries: readonly Entry[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const entry of entries)
    for (const [name, amount] of Object.entries(entry.add)) total[name] = (total[name] ?? 0) + amount;
  return Object.fromEntries(Object.entries(total).filter(([, amount]) => amount !== 0));
}

async function removeStaleMarkers(key: TableKey, item: Record<string, unknown>, own: string, now: Date) {
  const stale = Object.entries(item).filter(
    ([name, value]) =>
      name.startsWith(MARKER_PREFIX) &&
      // Stryker disable next-line ConditionalExpression: the update has just set the own marker at now: never stale
      name !== own &&
      now.getTime() - markerTime(String(value)) > MARKER_RETENTION_MS,
  );
  if (stale.length === 0) return;
  const unchanged = allEqual(Object.fromEntries(stale));
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ...updateExpression({ remove: stale.map(([name]) => name), condition: unchanged }),
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

async function applyToItem(shardId: string, key: TableKey, entries: Entry[], now: Date): Promise<boolean> {
  const marker = `${MARKER_PREFIX}${shardId}`;
  let pending = entries;
  const before = (first: string) => ({
    expression: 'attribute_not_exists(#marker) OR #marker < :first',
    names: { '#marker': marker },
    values: { ':first': first } as Record<string, unknown>,
  });
  let condition = before(pending[0]!.sequence);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // Amounts that cancel out are still counted: the marker moves, so neither comes again alone.
    const add = sum(pending);
    try {
      const { Attributes } = await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          ...updateExpression({
            set: { ...pending[0]!.set, [marker]: markerValue(pending.at(-1)!.sequence, now) },
            add,
            condition,
          }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      await removeStaleMarkers(key, Attributes ?? {}, marker, now);
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    const stored = Item?.[marker] as string | undefined;
    if (stored === undefined) {
      // The item went away meanwhile (only other shards' markers are ever removed): start over.
      condition = before(pending[0]!.sequence);
      continue;
    }
    const counted = markerSequence(stored);
    pending = pending.filter((entry) => entry.sequence > counted);
    if (pending.length === 0) return false;
    condition = { expression: '#marker = :stored', names: { '#marker': marker }, values: { ':stored': stored } };
  }
  throw new Error(`aggregate item ${key.pk} ${key.sk} stayed contended after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Adds the contributions of a batch of one shard's records to their items: one conditional
 * update per item, however many records of the batch touch it. Throws when an item cannot be
 * written (the batch is then retried, and what was already added is not added again).
 */
export async function applyStreamChanges(
  shardId: string,
  changes: readonly StreamChange[],
  now: Date = new Date(),
): Promise<AppliedBatch> {
  const byItem = new Map<string, { key: TableKey; entries: Entry[] }>();
  // Sequence numbers are digits: as BigInts they order as numbers, whatever their length.
  const ordered = [...changes].sort((a, b) => Number(BigInt(a.sequenceNumber) - BigInt(b.sequenceNumber)));
  for (const change of ordered) {
    for (const contribution of change.contributions) {
      const id = `${contribution.key.pk}\n${contribution.key.sk}`;
      const group = byItem.get(id) ?? { key: contribution.key, entries: [] };
      group.entries.push({ sequence: padded(change.sequenceNumber), set: contribution.set, add: contribution.add });
      byItem.set(id, group);
    }
  }
  const groups = [...byItem.values()];
  const result: AppliedBatch = { written: 0, alreadyCounted: 0 };
  // Stryker disable next-line EqualityOperator: one more round past the end writes an empty slice, nothing
  for (let start = 0; start < groups.length; start += PARALLEL_ITEMS) {
    const written = await Promise.all(
      groups.slice(start, start + PARALLEL_ITEMS).map((group) => applyToItem(shardId, group.key, group.entries, now)),
    );
    for (const w of written) w ? result.written++ : result.alreadyCounted++;
  }
  return result;
}
