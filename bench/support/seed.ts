/** Seeds an app with many subscriptions through bulk writes (DynamoDB Local takes a few hundred writes/s). */

import { newSubscriptionId } from '../../lib/core/ids.js';
import { RECORD_DEFAULTS } from '../../lib/data/subscription-items.js';
import { bulkInsertSubscriptions } from '../../lib/data/subscription-writes.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';
import { settleCounters } from '../../test/support/counters.js';
import { createTestApp, type TestApp } from '../../test/support/fixtures.js';

const STATUSES = ['active', 'active', 'active', 'expired', 'cancelled'] as const;

/**
 * An app as the tests create it (test store, the test products) with `size` subscriptions whose
 * creation is spread evenly over the `spreadDays` days up to now.
 */
export async function seedApp(size: number, spreadDays = 90): Promise<TestApp> {
  const app = await createTestApp();
  const end = Date.now();
  const step = (spreadDays * 86_400_000) / size;
  const entries = Array.from({ length: size }, (_, i) => {
    const at = new Date(end - (size - i) * step).toISOString();
    return {
      record: {
        app_id: app.appId,
        id: newSubscriptionId(),
        user_id: `user-${i % 997}`,
        product_id: i % 4 === 0 ? 'pro_yearly' : 'premium_monthly',
        platform: (['ios', 'android', 'web'] as const)[i % 3]!,
        status: STATUSES[i % STATUSES.length]!,
        price: 9.99,
        currency: 'USD',
        started_at: at,
        expires_at: new Date(end + 30 * 86_400_000).toISOString(),
        auto_renew: true,
        trial_period: false,
        trial_expires_at: null,
        ...RECORD_DEFAULTS,
        ...INITIAL_LIFECYCLE,
        created_at: at,
        updated_at: at,
        version: 1,
      },
      payment: { transaction_id: null, receipt_data: null, payment_method: 'app_store', last_payment: null },
    };
  });
  const started = Date.now();
  await bulkInsertSubscriptions(entries);
  // What the aggregator does from the stream in a deployment: the list counts and revenue counters.
  await settleCounters();
  console.log(`seeded ${size} subscriptions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return app;
}
