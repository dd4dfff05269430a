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
const { mintReceipt } = await import('../support/receipts.js');
const { useGateway } = await import('../support/http.js');
const { revenueStatistics } = await import('../../lib/services/revenue.js');
const { SUBSCRIPTIONS_BASE } = await import('../../lib/routes.js');

const TODAY = new Date().toISOString().slice(0, 10);

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

describe('one app on the proxy, through the gateway: lifecycle and verification at once', () => {
  const { request } = useGateway();

  it('every request answers below 500, and the counts and revenue equal a recount afterwards', async () => {
    const app = await createTestApp();
    const bearer = app.secretKey;
    const base = SUBSCRIPTIONS_BASE;
    const seeded = [];
    for (let i = 0; i < 8; i++) seeded.push(await seedSubscription(app.appId, { user_id: `life-${i}` }));
    const paused = seeded[7]!;
    expect((await request('POST', `${base}/${paused.id}/pause`, { bearer, body: { pause_duration: 7 } })).status).toBe(
      200,
    );
    const receipts = await Promise.all(Array.from({ length: 4 }, () => mintReceipt(app)));
    await settleCounters();
    const revenueBefore = (await revenueStatistics(app.appId, { start_date: TODAY, end_date: TODAY, group_by: 'day' }))
      .total_revenue;
    proxy.reset();

    const responses = await Promise.all([
      ...receipts.map((receipt, i) =>
        request('POST', `${base}/verify`, { bearer, body: { platform: 'ios', user_id: `buyer-${i}`, ...receipt } }),
      ),
      ...seeded.slice(0, 2).map((s) => request('POST', `${base}/${s.id}/renew`, { bearer })),
      request('POST', `${base}/${seeded[2]!.id}/cancel`, { bearer, body: { immediate: true } }),
      request('POST', `${base}/${seeded[3]!.id}/cancel`, { bearer, body: {} }), // at the period's end
      ...seeded
        .slice(4, 6)
        .map((s) => request('POST', `${base}/${s.id}/pause`, { bearer, body: { pause_duration: 3 } })),
      request('PUT', `${base}/${seeded[6]!.id}`, { bearer, body: { status: 'expired' } }),
      request('POST', `${base}/${paused.id}/resume`, { bearer }),
      request('POST', base, { bearer, body: { user_id: 'created', product_id: 'premium_monthly', platform: 'ios' } }),
    ]);

    expect(responses.map((r) => r.status).filter((status) => status >= 500)).toEqual([]);
    expect(responses.map((r) => r.status).filter((status) => status >= 300)).toEqual([]);
    const listed = await request('GET', base, { bearer, query: { limit: 100 } });
    const byStatus = new Map<string, number>();
    for (const s of listed.body.data as { status: string }[]) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
    expect(listed.body.pagination.total).toBe(13); // 8 seeded, 4 verified, 1 created
    for (const [status, count] of byStatus) {
      const filtered = await request('GET', base, { bearer, query: { status } });
      expect(filtered.body.pagination.total, status).toBe(count);
    }
    // Active: 2 renewed, 1 cancelled at the period's end, 1 resumed, 4 verified; created: pending.
    expect(Object.fromEntries(byStatus)).toEqual({
      active: 8,
      cancelled: 1,
      paused: 2,
      expired: 1,
      pending_verification: 1,
    });
    // 4 purchases and 2 renewals at 9.99.
    const revenue = await revenueStatistics(app.appId, { start_date: TODAY, end_date: TODAY, group_by: 'day' });
    expect(Number((revenue.total_revenue - revenueBefore).toFixed(2))).toBe(59.94);
  });
});
