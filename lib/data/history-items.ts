/** A subscription's history entries: written from the table's stream, read newest first. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { HistoryEntry } from '../domain/history-entries.js';
import { batchWriteAll, putRequest } from './batch.js';
import { ddb, tableName } from './client.js';
import { withoutKeys } from './table.js';
import { historyKey } from './table-keys.js';

export interface SubscriptionHistoryEntry {
  appId: string;
  subscriptionId: string;
  entry: HistoryEntry;
}

/**
 * Puts the entries (no TTL: history is kept for the subscription's life). An entry's key is its
 * write's version, so a stream record applied again puts the same item; a key given twice is put
 * once, as BatchWriteItem refuses a repeated key.
 */
export async function putHistoryEntries(entries: readonly SubscriptionHistoryEntry[]): Promise<void> {
  const items = new Map<string, Record<string, unknown>>();
  for (const { appId, subscriptionId, entry } of entries) {
    const key = historyKey(appId, subscriptionId, entry.version);
    items.set(`${key.pk}\n${key.sk}`, { ...key, type: 'history', ...entry });
  }
  await batchWriteAll([...items.values()].map(putRequest));
}

export interface HistoryPage {
  entries: HistoryEntry[];
  /** Version of the page's last entry when older ones follow, else null. */
  lastVersion: number | null;
}

/** The subscription's history, newest first, from just before version `before`. */
export async function queryHistory(
  appId: string,
  subscriptionId: string,
  options: { limit: number; before?: number | undefined },
): Promise<HistoryPage> {
  const start = options.before === undefined ? undefined : historyKey(appId, subscriptionId, options.before);
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      // The partition holds history entries only: its sort keys are the versions.
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': historyKey(appId, subscriptionId, 0).pk },
      ExclusiveStartKey: start,
      ScanIndexForward: false,
      // One more than the page: whether an older page follows is then known without reading it.
      Limit: options.limit + 1,
    }),
  );
  const found = Items.map((item) => withoutKeys<HistoryEntry>(item));
  const entries = found.slice(0, options.limit);
  return { entries, lastVersion: found.length > options.limit ? entries.at(-1)!.version : null };
}
