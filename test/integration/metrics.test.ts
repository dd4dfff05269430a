/**
 * The metrics endpoint's figures from a week of changes written through the real write path
 * (each at its own day), counted by the real aggregator from the table's stream: exact figures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { putExchangeRates } from '../../lib/data/revenue-reads.js';
import type { SubscriptionRecord } from '../../lib/data/subscription-items.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { saveSubscriptionState } from '../../lib/data/subscription-writes.js';
import { applyCommand, type SubscriptionCommand } from '../../lib/domain/subscription-state.js';
import { subscriptionMetrics } from '../../lib/services/metrics.js';
import { createSubscription } from '../../lib/services/subscriptions.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp } from '../support/fixtures.js';
import { seedSubscription, TEST_CAUSE } from '../support/subscriptions.js';

const at = (day: string, time = '10:00:00') => `${day}T${time}.000Z`;

/** Applies a command to the subscription as of `when`, through the write path the services use. */
async function change(current: SubscriptionRecord, command: SubscriptionCommand, when: string) {
  const now = new Date(when);
  const { next, statusChange } = applyCommand(current, command, now);
  const outcome = await saveSubscriptionState(current, next, now, { statusChange, cause: TEST_CAUSE });
  if (!outcome.saved) throw new Error(`not saved: ${outcome.reason}`);
  return outcome.record;
}

/** A subscription bought (or its trial started) on `day`. */
const bought = (appId: string, day: string, fields: Partial<SubscriptionRecord> = {}) =>
  seedSubscription(appId, { started_at: at(day), created_at: at(day), updated_at: at(day), ...fields });

const trialOn = (appId: string, day: string, trialEnds: string) =>
  bought(appId, day, { trial_period: true, trial_expires_at: trialEnds, expires_at: trialEnds });

const ZERO_FLOWS = {
  new_subscriptions: 0,
  churned: 0,
  trial_conversions: 0,
  trials_ended: 0,
  trial_conversion_rate: null,
  refunds: 0,
};

