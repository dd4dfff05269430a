/**
 * The benchmarks' realistic store notification: for each notification route, the renewal of a
 * subscription a user verified just before (a month ago, as far as the store's dates say), so the
 * notification is applied (the subscription renews, in one transaction) and answered 200:
 * - test store: `renewed`, as `admin notifications mint` signs it with the app's test-store key;
 * - App Store: DID_RENEW in Production, signed by the stand-in chain (test/fixtures/app-store-standin), which the
 *   benchmark trusts in place of Apple's root (support/apple-stand-in-root.ts);
 * - Google Play: a Pub/Sub push of SUBSCRIPTION_RENEWED with its OIDC token, the purchase renewed
 *   at the Google stand-in (test/support/google-play-standin.ts), which the function asks.
 * Before lib/ is imported: trustStandInAppleRoot(), and GOOGLE_OAUTH_TOKEN_URL,
 * GOOGLE_PLAY_API_BASE_URL and GOOGLE_OIDC_JWKS_URL pointed at the Google stand-in.
 */
import { randomBytes } from 'node:crypto';
import { getApp } from '../../lib/data/apps.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { notificationPath } from '../../lib/routes.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { mintTestReceipt } from '../../lib/stores/test-store.js';
import { mintTestNotification } from '../../lib/stores/test-store-notifications.js';
import {
  appStoreNotificationBody,
  appStoreRenewalInfo,
  NOTIFY_APP_APPLE_ID,
  NOTIFY_BUNDLE,
} from '../../test/support/app-store-notifications.js';
import { appStoreTransaction, signedByStandIn } from '../../test/support/app-store-standin.js';
import type { TestApp } from '../../test/support/fixtures.js';
import {
  PUSH_SERVICE_ACCOUNT,
  pushBody,
  type StandIn,
  subscriptionPurchase,
  subscriptionPurchaseV2,
} from '../../test/support/google-play-standin.js';
import type { BenchRequest } from './invoke.js';

/** The app's Google Play package (the stand-in's). */
export const NOTIFY_PACKAGE = 'com.example.subs';
/** The notification routes, by name. */
export const NOTIFICATION_ROUTES = ['AppStoreNotification', 'GooglePlayNotification', 'TestStoreNotification'] as const;
export type NotificationRoute = (typeof NOTIFICATION_ROUTES)[number];

const DAY_MS = 86_400_000;
const PRODUCT = 'premium_monthly';

/**
 * Configures `app` (test store on, the test catalogue) for App Store and Google Play
 * notifications, and returns for each route a function that verifies a new purchase for a new
 * user and returns the request of its renewal notification.
 */
export async function notificationRenewals(
  app: TestApp,
  google: StandIn,
): Promise<Record<NotificationRoute, () => Promise<BenchRequest>>> {
  const pushAudience = `https://api.example.com${notificationPath('google_play', app.appId)}`;
  // Production: a paying subscriber's renewal counts revenue (sandbox money does not).
  await putStoreSettings(app.appId, 'app_store', {
    bundle_id: NOTIFY_BUNDLE,
    environment: 'Production',
    app_apple_id: NOTIFY_APP_APPLE_ID,
  });
  await putStoreSettings(app.appId, 'google_play', {
    package_name: NOTIFY_PACKAGE,
    service_account: google.serviceAccount,
    push_audience: pushAudience,
    push_service_account: PUSH_SERVICE_ACCOUNT,
  });
  const privateKeyPem = (await getApp(app.appId))!.test_store_private_key!;
  let sequence = 0;
  const user = () => `notified-${++sequence}`;
  const verify = async (platform: 'ios' | 'android', receipt_data: string) => {
    const verified = await verifyPurchase(app.appId, { platform, receipt_data, user_id: user() });
    if (verified.verification_status !== 'valid') throw new Error(`purchase not verified: ${JSON.stringify(verified)}`);
  };
  /** The period that ends now: bought a month ago, renewing in a minute. */
  const bought = () => new Date(Date.now() - 30 * DAY_MS + 60_000);

  return {
    async TestStoreNotification() {
      const purchaseDate = bought();
      const { receipt_data, transaction_id } = mintTestReceipt({
        appId: app.appId,
        privateKeyPem,
        productId: PRODUCT,
        platform: 'ios',
        price: 9.99,
        currency: 'USD',
        expiresInSeconds: 30 * 86_400,
        trial: false,
        now: purchaseDate,
      });
      await verify('ios', receipt_data);
      const body = mintTestNotification({
        appId: app.appId,
        privateKeyPem,
        type: 'renewed',
        latest: {
          transactionId: transaction_id,
          originalTransactionId: transaction_id,
          productId: PRODUCT,
          platform: 'ios',
          purchaseDate,
          expiresDate: new Date(purchaseDate.getTime() + 30 * DAY_MS),
          price: 9.99,
          currency: 'USD',
          trial: false,
        },
        autoRenew: true,
      });
      return { path: notificationPath('test_store', app.appId), body };
    },

    async AppStoreNotification() {
      const purchaseDate = bought().getTime();
      const first = appStoreTransaction(NOTIFY_BUNDLE, {
        productId: PRODUCT,
        environment: 'Production',
        purchaseDate,
        originalPurchaseDate: purchaseDate,
        expiresDate: purchaseDate + 30 * DAY_MS,
      });
      await verify('ios', signedByStandIn(first));
      const now = Date.now();
      const renewal = {
        ...first,
        transactionId: String(BigInt(first.transactionId as string) + 1n),
        purchaseDate: now,
        expiresDate: now + 30 * DAY_MS,
        signedDate: now,
      };
      const body = appStoreNotificationBody({
        type: 'DID_RENEW',
        transaction: renewal,
        renewal: appStoreRenewalInfo(renewal),
        status: 1,
        environment: 'Production',
        signedDate: now,
      });
      return { path: notificationPath('app_store', app.appId), body };
    },

    async GooglePlayNotification() {
      const token = `bench-${randomBytes(16).toString('hex')}`;
      google.purchases.set(token, subscriptionPurchase(PRODUCT, 60_000, { startTime: bought().toISOString() }));
      await verify('android', token);
      // Google renewed it: a new order, a month more.
      google.purchases.set(token, subscriptionPurchaseV2(PRODUCT, { startTime: bought().toISOString() }));
      const developerNotification = {
        version: '1.0',
        packageName: NOTIFY_PACKAGE,
        eventTimeMillis: String(Date.now()),
        subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: token },
      };
      return {
        path: notificationPath('google_play', app.appId),
        headers: { authorization: `Bearer ${google.pushToken({ audience: pushAudience })}` },
        body: pushBody(developerNotification, String(BigInt(`0x${randomBytes(6).toString('hex')}`))),
      };
    },
  };
}
