/** Writes subscriptions directly (bypassing the API) in states the API cannot produce quickly, e.g. expiring now. */

import { newSubscriptionId } from '../../lib/core/ids.js';
import { RECORD_DEFAULTS, type SubscriptionRecord } from '../../lib/data/subscription-items.js';
import { insertSubscription } from '../../lib/data/subscription-writes.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';

/** A complete active subscription record, with these fields changed. */
export function buildSubscription(appId: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  const now = new Date().toISOString();
  return {
    app_id: appId,
    id: newSubscriptionId(),
    user_id: 'seeded-user',
    product_id: 'premium_monthly',
    platform: 'ios',
    status: 'active',
    price: 9.99,
    currency: 'USD',
    started_at: now,
    expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    auto_renew: true,
    trial_period: false,
    trial_expires_at: null,
    ...RECORD_DEFAULTS,
    ...INITIAL_LIFECYCLE,
    created_at: now,
    updated_at: now,
    version: 1,
    ...overrides,
  };
}

export async function seedSubscription(
  appId: string,
  overrides: Partial<SubscriptionRecord> = {},
): Promise<SubscriptionRecord> {
  const record = buildSubscription(appId, overrides);
  await insertSubscription(
    record,
    { transaction_id: null, receipt_data: null, payment_method: 'app_store', last_payment: null },
    { cause: TEST_CAUSE },
  );
  return record;
}

/** The cause a test's direct write of a subscription records (what the API's calls record). */
export const TEST_CAUSE = { by: 'api', action: 'create' } as const;
