/**
 * The stream aggregator against DynamoDB Local: stream records as Lambda delivers them (built
 * from real subscription items), applied once each however often and in whatever batches they
 * come, and the local runtime keeping the counts within 2 s of the writes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the local runtime's pollers read the whole stream from its start.
  process.env.TABLE_NAME = `aggregator-${process.pid}`;
});

import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler } from '../../functions/events/aggregate-counters.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { revenueChange } from '../../lib/data/revenue-counters.js';
import { readRevenueCounters } from '../../lib/data/revenue-reads.js';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import { countMatching } from '../../lib/data/subscription-queries.js';
import { listCountCell, listCountsPartition } from '../../lib/data/table-keys.js';
import { aggregateRecords } from '../../lib/events/aggregator.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { buildSubscription } from '../support/subscriptions.js';

beforeAll(() => createOwnTable());

const DAY = '2026-03-01';
const PAID = { amount_micros: 9_990_000, new_subscriptions: 1, renewals: 0, refunds: 0, net_active: 1 };

let sequence = 1_000_000_000_000_000_000_000n;
/** A stream record of one write of a subscription item, as the event source mapping hands it over. */
function record(
  before: SubscriptionRecord | undefined,
  after: SubscriptionRecord | undefined,
  revenue?: ReturnType<typeof revenueChange>,
): DynamoDBRecord {
  const image = (r: SubscriptionRecord, withRevenue: boolean) =>
    marshall(subscriptionItem(r, withRevenue ? revenue : null), { removeUndefinedValues: true }) as never;
  const subject = (after ?? before)!;
  sequence += 100n;
  return {
    eventName: !before ? 'INSERT' : !after ? 'REMOVE' : 'MODIFY',
    dynamodb: {
      Keys: marshall(keys.subscription(subject.app_id, subject.id)) as never,
      ...(before ? { OldImage: image(before, false) } : {}),
      ...(after ? { NewImage: image(after, true) } : {}),
      SequenceNumber: String(sequence),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

const newApp = () => `app_agg_${Math.random().toString(36).slice(2, 10)}`;
const totals = async (appId: string) => ({
  all: await countMatching(appId, {}),
  active: await countMatching(appId, { status: 'active' }),
  cancelled: await countMatching(appId, { status: 'cancelled' }),
  activeIos: await countMatching(appId, { status: 'active', product_id: 'premium_monthly', platform: 'ios' }),
});
const revenueOf = async (appId: string) =>
  (await readRevenueCounters(appId, DAY, DAY)).map(({ amount_micros, new_subscriptions, net_active }) => ({
    amount_micros,
    new_subscriptions,
    net_active,
  }));

/** Three subscriptions created (one paid), then one of them cancelled: the records of those writes. */
function story(appId: string) {
  const [a, b, c] = [0, 1, 2].map((i) => buildSubscription(appId, { user_id: `u${i}`, version: 1 }));
  const cancelled = { ...a!, status: 'cancelled' as const, version: 2 };
  return [
    record(undefined, a, revenueChange(1, DAY, PAID)),
    record(undefined, b),
    record(undefined, c),
    record(a, cancelled),
  ];
}
const AFTER_STORY = { all: 3, active: 2, cancelled: 1, activeIos: 2 };
const PAID_ONCE = [{ amount_micros: 9_990_000, new_subscriptions: 1, net_active: 1 }];

describe('the aggregator applies each stream record once', () => {
  it('moves the counts of every filter and adds the revenue a write carries', async () => {
    const appId = newApp();
    await aggregateRecords('shard-a', story(appId));
    expect(await totals(appId)).toEqual(AFTER_STORY);
    expect(await revenueOf(appId)).toEqual(PAID_ONCE);
  });

  it('a batch delivered again adds nothing', async () => {
    const appId = newApp();
    const records = story(appId);
    await aggregateRecords('shard-a', records);
    const again = await aggregateRecords('shard-a', records);
    expect(again.written).toBe(0);
    expect(await totals(appId)).toEqual(AFTER_STORY);
    expect(await revenueOf(appId)).toEqual(PAID_ONCE);
  });

  it('a retry cut elsewhere adds only the records not yet counted; an old record again adds nothing', async () => {
    const appId = newApp();
    const records = story(appId);
    await aggregateRecords('shard-a', records.slice(0, 2));
    await aggregateRecords('shard-a', records); // starts before what was counted, ends after it
    await aggregateRecords('shard-a', records.slice(1, 3)); // a duplicate out of order
    expect(await totals(appId)).toEqual(AFTER_STORY);
    expect(await revenueOf(appId)).toEqual(PAID_ONCE);
  });

  it('two readers of one shard at the same moment, batched differently, count each record once', async () => {
    const appId = newApp();
    const records = story(appId);
    // Each reads the shard in order from its start, as every stream reader does (the local
    // pollers, Lambda's event source, settleCounters): only the batches differ.
    await Promise.all([
      aggregateRecords('shard-a', records),
      aggregateRecords('shard-a', records.slice(0, 1)).then(() => aggregateRecords('shard-a', records.slice(1))),
      aggregateRecords('shard-a', records.slice(0, 2)).then(() => aggregateRecords('shard-a', records.slice(2))),
    ]);
    expect(await totals(appId)).toEqual(AFTER_STORY);
    expect(await revenueOf(appId)).toEqual(PAID_ONCE);
  });

  it('amounts that cancel out in a batch still mark their records counted: one of them again adds nothing', async () => {
    const appId = newApp();
    const sub = buildSubscription(appId);
    const [created, deleted] = [record(undefined, sub), record(sub, undefined)];
    await aggregateRecords('shard-a', [created!, deleted!]);
    await aggregateRecords('shard-a', [deleted!]);
    expect(await totals(appId)).toEqual({ all: 0, active: 0, cancelled: 0, activeIos: 0 });
  });

  it('records of different shards count independently', async () => {
    const appId = newApp();
    const [first, ...rest] = story(appId);
    await aggregateRecords('shard-b', rest);
    await aggregateRecords('shard-a', [first!]);
    expect(await totals(appId)).toEqual(AFTER_STORY);
  });

  it('a deleted subscription leaves every count it was in', async () => {
    const appId = newApp();
    const sub = buildSubscription(appId);
    await aggregateRecords('shard-a', [record(undefined, sub), record(sub, undefined)]);
    expect(await totals(appId)).toEqual({ all: 0, active: 0, cancelled: 0, activeIos: 0 });
  });

  it('revenue rides only on the write that set it: a later write of the same item does not repeat it', async () => {
    const appId = newApp();
    const sub = buildSubscription(appId, { version: 1 });
    const carried = revenueChange(1, DAY, PAID);
    // A write that leaves the version (and the old revenue change) as it was, as a field patch would.
    const touched = record(sub, { ...sub, auto_renew: false }, carried);
    await aggregateRecords('shard-a', [record(undefined, sub, carried), touched]);
    expect(await revenueOf(appId)).toEqual(PAID_ONCE);
  });

  it('counts subscription items only: a write of another item of the app changes no count', async () => {
    const appId = newApp();
    const sub = buildSubscription(appId);
    // Items that carry an app id, in the app's partition and in the subscription's own.
    const product = { ...keys.product(appId, sub.product_id), type: 'product', app_id: appId, id: sub.product_id };
    const payment = { ...subscriptionItem(sub, null), ...keys.subscriptionPayment(appId, sub.id), type: 'payment' };
    const others = [product, payment].map(
      (item): DynamoDBRecord => ({
        eventName: 'INSERT',
        dynamodb: {
          Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
          NewImage: marshall(item, { removeUndefinedValues: true }) as never,
          SequenceNumber: String((sequence += 100n)),
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      }),
    );
    expect(await aggregateRecords('shard-a', others)).toEqual({ written: 0, alreadyCounted: 0 });
    expect(await totals(appId)).toEqual({ all: 0, active: 0, cancelled: 0, activeIos: 0 });
  });

  it('every count item says what it is (type list_count)', async () => {
    const appId = newApp();
    await aggregateRecords('shard-a', story(appId));
    const { Items = [] } = await ddb.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': listCountsPartition(appId) },
        ConsistentRead: true,
      }),
    );
    expect(Items.length).toBeGreaterThan(0);
    expect(new Set(Items.map((item) => item.type))).toEqual(new Set(['list_count']));
  });

  it('forgets the markers of shards that ended longer ago than the stream keeps records', async () => {
    const appId = newApp();
    const cell = listCountCell(appId, {});
    const longAgo = `${'0'.repeat(39)}1@${Date.now() - 3 * 86_400_000}`;
    const recently = `${'0'.repeat(39)}1@${Date.now() - 3_600_000}`;
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...cell.key, 'applied#shard-old': longAgo, 'applied#shard-recent': recently },
      }),
    );
    await aggregateRecords('shard-a', [record(undefined, buildSubscription(appId))]);
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: cell.key, ConsistentRead: true }));
    expect(
      Object.keys(Item!)
        .filter((name) => name.startsWith('applied#'))
        .sort(),
    ).toEqual(['applied#shard-a', 'applied#shard-recent']);
    expect(Item![cell.attribute]).toBe(1);
  });

  it('the Lambda handler needs the shard id a tumbling window adds, and answers with the window state', async () => {
    const appId = newApp();
    const records = story(appId);
    await expect(handler({ Records: records })).rejects.toThrow(/tumbling window/);
    expect(await handler({ Records: records, shardId: 'shard-a' })).toEqual({ state: {} });
    expect(await totals(appId)).toEqual(AFTER_STORY);
  });
});

describe('the local runtime (npm start)', () => {
  let runtime: LocalRuntime;
  beforeAll(async () => {
    runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 3600 });
  });
  afterAll(() => runtime.stop());

  it('keeps the list total within 2 s of a creation, by its own stream poller', async () => {
    const app = await createTestApp();
    const headers = { authorization: `Bearer ${app.secretKey}`, 'content-type': 'application/json' };
    const list = async () => {
      const body = (await (await fetch(`${runtime.gateway.url}/v1/subscriptions`, { headers })).json()) as {
        pagination: { total: number };
      };
      return body.pagination.total;
    };
    expect(await list()).toBe(0);
    const created = await fetch(`${runtime.gateway.url}/v1/subscriptions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ user_id: 'lag', product_id: 'premium_monthly', platform: 'ios' }),
    });
    expect(created.status).toBe(201);
    const written = Date.now();
    let total = 0;
    while (total !== 1 && Date.now() - written < 2000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      total = await list();
    }
    console.info(`list total caught up ${Date.now() - written} ms after the creation`);
    expect(total).toBe(1);
  });
});
