/**
 * Asking a store for a purchase's state now (App Store Server API Get All Subscription Statuses,
 * Google Play subscriptionsv2.get), for the sweeper before it expires a subscription the store
 * may have renewed. Needs the app's store credentials; without them there is no one to ask.
 */

import { getAppWithStoreSettings } from '../data/store-settings.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import type { StorePurchaseState } from '../domain/store-purchase.js';
import { readAppStorePurchaseState } from '../stores/app-store-notifications.js';
import { googlePurchaseState } from '../stores/google-play.js';
import { noteStoreThrottle } from './store-call-budget.js';

/**
 * The store's state of the subscription's purchase now; null when the store grants nothing (a
 * pending purchase); undefined when the app has no credentials for its store (or it is no store's).
 */
export async function askStore(
  appId: string,
  record: Pick<SubscriptionRecord, 'store' | 'original_transaction_id' | 'environment'>,
): Promise<StorePurchaseState | null | undefined> {
  try {
    return await askStoreOnce(appId, record);
  } catch (error) {
    // Not budgeted itself (docs/security.md#outbound-store-calls), a 429 still holds back the calls that are.
    if (record.store === 'app_store' || record.store === 'google_play')
      await noteStoreThrottle(appId, record.store, error);
    throw error;
  }
}

async function askStoreOnce(
  appId: string,
  record: Pick<SubscriptionRecord, 'store' | 'original_transaction_id' | 'environment'>,
): Promise<StorePurchaseState | null | undefined> {
  const purchase = record.original_transaction_id;
  if (purchase === null) return undefined;
  if (record.store === 'app_store') {
    const { settings } = await getAppWithStoreSettings(appId, 'app_store', { withCredentials: true });
    if (!settings?.server_api) return undefined;
    return readAppStorePurchaseState(
      { bundleId: settings.bundle_id, environment: settings.environment, serverApi: settings.server_api },
      record.environment === 'sandbox' ? 'Sandbox' : 'Production',
      purchase,
    );
  }
  if (record.store === 'google_play') {
    const { settings } = await getAppWithStoreSettings(appId, 'google_play', { withCredentials: true });
    return settings ? googlePurchaseState(settings, purchase) : undefined;
  }
  return undefined;
}