describe('subscription metrics from the write-time counters', () => {
  let appId: string;
  const now = new Date(at('2026-03-06', '12:00:00'));

  beforeAll(async () => {
    ({ appId } = await createTestApp());
    // Mon 03-02: a monthly and a yearly bought, two trials start, a sandbox purchase (never counted).
    const monthly = await bought(appId, '2026-03-02');
    const yearly = await bought(appId, '2026-03-02', {
      product_id: 'pro_yearly',
      price: 59.99,
      billing_period: 'yearly',
      expires_at: at('2026-03-06', '00:00:00'),
    });
    const firstTrial = await trialOn(appId, '2026-03-02', at('2026-03-03', '00:00:00'));
    const secondTrial = await trialOn(appId, '2026-03-02', at('2026-03-04', '00:00:00'));
    await bought(appId, '2026-03-02', { environment: 'sandbox', price: 99.99 });
    // Tue 03-03: the first trial converts; a subscription in euros is bought.
    await change(firstTrial, { type: 'renew', expires_at: at('2026-04-03', '00:00:00') }, at('2026-03-03'));
    await bought(appId, '2026-03-03', { price: 8.99, currency: 'EUR' });
    // Wed 03-04: the second trial ends unconverted; the monthly one is cancelled with a refund.
    await change(secondTrial, { type: 'time_passes' }, at('2026-03-04'));
    await change(monthly, { type: 'cancel', immediate: true, refund: true }, at('2026-03-04'));
    // Fri 03-06 (after the period): the yearly one expires.
    await change(yearly, { type: 'time_passes' }, at('2026-03-06'));
    // Euro rates for Tuesday and Wednesday only.
    await putExchangeRates([
      { date: '2026-03-03', from: 'EUR', to: 'USD', rate: 1.1 },
      { date: '2026-03-04', from: 'EUR', to: 'USD', rate: 1.1 },
    ]);
    await settleCounters();
  });

  it('per day: levels at the end of each day, the day own flows, euros at the day rate or listed unconverted', async () => {
    const metrics = await subscriptionMetrics(
      appId,
      { start_date: '2026-03-02', end_date: '2026-03-05', group_by: 'day' },
      now,
    );
    expect(metrics).toEqual({
      currency: 'USD',
      period: { start: '2026-03-02', end: '2026-03-05' },
      breakdown: [
        {
          date: '2026-03-02',
          // 9.99 + 59.99 / 12
          mrr: 14.99,
          active_subscriptions: 2,
          active_trials: 2,
          ...ZERO_FLOWS,
          new_subscriptions: 2,
          unconverted_mrr: [],
        },
        {
          date: '2026-03-03',
          // 9.99 + 4.999167 + 9.99 + 8.99 EUR x 1.1
          mrr: 34.87,
          active_subscriptions: 4,
          active_trials: 1,
          ...ZERO_FLOWS,
          new_subscriptions: 2,
          trial_conversions: 1,
          trials_ended: 1,
          trial_conversion_rate: 100,
          unconverted_mrr: [],
        },
        {
          date: '2026-03-04',
          mrr: 24.88,
          active_subscriptions: 3,
          active_trials: 0,
          ...ZERO_FLOWS,
          churned: 1,
          trials_ended: 1,
          trial_conversion_rate: 0,
          refunds: 1,
          unconverted_mrr: [],
        },
        {
          date: '2026-03-05',
          // No euro rate for Thursday: the euro MRR is listed, not dropped.
          mrr: 14.99,
          active_subscriptions: 3,
          active_trials: 0,
          ...ZERO_FLOWS,
          unconverted_mrr: [{ currency: 'EUR', amount: 8.99 }],
        },
      ],
      totals: {
        new_subscriptions: 4,
        churned: 1,
        trial_conversions: 1,
        trials_ended: 2,
        trial_conversion_rate: 50,
        refunds: 1,
      },
    });
  });

  it('per week: the levels at the end of the bucket and the flows of all its days', async () => {
    const metrics = await subscriptionMetrics(
      appId,
      { start_date: '2026-03-02', end_date: '2026-03-04', group_by: 'week' },
      now,
    );
    expect(metrics.breakdown).toEqual([
      {
        date: '2026-03-02',
        mrr: 24.88,
        active_subscriptions: 3,
        active_trials: 0,
        new_subscriptions: 4,
        churned: 1,
        trial_conversions: 1,
        trials_ended: 2,
        trial_conversion_rate: 50,
        refunds: 1,
        unconverted_mrr: [],
      },
    ]);
  });

  it('a bucket that is not over shows the levels now: the yearly subscription has churned since', async () => {
    const metrics = await subscriptionMetrics(
      appId,
      { start_date: '2026-03-06', end_date: '2026-03-08', group_by: 'month' },
      now,
    );
    // Today has no euro rate: euros unconverted; USD: the converted trial only.
    expect(metrics.breakdown).toEqual([
      {
        date: '2026-03-06',
        mrr: 9.99,
        active_subscriptions: 2,
        active_trials: 0,
        ...ZERO_FLOWS,
        churned: 1,
        unconverted_mrr: [{ currency: 'EUR', amount: 8.99 }],
      },
    ]);
  });

  it('a period before anything happened: zero levels, no flows', async () => {
    const metrics = await subscriptionMetrics(
      appId,
      { start_date: '2026-02-27', end_date: '2026-03-01', group_by: 'day' },
      now,
    );
    expect(
      metrics.breakdown.map(({ date, mrr, active_subscriptions, active_trials }) => [
        date,
        mrr,
        active_subscriptions,
        active_trials,
      ]),
    ).toEqual([
      ['2026-02-27', 0, 0, 0],
      ['2026-02-28', 0, 0, 0],
      ['2026-03-01', 0, 0, 0],
    ]);
    expect(metrics.totals).toEqual({ ...ZERO_FLOWS });
  });

  it("a subscription keeps its product's billing period: MRR normalises its price without the catalogue", async () => {
    const created = await createSubscription(appId, {
      user_id: 'period-user',
      product_id: 'pro_yearly',
      platform: 'ios',
      auto_renew: true,
      trial_period: false,
    });
    const record = await getSubscriptionRecord(appId, created.subscription.id);
    expect(record?.billing_period).toBe('yearly');
  });
});
