/** Typed fixtures: a fresh app (own keys, own data) per test file keeps tests independent on one table. */

import { newEventId } from '../../lib/core/ids.js';
import { createApp } from '../../lib/data/apps.js';
import { putProducts } from '../../lib/data/products.js';
import type { BusEventDetail } from '../../lib/events/schemas.js';
import type { OfferingsDocument } from '../../lib/schemas/offering.js';
import type { Product } from '../../lib/schemas/product.js';

export const PREMIUM_MONTHLY: Product = {
  id: 'premium_monthly',
  name: 'Premium',
  description: 'Every feature, billed monthly',
  price: 9.99,
  currency: 'USD',
  billing_period: 'monthly',
  trial_period_days: 7,
  features: ['sync', 'export'],
  platforms: ['ios', 'android', 'web'],
  active: true,
};

export const PRO_YEARLY: Product = {
  id: 'pro_yearly',
  name: 'Pro',
  description: 'Pro, billed yearly',
  price: 59.99,
  currency: 'EUR',
  billing_period: 'yearly',
  trial_period_days: 0,
  features: ['sync'],
  platforms: ['ios', 'android'],
  active: true,
};

export const RETIRED: Product = { ...PRO_YEARLY, id: 'retired_plan', name: 'Retired', active: false };

/** One offering, current, with the `main` paywall and a monthly package of PREMIUM_MONTHLY on iOS. */
export const STANDARD_OFFERINGS: OfferingsDocument = {
  current: 'standard',
  offerings: [
    {
      id: 'standard',
      description: '',
      metadata: {},
      paywall: 'main',
      packages: [{ id: '$rc_monthly', products: { ios: PREMIUM_MONTHLY.id }, metadata: {} }],
    },
  ],
  placements: [],
};

export interface TestApp {
  appId: string;
  secretKey: string;
  sdkKey: string;
}

export async function createTestApp(products: Product[] = [PREMIUM_MONTHLY, PRO_YEARLY, RETIRED]): Promise<TestApp> {
  const { app, secretKey, sdkKey } = await createApp({ name: 'test app', reportingCurrency: 'USD', testStore: true });
  if (products.length > 0) await putProducts(app.app_id, products);
  return { appId: app.app_id, secretKey: secretKey.key, sdkKey: sdkKey.key };
}

/** A status-change event as the publisher hands it to webhook delivery: a fresh event id each call. */
/** The fields every store-driven event carries (lib/events/schemas.ts), for an active App Store subscription. */
export const storeEventData = (expiresAt: string) => ({
  subscription_id: 'sub_0123456789abcdef01234567',
  user_id: 'u',
  product_id: 'premium_monthly',
  price: 9.99,
  currency: 'USD',
  store: 'app_store',
  environment: 'production',
  status: 'active',
  expires_at: expiresAt,
  auto_renew: true,
});

export function statusChange(appId: string): BusEventDetail {
  return {
    app_id: appId,
    event_id: newEventId(),
    payload: {
      event: 'subscription.status_changed',
      timestamp: new Date().toISOString(),
      data: {
        subscription_id: 'sub_0123456789abcdef01234567',
        user_id: 'u',
        old_status: 'active',
        new_status: 'expired',
        expires_at: new Date().toISOString(),
        auto_renew: false,
      },
    },
  };
}
