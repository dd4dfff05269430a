/**
 * An app with a business's last 90 days, made the way an app server makes it: purchases verified,
 * trials that convert or are cancelled, monthly renewals verified, cancellations and a few refunds,
 * each sent to the API at its own moment in the past (the clock is moved, the code is the real
 * one), then the stream aggregated. The console's screenshots are taken of it. Deterministic: the
 * same seed gives the same history, relative to today.
 */
import { getApp } from '../../lib/data/apps.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import type { Product } from '../../lib/schemas/product.js';
import { mintTestReceipt } from '../../lib/stores/test-store.js';
import { atTime } from './clock.js';
import { settleCounters } from './counters.js';
import { createTestApp, type TestApp } from './fixtures.js';
import type { useGateway } from './http.js';

export const BUSINESS_MONTHLY: Product = {
  id: 'premium_monthly',
  name: 'Premium',
  description: 'Every feature, billed monthly',
  price: 9.99,
  currency: 'USD',
  billing_period: 'monthly',
  trial_period_days: 7,
  features: ['sync', 'export'],
  platforms: ['ios', 'android'],
  active: true,
};

export const BUSINESS_YEARLY: Product = {
  ...BUSINESS_MONTHLY,
  id: 'premium_yearly',
  name: 'Premium (yearly)',
  description: 'Every feature, billed yearly',
  price: 59.99,
  billing_period: 'yearly',
  trial_period_days: 0,
};

const DAY = 86_400_000;
const HISTORY_DAYS = 90;

/** A small linear congruential generator: the same history on every run. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Customer {
  user: string;
  platform: 'ios' | 'android';
  product: Product;
  originalTransaction: string;
  subscriptionId: string;
}

type Step = { at: number; run: () => Promise<void> };

export interface BusinessHistory {
  app: TestApp;
  subscriptions: number;
}

/** Seeds a new app with 90 days of history up to now. `request` is the test's gateway client. */
export async function seedBusinessHistory(
  request: ReturnType<typeof useGateway>['request'],
  seed = 38,
): Promise<BusinessHistory> {
  const app = await createTestApp([BUSINESS_MONTHLY, BUSINESS_YEARLY]);
  const privateKeyPem = (await getApp(app.appId))!.test_store_private_key!;
  const random = randomFrom(seed);
  const now = Date.now();
  const start = now - HISTORY_DAYS * DAY;
  const steps: Step[] = [];
  let subscriptions = 0;

  const verify = async (
    customer: Omit<Customer, 'originalTransaction' | 'subscriptionId'>,
    options: {
      expiresInDays: number;
      trial?: boolean;
      renews?: string;
    },
  ) => {
    const minted = await mintTestReceipt({
      appId: app.appId,
      privateKeyPem,
      productId: customer.product.id,
      platform: customer.platform,
      price: customer.product.price,
      currency: customer.product.currency,
      expiresInSeconds: Math.round(options.expiresInDays * 86_400),
      trial: options.trial ?? false,
      originalTransactionId: options.renews,
    });
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: customer.platform, receipt_data: minted.receipt_data, user_id: customer.user },
    });
    if (res.status !== 200) throw new Error(`verify answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { transaction: minted.transaction_id, subscriptionId: res.body.data.subscription_id as string };
  };
  const cancel = async (customer: Customer, refund: boolean) => {
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/${customer.subscriptionId}/cancel`, {
      bearer: app.secretKey,
      body: { immediate: true, refund, reason: refund ? 'refund requested' : 'too expensive' },
    });
    if (res.status !== 200) throw new Error(`cancel answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  /** A monthly subscriber's next renewal `days` after `from`: renewed (most), or cancelled. */
  const renewals = (customer: Customer, from: number) => {
    for (let at = from + 30 * DAY; at < now; at += 30 * DAY) {
      const churns = random() < 0.12;
      steps.push({
        at,
        run: churns
          ? () => cancel(customer, false)
          : async () => {
              await verify(customer, { expiresInDays: 30, renews: customer.originalTransaction });
            },
      });
      if (churns) return;
    }
  };

  for (let day = 0; day < HISTORY_DAYS; day++) {
    // A business that grows: about one purchase a day at first, three by the end.
    const purchases = Math.floor(1 + (2 * day) / HISTORY_DAYS + random() * 1.5);
    for (let n = 0; n < purchases; n++) {
      const at = start + day * DAY + Math.floor(random() * DAY);
      const index = subscriptions++;
      const customer = {
        user: `user-${String(index + 1).padStart(4, '0')}`,
        platform: random() < 0.6 ? ('ios' as const) : ('android' as const),
        product: random() < 0.15 ? BUSINESS_YEARLY : BUSINESS_MONTHLY,
      };
      const trial = customer.product === BUSINESS_MONTHLY && random() < 0.35;
      const converts = random() < 0.65;
      const refunded = !trial && random() < 0.03;
      steps.push({
        at,
        run: async () => {
          const bought = await verify(customer, {
            expiresInDays: trial ? 7 : customer.product === BUSINESS_YEARLY ? 365 : 30,
            trial,
          });
          const known: Customer = {
            ...customer,
            originalTransaction: bought.transaction,
            subscriptionId: bought.subscriptionId,
          };
          if (refunded) steps.push({ at: at + 2 * DAY, run: () => cancel(known, true) });
          else if (trial && converts)
            steps.push({
              at: at + 7 * DAY,
              run: async () => {
                await verify(known, { expiresInDays: 30, renews: known.originalTransaction });
                renewals(known, at + 7 * DAY);
              },
            });
          else if (trial) steps.push({ at: at + 6 * DAY, run: () => cancel(known, false) });
          else if (customer.product === BUSINESS_MONTHLY) renewals(known, at);
        },
      });
    }
  }
  // In time order; a step may schedule later ones (a renewal after a purchase), which are kept in order too.
  while (steps.length > 0) {
    steps.sort((a, b) => a.at - b.at);
    const step = steps.shift()!;
    if (step.at >= now) continue;
    await atTime(step.at, step.run);
  }
  await settleCounters();
  return { app, subscriptions };
}
