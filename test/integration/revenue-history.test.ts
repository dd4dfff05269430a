import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { countMatching } from '../../lib/data/subscription-queries.js';
import { revenueStatistics } from '../../lib/services/revenue.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp } from '../support/fixtures.js';
import { seedSubscription } from '../support/subscriptions.js';

/** A day's counter as the write path leaves it (lib/data/subscriptions.ts revenueUpdate). */
async function putCounter(
  appId: string,
  day: string,
  counts: { amount_micros: number; new_subscriptions: number; net_active: number; refunds?: number },
) {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.revenue(appId, day, 'premium_monthly', 'USD'),
        type: 'revenue_counter',
        day,
        product_id: 'premium_monthly',
        currency: 'USD',
        renewals: 0,
        refunds: 0,
        ...counts,
      },
    }),
  );
}

describe('revenue of past buckets (counters of fixed days, injected now)', () => {
  let appId: string;
  beforeAll(async () => {
    ({ appId } = await createTestApp());
    // Two subscriptions active now.
    await seedSubscription(appId);
    await seedSubscription(appId);
    // Mar 1: two bought. Mar 2: one more. Mar 3: one refunded (active count down by one).
    await putCounter(appId, '2026-03-01', { amount_micros: 19_980_000, new_subscriptions: 2, net_active: 2 });
    await putCounter(appId, '2026-03-02', { amount_micros: 9_990_000, new_subscriptions: 1, net_active: 1 });
    await putCounter(appId, '2026-03-03', {
      amount_micros: -9_990_000,
      new_subscriptions: 0,
      net_active: -1,
      refunds: 1,
    });
  });

  it('a past bucket counts the subscriptions active at its end: changes of its own last day included, later ones not', async () => {
    await settleCounters();
    expect(await countMatching(appId, { status: 'active' })).toBe(2);
    const statistics = await revenueStatistics(
      appId,
      { start_date: '2026-03-01', end_date: '2026-03-04', group_by: 'day' },
      new Date('2026-03-05T12:00:00.000Z'),
    );
    // Active at the end of a day = 2 now - the net changes of the days after it.
    expect(statistics.breakdown).toEqual([
      { date: '2026-03-01', revenue: 19.98, subscriptions: 2, new_subscriptions: 2, renewals: 0 },
      { date: '2026-03-02', revenue: 9.99, subscriptions: 3, new_subscriptions: 1, renewals: 0 },
      { date: '2026-03-03', revenue: -9.99, subscriptions: 2, new_subscriptions: 0, renewals: 0 },
      { date: '2026-03-04', revenue: 0, subscriptions: 2, new_subscriptions: 0, renewals: 0 },
    ]);
    expect(statistics.total_revenue).toBe(19.98);
  });
});
