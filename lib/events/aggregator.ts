/**
 * The stream aggregator: turns every write of a subscription item into the amounts it adds to the
 * app's list counts (its facet values before and after), revenue counters (the revenue change
 * the write carries) and metrics counters (its metrics state before and after), and applies a
 * batch of them with one write per counter item (data/aggregates.ts). Counts, revenue and
 * metrics trail the subscription writes by the stream's delay.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { type AppliedBatch, applyStreamChanges, type Contribution } from '../data/aggregates.js';
import { putHistoryEntries, type SubscriptionHistoryEntry } from '../data/history-items.js';
import { countMoves, LIST_COUNT_ITEM_TYPE } from '../data/list-counters.js';
import { metricsContributions } from '../data/metrics-counters.js';
import { REVENUE_CHANGE_ATTRIBUTE, type RevenueChange, revenueCounterUpdate } from '../data/revenue-counters.js';
import {
  CHANGE_CAUSE_ATTRIBUTE,
  facetValuesOf,
  type SubscriptionRecord,
  toRecord,
} from '../data/subscription-items.js';
import { SUBSCRIPTION_SK } from '../data/table-keys.js';
import { type ChangeCause, historyEntryOf } from '../domain/history-entries.js';
import { metricsChange } from '../domain/metrics.js';

/** Which stream records reach the aggregator: writes of subscription state items. The CDK event source filter and the local stream poller both use it. */
export const AGGREGATED_STREAM_FILTER = { dynamodb: { Keys: { sk: { S: [SUBSCRIPTION_SK] } } } } as const;

export const isSubscriptionRecord = (record: DynamoDBRecord): boolean =>
  record.dynamodb?.Keys?.sk?.S === SUBSCRIPTION_SK && record.dynamodb.Keys.pk?.S?.startsWith('SUB#') === true;

type StoredSubscription = SubscriptionRecord & {
  [REVENUE_CHANGE_ATTRIBUTE]?: RevenueChange;
  [CHANGE_CAUSE_ATTRIBUTE]?: ChangeCause;
};

const imageOf = (image: Record<string, unknown> | undefined): StoredSubscription | undefined =>
  image ? (unmarshall(image as Record<string, AttributeValue>) as StoredSubscription) : undefined;

/** What one write of a subscription item adds to the app's counters. */
export function contributionsOf(record: DynamoDBRecord): Contribution[] {
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  const appId = (after ?? before)?.app_id;
  if (!appId) return [];
  const contributions: Contribution[] = countMoves(
    appId,
    before && facetValuesOf(before),
    after && facetValuesOf(after),
  ).map((move) => ({ key: move.key, set: { type: LIST_COUNT_ITEM_TYPE }, add: { [move.attribute]: move.delta } }));
  const revenue = after?.[REVENUE_CHANGE_ATTRIBUTE];
  // Only the write that set it carries it: a later write of the item has another version.
  if (revenue && revenue.version === after.version && before?.version !== after.version)
    contributions.push(revenueCounterUpdate(after, revenue));
  const day = after?.updated_at.slice(0, 10) ?? removedOn(record);
  for (const { currency, delta } of metricsChange(before && recordOf(before), after && recordOf(after)))
    contributions.push(...metricsContributions(appId, day, currency, delta));
  return contributions;
}

const recordOf = (image: StoredSubscription): SubscriptionRecord =>
  toRecord(image as unknown as Record<string, unknown>);

/** The day a subscription item was removed: when the stream saw it. */
const removedOn = (record: DynamoDBRecord): string => {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return (seconds === undefined ? new Date() : new Date(seconds * 1000)).toISOString().slice(0, 10);
};

/** The history entry one write of a subscription item adds (lib/domain/history-entries.ts). */
export function historyOf(record: DynamoDBRecord): SubscriptionHistoryEntry | null {
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  if (!after) return null;
  const entry = historyEntryOf(before && recordOf(before), recordOf(after), after[CHANGE_CAUSE_ATTRIBUTE]);
  return entry && { appId: after.app_id, subscriptionId: after.id, entry };
}

/**
 * Applies one shard's batch of stream records (any record that is not a subscription's is
 * ignored): the counters, and an entry in each changed subscription's history.
 */
export async function aggregateRecords(shardId: string, records: readonly DynamoDBRecord[]): Promise<AppliedBatch> {
  const subscriptionRecords = records.filter(isSubscriptionRecord);
  await putHistoryEntries(subscriptionRecords.flatMap((record) => historyOf(record) ?? []));
  return applyStreamChanges(
    shardId,
    subscriptionRecords.map((record) => ({
      sequenceNumber: record.dynamodb!.SequenceNumber!,
      contributions: contributionsOf(record),
    })),
  );
}
