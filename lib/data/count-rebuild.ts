/**
 * Recounts the list counts from the subscriptions themselves, for when they cannot be trusted: an
 * upgrade from the version that kept them in each change's transaction (the stream aggregator then
 * starts from the stream's last 24 h, not from the start), or a stream batch that ended in the
 * aggregator's dead-letter queue. It sets every count of an app's count items to the recount and
 * keeps the aggregator's markers, so the aggregator goes on adding from where it is. A change the
 * aggregator counts while the recount runs may be counted twice or not at all: run it when the
 * aggregator has caught up and the app is quiet, and again if the app was not.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { countCells, LIST_COUNT_ITEM_TYPE } from './list-counters.js';
import { queryAll } from './query.js';
import { facetValuesOf } from './subscription-items.js';
import { scanSubscriptions } from './subscription-queries.js';
import { listCountsPartition } from './table-keys.js';
import { updateExpression } from './update-expression.js';

// Stryker disable next-line Regex: no attribute of a list-count item holds "count#" but at its start
const COUNT_ATTRIBUTE = /^count#/;

export interface RebuiltCounts {
  app_id: string;
  /** Subscriptions counted. */
  subscriptions: number;
  /** Count cells whose stored value was not the recount (now set to it). */
  corrected: number;
}

/** Counts of every app's subscriptions (or only `appId`'s), by count item and attribute. */
async function recount(appId: string | undefined) {
  const byApp = new Map<string, { subscriptions: number; items: Map<string, Map<string, number>> }>();
  for await (const page of scanSubscriptions(appId)) {
    for (const record of page) {
      const app = byApp.get(record.app_id) ?? { subscriptions: 0, items: new Map() };
      app.subscriptions += 1;
      for (const { key, attribute } of countCells(record.app_id, facetValuesOf(record))) {
        const counts = app.items.get(key.sk) ?? new Map<string, number>();
        counts.set(attribute, (counts.get(attribute) ?? 0) + 1);
        app.items.set(key.sk, counts);
      }
      byApp.set(record.app_id, app);
    }
  }
  return byApp;
}

async function storedCounts(appId: string): Promise<Map<string, Record<string, unknown>>> {
  const items = await queryAll({
    ConsistentRead: true,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': listCountsPartition(appId) },
  });
  return new Map(items.map((item) => [String(item.sk), item]));
}

/**
 * Sets the list counts of `appId` (of every app with subscriptions, without it) to a recount of
 * the stored subscriptions; `onApp` hears of each app as it is done.
 */
export async function rebuildListCounts(
  appId?: string,
  onApp: (rebuilt: RebuiltCounts) => void = () => undefined,
): Promise<RebuiltCounts[]> {
  const counted = await recount(appId);
  if (appId && !counted.has(appId)) counted.set(appId, { subscriptions: 0, items: new Map() });
  const rebuilt: RebuiltCounts[] = [];
  for (const [app, { subscriptions, items }] of counted) {
    const stored = await storedCounts(app);
    let corrected = 0;
    for (const sk of new Set([...items.keys(), ...stored.keys()])) {
      const want = items.get(sk) ?? new Map<string, number>();
      const have = stored.get(sk) ?? {};
      const names = new Set([...want.keys(), ...Object.keys(have).filter((name) => COUNT_ATTRIBUTE.test(name))]);
      const set: Record<string, number> = {};
      for (const name of names) {
        const value = want.get(name) ?? 0;
        if (Number(have[name] ?? 0) !== value) set[name] = value;
      }
      if (Object.keys(set).length === 0) continue;
      corrected += Object.keys(set).length;
      await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: listCountsPartition(app), sk },
          ...updateExpression({ set: { type: LIST_COUNT_ITEM_TYPE, ...set } }),
        }),
      );
    }
    const result = { app_id: app, subscriptions, corrected };
    onApp(result);
    rebuilt.push(result);
  }
  return rebuilt;
}
