/**
 * One valid notification per store notification route, for the tests that send each route a
 * valid request (handler grants, hostile input): the app takes App Store notifications signed by
 * the stand-in chain, Google Play pushes authenticated by the Google stand-in's OIDC token, and
 * its test store's notifications. A test file using it must, before lib/ is imported:
 * - mock lib/stores/apple-root-ca-g3.js to the stand-in root (APPLE_ROOT_MOCK below);
 * - start the Google stand-in and point lib's Google URLs at it (startGoogleBeforeLib, in vi.hoisted).
 */
import { randomBytes } from 'node:crypto';
import { getApp } from '../../lib/data/apps.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { notificationPath } from '../../lib/routes.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { mintTestNotification } from '../../lib/stores/test-store-notifications.js';
import { appStoreNotificationBody, appStoreRenewalInfo, NOTIFY_BUNDLE } from './app-store-notifications.js';
import { appStoreTransaction } from './app-store-standin.js';
import type { TestApp } from './fixtures.js';
import { PUSH_SERVICE_ACCOUNT, pushBody, type StandIn, subscriptionPurchaseV2 } from './google-play-standin.js';
import { mintReceipt } from './receipts.js';

/** The Google Play package of the app (the stand-in's). */
export const NOTIFY_PACKAGE = 'com.example.subs';

/** What the test needs to send each notification route a valid request. */
export interface NotificationFixture {
  appStore: { signedPayload: string };
  googlePlay: { body: Record<string, unknown>; authorization: string };
  testStore: { signedPayload: string };
  /** The audience the app expects of a push's OIDC token. */
  pushAudience: string;
  standIn: StandIn;
}

/**
 * Configures `app` (test store on) for all three stores and makes one valid notification each:
 * a test-store renewal of a purchase the app verified (applied), and an App Store and a Google
 * Play renewal of purchases no user verified yet (kept on the ownerless purchase).
 */
export async function buildNotificationFixture(app: TestApp, standIn: StandIn): Promise<NotificationFixture> {
  const pushAudience = `https://api.example.com${notificationPath('google_play', app.appId)}`;
  await putStoreSettings(app.appId, 'app_store', { bundle_id: NOTIFY_BUNDLE, environment: 'Sandbox' });
  await putStoreSettings(app.appId, 'google_play', {
    package_name: NOTIFY_PACKAGE,
    service_account: standIn.serviceAccount,
    push_audience: pushAudience,
    push_service_account: PUSH_SERVICE_ACCOUNT,
  });

  const purchase = await mintReceipt(app);
  const verified = await verifyPurchase(app.appId, {
    platform: 'ios',
    receipt_data: purchase.receipt_data,
    user_id: 'notified-user',
  });
  const testStore = mintTestNotification({
    appId: app.appId,
    privateKeyPem: (await getApp(app.appId))!.test_store_private_key!,
    type: 'renewed',
    latest: {
      transactionId: purchase.transaction_id,
      originalTransactionId: purchase.transaction_id,
      productId: 'premium_monthly',
      platform: 'ios',
      purchaseDate: new Date(Date.now() - 60_000),
      expiresDate: new Date(verified.expires_at ?? Date.now() + 30 * 86_400_000),
      price: 9.99,
      currency: 'USD',
      trial: false,
    },
    autoRenew: true,
  });

  const transaction = appStoreTransaction(NOTIFY_BUNDLE);
  const appStore = appStoreNotificationBody({
    type: 'DID_RENEW',
    transaction,
    renewal: appStoreRenewalInfo(transaction),
    status: 1,
  });

  const token = `notify-${randomBytes(12).toString('hex')}`;
  standIn.purchases.set(token, subscriptionPurchaseV2('premium_monthly'));
  const developerNotification = {
    version: '1.0',
    packageName: NOTIFY_PACKAGE,
    eventTimeMillis: String(Date.now()),
    subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: token },
  };
  const googlePlay = {
    body: pushBody(developerNotification, String(BigInt(`0x${randomBytes(6).toString('hex')}`))),
    // Pub/Sub's tokens last an hour; a run of the fuzzing is well within it.
    authorization: `Bearer ${standIn.pushToken({ audience: pushAudience })}`,
  };
  return { appStore, googlePlay, testStore, pushAudience, standIn };
}
