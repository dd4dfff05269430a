/**
 * A subscription's history against DynamoDB Local: the aggregator writes one entry per change of
 * the state item, the same entry however often a stream record is applied, in the history's own
 * partition without TTL; the service reads it newest first, by cursor, 404 for an unknown id.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the only reader of its stream is this file, so a write's entry appears when it settles, not before.
  process.env.TABLE_NAME = `history-${process.pid}`;
});

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { putHistoryEntries } from '../../lib/data/history-items.js';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import { historyKey } from '../../lib/data/table-keys.js';
import type { ChangeCause } from '../../lib/domain/history-entries.js';
import { aggregateRecords, historyOf } from '../../lib/events/aggregator.js';
import { getSubscriptionHistory } from '../../lib/services/subscription-history.js';
import {
  cancelSubscription,
  createSubscription,
  pauseSubscription,
  renewSubscription,
  resumeSubscription,
  updateSubscription,
} from '../../lib/services/subscriptions.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, PREMIUM_MONTHLY } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { buildSubscription, seedSubscription } from '../support/subscriptions.js';

beforeAll(() => createOwnTable());

const partition = async (pk: string) =>
  (
    await ddb.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** Every page of a subscription's history, `limit` entries at a time. */
async function allPages(appId: string, subscriptionId: string, limit: number) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await getSubscriptionHistory(appId, subscriptionId, { limit, cursor });
    pages.push(page);
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('subscription history (DynamoDB Local, own table)', () => {
  it('each API change is one entry with its cause and action, read newest first page by page', async () => {
    const { appId } = await createTestApp([PREMIUM_MONTHLY]);
    const { subscription } = await createSubscription(appId, {
      user_id: 'history-user',
      product_id: PREMIUM_MONTHLY.id,
      platform: 'ios',
      auto_renew: true,
      trial_period: false,
    });
    const id = subscription.id;
    await updateSubscription(appId, id, { status: 'active' });
    await renewSubscription(appId, id, {});
    await pauseSubscription(appId, id, { pause_duration: 3, unit: 'days' });
    await resumeSubscription(appId, id);
    await updateSubscription(appId, id, { auto_renew: false });
    await cancelSubscription(appId, id, { immediate: true, refund: false });
    await settleCounters();

    const pages = await allPages(appId, id, 3);
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 1]);
    expect(pages.map((page) => page.pagination.next_cursor === null)).toEqual([false, false, true]);
    const entries = pages.flatMap((page) => page.data);
    expect(entries.map((entry) => [entry.version, entry.cause, entry.action])).toEqual([
      [7, 'api', 'cancel'],
      [6, 'api', 'update'],
      [5, 'api', 'resume'],
      [4, 'api', 'pause'],
      [3, 'api', 'renew'],
      [2, 'api', 'update'],
      [1, 'api', 'create'],
    ]);
    const statuses = entries.flatMap((entry) => entry.changes.filter((change) => change.field === 'status'));
    expect(statuses.reverse().map(({ from, to }) => `${from}->${to}`)).toEqual([
      'null->pending_verification',
      'pending_verification->active',
      'active->paused',
      'paused->active',
      'active->cancelled',
    ]);
    expect(entries[1]!.changes).toEqual([{ field: 'auto_renew', from: true, to: false }]);
    // One page of everything reads the same entries; a page of exactly all of them says none follows.
    expect((await getSubscriptionHistory(appId, id, { limit: 100 })).data).toEqual(entries);
    const exact = await getSubscriptionHistory(appId, id, { limit: 7 });
    expect(exact.data).toEqual(entries);
    expect(exact.pagination.next_cursor).toBeNull();
  });

  it('a stream record applied again, alone or in another batch, writes the same entry and no other', async () => {
    const appId = `app_hist_${Math.random().toString(36).slice(2, 10)}`;
    const v1 = buildSubscription(appId, { version: 1 });
    const v2 = { ...v1, status: 'cancelled' as const, version: 2, updated_at: new Date().toISOString() };
    let sequence = 2_000_000_000_000_000_000_000n;
    const record = (before: SubscriptionRecord | undefined, after: SubscriptionRecord, cause: ChangeCause) => {
      sequence += 100n;
      return {
        eventName: before ? 'MODIFY' : 'INSERT',
        dynamodb: {
          Keys: marshall(keys.subscription(appId, v1.id)),
          ...(before && { OldImage: marshall(subscriptionItem(before), { removeUndefinedValues: true }) }),
          NewImage: marshall(subscriptionItem(after, null, null, cause), { removeUndefinedValues: true }),
          SequenceNumber: String(sequence),
        },
      } as unknown as DynamoDBRecord;
    };
    const created = record(undefined, v1, { by: 'api', action: 'create', version: 1 });
    const cancelled = record(v1, v2, { by: 'api', action: 'cancel', version: 2 });
    await aggregateRecords('shard-a', [created, cancelled]);
    const once = await partition(historyKey(appId, v1.id, 0).pk);
    // Again as Lambda retries: the whole batch, a batch cut elsewhere; an entry twice in one put.
    await aggregateRecords('shard-a', [created, cancelled]);
    await aggregateRecords('shard-a', [cancelled]);
    await putHistoryEntries([historyOf(cancelled)!, historyOf(cancelled)!]);
    const again = await partition(historyKey(appId, v1.id, 0).pk);
    expect(again).toEqual(once);
    expect(again.map((item) => [item.version, item.action])).toEqual([
      [1, 'create'],
      [2, 'cancel'],
    ]);
  });

  it('entries live in their own partition without TTL: the subscription partition holds its items only', async () => {
    const { appId } = await createTestApp([PREMIUM_MONTHLY]);
    const sub = await seedSubscription(appId);
    await cancelSubscription(appId, sub.id, { immediate: false, refund: false });
    await settleCounters();
    const history = await partition(historyKey(appId, sub.id, 0).pk);
    expect(history.map((item) => item.sk)).toEqual(['HIST#0000000001', 'HIST#0000000002']);
    for (const item of history) {
      expect(item).not.toHaveProperty('ttl');
      expect(item).not.toHaveProperty('user_id');
    }
    expect((await partition(keys.subscription(appId, sub.id).pk)).map((item) => item.sk).sort()).toEqual([
      'PAYMENT',
      'SUB',
    ]);
  });

  it('an unknown subscription, or one of another app, is SUBSCRIPTION_NOT_FOUND; one not yet settled is an empty page', async () => {
    const { appId } = await createTestApp([PREMIUM_MONTHLY]);
    const other = await createTestApp([PREMIUM_MONTHLY]);
    const sub = await seedSubscription(appId);
    // Its write is on the stream, not yet applied: the subscription exists, its history is still empty.
    expect(await getSubscriptionHistory(appId, sub.id, { limit: 20 })).toEqual({
      data: [],
      pagination: { limit: 20, next_cursor: null },
    });
    await settleCounters();
    expect((await getSubscriptionHistory(appId, sub.id, { limit: 20 })).data).toHaveLength(1);
    for (const [app, id] of [
      [other.appId, sub.id],
      [appId, 'sub_000000000000000000000000'],
    ] as const) {
      await expect(getSubscriptionHistory(app, id, { limit: 20 })).rejects.toMatchObject({
        code: 'SUBSCRIPTION_NOT_FOUND',
      });
    }
  });
});
