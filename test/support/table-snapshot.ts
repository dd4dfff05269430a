/**
 * Whole-table snapshots for tests that own their table (test/support/own-table.ts): "this request
 * wrote nothing" is a comparison of two snapshots, and a table can be put back to a snapshot.
 * Items are kept raw (AttributeValue maps), so sets and numbers compare exactly as stored.
 */
import { type AttributeValue, BatchWriteItemCommand, ScanCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { dynamodb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { REQUEST_COUNTER_ATTRIBUTES } from '../../lib/data/rate-limits.js';

type RawItem = Record<string, AttributeValue>;

/** Items by `pk|sk`, each as canonical JSON (keys sorted at every level). */
export type TableSnapshot = Map<string, { item: RawItem; canonical: string }>;

export interface SnapshotOptions {
  /** Items left out of snapshots, comparisons and restores. */
  ignore?: (pk: string) => boolean;
}

const API_KEY_PREFIX = keys.apiKey('').pk;
const RATE_LIMIT_WINDOW_PREFIX = keys.rateLimitWindow('', '').pk.split('#')[0]!;

/** A mobile user's rate-limit window: written by every counted mobile request, also a refused one; not app data. */
export const isRateLimitWindow = (pk: string): boolean => pk.startsWith(`${RATE_LIMIT_WINDOW_PREFIX}#`);

const GOOGLE_OIDC_KEYS_PREFIX = keys.googleOidcKeys('').pk;
/**
 * Google's public OIDC keys as a function last fetched them: a cache, kept by any push whose token
 * needed them, also one refused afterwards; not app data.
 */
const isGoogleOidcKeys = (pk: string): boolean => pk.startsWith(GOOGLE_OIDC_KEYS_PREFIX);

/**
 * An item as snapshots keep it: an API key's request counter is left out, since every
 * authenticated request counts, also a refused one, and that count is not app data (nor are the
 * mobile users' window items, which snapshots leave out whole).
 */
export function withoutRequestCounter<T extends Record<string, unknown>>(item: T, pk: string): T {
  if (!pk.startsWith(API_KEY_PREFIX)) return item;
  const kept = { ...item };
  for (const attribute of REQUEST_COUNTER_ATTRIBUTES) delete kept[attribute];
  return kept;
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v instanceof Uint8Array
        ? Buffer.from(v).toString('base64')
        : v,
  );

const keyOf = (item: RawItem) => `${item.pk?.S}|${item.sk?.S}`;

export async function snapshotTable(options: SnapshotOptions = {}): Promise<TableSnapshot> {
  const snapshot: TableSnapshot = new Map();
  let ExclusiveStartKey: RawItem | undefined;
  do {
    const page = await dynamodb.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) {
      const pk = item.pk?.S ?? '';
      if (options.ignore?.(pk) || isRateLimitWindow(pk) || isGoogleOidcKeys(pk)) continue;
      const kept = withoutRequestCounter(item, item.pk?.S ?? '');
      snapshot.set(keyOf(kept), { item: kept, canonical: canonical(kept) });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return snapshot;
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export function diffSnapshots(before: TableSnapshot, after: TableSnapshot): SnapshotDiff {
  const added = [...after.keys()].filter((key) => !before.has(key));
  const removed = [...before.keys()].filter((key) => !after.has(key));
  const changed = [...before.keys()].filter(
    (key) => after.has(key) && after.get(key)!.canonical !== before.get(key)!.canonical,
  );
  return { added, removed, changed };
}

export const isEmptyDiff = (diff: SnapshotDiff): boolean =>
  diff.added.length + diff.removed.length + diff.changed.length === 0;

/** Puts the table back to `target`: deletes what was added, rewrites what changed or went missing (batched, 25 per call). */
export async function restoreSnapshot(target: TableSnapshot, current: TableSnapshot): Promise<void> {
  const diff = diffSnapshots(target, current);
  const requests: WriteRequest[] = [
    ...diff.added.map((key) => {
      const { pk, sk } = current.get(key)!.item;
      return { DeleteRequest: { Key: { pk: pk!, sk: sk! } } };
    }),
    ...[...diff.removed, ...diff.changed].map((key) => ({ PutRequest: { Item: target.get(key)!.item } })),
  ];
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    while (pending.length > 0) {
      const result = await dynamodb.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      pending = result.UnprocessedItems?.[tableName] ?? [];
    }
  }
}
