/**
 * Subscription metrics (pure): what one write of a subscription changes in the app's metrics, and
 * the figures of a bucket. The aggregator compares a subscription item's old and new image; the
 * metrics endpoint adds up the per-day changes it recorded. Definitions (docs/api.md#subscription-metrics):
 *
 * - A subscription counts only in real money: the store's sandbox is left out (countsAsRevenue).
 * - In trial: active, a trial, and its current period ends no later than the trial does.
 * - Paying: active and not in trial (a grace period or a cancelled renewal is still active).
 * - MRR: the price of every paying subscription normalised to a month (weekly x 52/12, quarterly
 *   / 3, semiannual / 6, yearly / 12), in micro-units of the subscription's currency.
 * - New: a subscription starts paying for the first time (bought without trial, or a trial
 *   converting); the same definition as the revenue endpoint's `new_subscriptions`.
 * - Churned: a paying subscription becomes expired or cancelled.
 * - Trial ended: a trial is over, converted or not; converted: it became paying.
 * - Refund: the store or an operator refunded the subscription's current period.
 */
import type { BillingPeriod } from '../schemas/product.js';
import { toMicros } from './revenue-figures.js';
import { countsAsRevenue, type SubscriptionEnvironment } from './store-sync.js';
import type { SubscriptionStatus } from './subscription-state.js';

/** What the metrics read of a subscription. */
export interface MetricsSubject {
  status: SubscriptionStatus;
  environment: SubscriptionEnvironment;
  price: number;
  currency: string;
  billing_period: BillingPeriod;
  trial_period: boolean;
  trial_expires_at: string | null;
  expires_at: string;
  refunded_at: string | null;
}

/** A price per period as micro-units per month. */
export const monthlyMicros = (price: number, period: BillingPeriod): number => {
  const perMonth: Record<BillingPeriod, number> = {
    weekly: 52 / 12,
    monthly: 1,
    quarterly: 1 / 3,
    semiannual: 1 / 6,
    yearly: 1 / 12,
  };
  return Math.round(toMicros(price) * perMonth[period]);
};

export const inTrial = (s: MetricsSubject): boolean =>
  s.status === 'active' && s.trial_period && s.trial_expires_at !== null && s.expires_at <= s.trial_expires_at;

export const isPaying = (s: MetricsSubject): boolean => s.status === 'active' && !inTrial(s);

/** What one change adds to a day's metrics in one currency. Levels (mrr, active, trials) as net changes. */
export interface MetricsDelta {
  mrr_micros: number;
  active: number;
  trials: number;
  new_subscriptions: number;
  churned: number;
  trials_ended: number;
  trial_conversions: number;
  refunds: number;
}

export const EMPTY_METRICS_DELTA: MetricsDelta = {
  mrr_micros: 0,
  active: 0,
  trials: 0,
  new_subscriptions: 0,
  churned: 0,
  trials_ended: 0,
  trial_conversions: 0,
  refunds: 0,
};

const LEVELS = ['mrr_micros', 'active', 'trials'] as const;

/** A subscription's part in the levels; none for one that does not count or does not exist. */
function levelsOf(s: MetricsSubject | undefined): Pick<MetricsDelta, (typeof LEVELS)[number]> {
  if (!s || !countsAsRevenue(s.environment)) return { mrr_micros: 0, active: 0, trials: 0 };
  const paying = isPaying(s);
  return {
    mrr_micros: paying ? monthlyMicros(s.price, s.billing_period) : 0,
    active: paying ? 1 : 0,
    trials: inTrial(s) ? 1 : 0,
  };
}

/**
 * What a write that turns `before` into `after` changes, per currency (a store may change the
 * currency a subscription is paid in). `before` is undefined for a new item, `after` for a
 * removed one (a removal takes the subscription out of the levels and counts no event).
 */
export function metricsChange(
  before: MetricsSubject | undefined,
  after: MetricsSubject | undefined,
): { currency: string; delta: MetricsDelta }[] {
  const deltas = new Map<string, MetricsDelta>();
  const add = (currency: string, part: Partial<MetricsDelta>) => {
    const delta = deltas.get(currency) ?? { ...EMPTY_METRICS_DELTA };
    for (const [name, amount] of Object.entries(part) as [keyof MetricsDelta, number][]) delta[name] += amount;
    deltas.set(currency, delta);
  };
  const was = levelsOf(before);
  const is = levelsOf(after);
  if (before) add(before.currency, { mrr_micros: -was.mrr_micros, active: -was.active, trials: -was.trials });
  if (after) add(after.currency, is);

  if (after && countsAsRevenue(after.environment)) {
    const wasTrial = before !== undefined && inTrial(before);
    const wasPaying = before !== undefined && isPaying(before);
    const nowPaying = isPaying(after);
    // A subscription that was never paying or in trial: recorded, not verified yet.
    const fresh = before === undefined || before.status === 'pending_verification';
    const events: Partial<MetricsDelta> = {};
    if (nowPaying && (fresh || wasTrial)) events.new_subscriptions = 1;
    if (wasTrial && !inTrial(after)) {
      events.trials_ended = 1;
      if (nowPaying) events.trial_conversions = 1;
    }
    if (wasPaying && (after.status === 'expired' || after.status === 'cancelled')) events.churned = 1;
    if (after.refunded_at !== null && after.refunded_at !== (before?.refunded_at ?? null)) events.refunds = 1;
    add(after.currency, events);
  }
  return [...deltas]
    .filter(([, delta]) => Object.values(delta).some((amount) => amount !== 0))
    .map(([currency, delta]) => ({ currency, delta }));
}

/** Trial conversions as a percentage of the trials that ended, two decimals; null when none ended. */
export const conversionRate = (conversions: number, ended: number): number | null =>
  ended === 0 ? null : Math.round((conversions / ended) * 10_000) / 100;
