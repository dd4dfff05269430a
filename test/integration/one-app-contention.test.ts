/**
 * One app's subscriptions changing at the same moment on a DynamoDB that conflicts like AWS's
 * (test/support/dynamodb-conflict-proxy.ts, 15 ms transaction time). No request writes an item
 * shared by the app (the list counts and revenue counters follow from the stream), so concurrent
 * changes of different subscriptions never meet; transactions that do meet on one item are sent
 * again after a short random pause instead of failing.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { settleCounters } from '../support/counters.js';
import { startConflictProxy } from '../support/dynamodb-conflict-proxy.js';

// lib/ reads DYNAMODB_ENDPOINT once, when first imported: point it at the proxy before importing it.
const proxy = await startConflictProxy({ target: inject('dynamodbEndpoint') });
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
const { createSubscription, updateSubscription } = await import('../../lib/services/subscriptions.js');
const { countMatching } = await import('../../lib/data/subscription-queries.js');
const { writeTogether } = await import('../../lib/data/subscription-writes.js');
const { ddb, tableName } = await import('../../lib/data/client.js');
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { createTestApp } = await import('../support/fixtures.js');
const { seedSubscription } = await import('../support/subscriptions.js');

afterAll(() => proxy.close());

const CONCURRENT = 5;
const all = <T>(work: (i: number) => Promise<T>) => Promise.all(Array.from({ length: CONCURRENT }, (_, i) => work(i)));

/** No transaction of the run touched an item every change of the app would share. */
function expectNoSharedItems(appId: string) {
  const transactions = proxy.operations().filter((o) => o.operation === 'TransactWriteItems');
  expect(transactions.length).toBeGreaterThanOrEqual(CONCURRENT);
  const touched = transactions.flatMap((o) => o.items.map((i) => String(i.key.pk)));
  expect(touched.filter((pk) => pk === `COUNT#${appId}` || pk.startsWith(`REV#${appId}#`))).toEqual([]);
  expect(proxy.operations().filter((o) => o.outcome === 'conflict')).toEqual([]);
}

describe(`${CONCURRENT} subscriptions of one app created at the same moment`, () => {
  it('all commit at once, and the list counts them all once the aggregator has run', async () => {
    const { appId } = await createTestApp();
    proxy.reset();

    await all((i) =>
      createSubscription(appId, {
        user_id: `user-${i}`,
        product_id: 'premium_monthly',
        platform: 'ios',
        auto_renew: true,
        trial_period: false,
      }),
    );

    expectNoSharedItems(appId);
    await settleCounters();
    expect(await countMatching(appId, {})).toBe(CONCURRENT);
    expect(await countMatching(appId, { product_id: 'premium_monthly', platform: 'ios' })).toBe(CONCURRENT);
  });
});

describe(`${CONCURRENT} different subscriptions of one app cancelled at the same moment`, () => {
  it('all commit, and the counts move exactly', async () => {
    const { appId } = await createTestApp();
    const subscriptions: { id: string }[] = [];
    for (let i = 0; i < CONCURRENT; i++) subscriptions.push(await seedSubscription(appId, { user_id: `user-${i}` }));
    proxy.reset();

    await all((i) => updateSubscription(appId, subscriptions[i]!.id, { status: 'cancelled' }));

    expectNoSharedItems(appId);
    await settleCounters();
    expect(await countMatching(appId, { status: 'cancelled' })).toBe(CONCURRENT);
    expect(await countMatching(appId, { status: 'active' })).toBe(0);
  });
});

describe('transactions that meet on one item', () => {
  it('are sent again after a random pause: every one commits, none is lost', async () => {
    const key = { pk: `CONTENDED#${Date.now()}`, sk: 'ITEM' };
    const add = {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    };
    // DynamoDB Local's first transaction on a loaded machine takes half a second: not the subject.
    await writeTogether([add]);
    const contenders = CONCURRENT;
    proxy.reset();

    const refused = await Promise.all(Array.from({ length: contenders }, () => writeTogether([add])));

    expect(refused).toEqual(Array(contenders).fill(undefined));
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    expect(Item?.n).toBe(contenders + 1);
    const outcomes = proxy.operations().map((o) => o.outcome);
    expect(outcomes.filter((o) => o === 'written')).toHaveLength(contenders);
    // With a 15 ms hold, transactions sent at the same moment cannot all pass at the first attempt.
    expect(outcomes.filter((o) => o === 'conflict').length).toBeGreaterThan(0);
  });
});
