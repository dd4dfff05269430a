/**
 * Receiving a store's notification: the app and its store settings in one read (with the purchase,
 * for the App Store), the store's verification (lib/stores/*-notifications.ts), then the one apply
 * path (store-truth.ts).
 * Anything not genuine or not this app's is INVALID_NOTIFICATION and changes nothing.
 */
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { getApp } from '../data/apps.js';
import { notificationKey } from '../data/store-notifications.js';
import { getAppWithGooglePlayPushSettings, getAppWithStoreSettings } from '../data/store-settings.js';
import type { StoreNotification } from '../domain/store-purchase.js';
import { verifyAppStoreNotification } from '../stores/app-store-notifications.js';
import {
  authenticateGooglePlayPush,
  holdsGoogleOidcKeys,
  readGooglePlayNotification,
  readPushBody,
  rememberGoogleOidcKeys,
  verifyGoogleIdToken,
} from '../stores/google-play-notifications.js';
import { decodeTestStoreNotification } from '../stores/test-store-notifications.js';
import { noteStoreThrottle } from './store-call-budget.js';
import { applyStoreNotification, applyStoreRevocation, type StoreTruthOutcome, storeStateKeys } from './store-truth.js';

export interface ReceivedNotification {
  notification_id: string;
  type: string;
  outcome: StoreTruthOutcome;
}

const noApp = () => new AppError('INVALID_NOTIFICATION', 'the path names no app of this service');

/** `read`: the items of storeStateKeys, already read with the app (see applyStoreNotification). */
async function applied(
  appId: string,
  notification: StoreNotification,
  read?: (Record<string, unknown> | undefined)[],
): Promise<ReceivedNotification> {
  return {
    notification_id: notification.notification_id,
    type: notification.type,
    outcome: await applyStoreNotification(appId, notification, { read }),
  };
}

/**
 * POST /notifications/app-store/{app_id}: App Store Server Notifications V2. The signatures are
 * verified first (they chain to Apple's root whatever the app), so the app, its settings and the
 * purchase the notification is about are read in one request; then the notification is held
 * against the app.
 */
export async function receiveAppStoreNotification(appId: string, body: unknown): Promise<ReceivedNotification> {
  const signed = verifyAppStoreNotification(body);
  const { state } = signed;
  const { app, settings, alsoRead } = await getAppWithStoreSettings(appId, 'app_store', {
    withCredentials: false,
    alsoRead: state ? storeStateKeys(appId, state, signed) : [],
  });
  if (!app) throw noApp();
  if (!settings) {
    throw new AppError(
      'INVALID_NOTIFICATION',
      'this app takes no App Store notifications yet (admin stores apple set)',
    );
  }
  const notification = signed.forApp({
    bundleId: settings.bundle_id,
    environment: settings.environment,
    appAppleId: settings.app_apple_id,
  });
  return applied(appId, notification, state ? alsoRead : undefined);
}

/**
 * POST /notifications/google-play/{app_id}: a Pub/Sub push of the app's RTDN topic, authenticated
 * by its Google-signed OIDC token before anything else is asked: the app's service account is read
 * (Secrets Manager) only then. The purchase's state is read from Google, never taken from the push,
 * so a push with a genuine token could at worst make us read Google again.
 */
export async function receiveGooglePlayNotification(
  appId: string,
  body: unknown,
  authorization: string | undefined,
): Promise<ReceivedNotification> {
  // Google's keys come with the settings on a cold process: it need not fetch them before the token
  // is checked. So does the record of the push's message, if applied before: a redelivery (Pub/Sub
  // delivers at least once) is answered without asking Google, even while Google cannot be asked
  // (read eventually consistent on a cold process, a redelivery seconds later may be applied again:
  // applying is idempotent).
  const pushBody = readPushBody(body);
  const messageId = 'push' in pushBody ? pushBody.push.messageId : undefined;
  const jwksUrl = config.googleOidcJwksUrl;
  const now = Date.now();
  // A forged push costs no strongly consistent read: a warm process checks Google's signature
  // before it reads anything; a cold one reads the keys with the rest, eventually consistent.
  const warm = holdsGoogleOidcKeys(jwksUrl);
  const early = warm ? await verifyGoogleIdToken(authorization, now, jwksUrl) : undefined;
  const { app, settings, googleKeys, alsoRead } = await getAppWithGooglePlayPushSettings(
    appId,
    jwksUrl,
    messageId === undefined ? [] : [notificationKey(appId, { store: 'google_play', notification_id: messageId })],
    { googleKeys: !warm },
  );
  rememberGoogleOidcKeys(jwksUrl, googleKeys);
  const verified = early ?? (await verifyGoogleIdToken(authorization, now, jwksUrl));
  if (!app) throw noApp();
  if (!settings) {
    throw new AppError(
      'INVALID_NOTIFICATION',
      'this app takes no Google Play notifications yet (admin stores google set)',
    );
  }
  const authenticated = await authenticateGooglePlayPush(pushBody, authorization, settings, undefined, now, verified);
  const [record] = alsoRead;
  if (record) {
    return {
      notification_id: authenticated.push.messageId,
      type: String(record.notification_type),
      outcome: 'duplicate',
    };
  }
  const notification = await readGooglePlayNotification(authenticated, settings).catch(async (error: unknown) => {
    // Pushes are not budgeted (docs/security.md#outbound-store-calls); Google's 429 holds back what is.
    await noteStoreThrottle(appId, 'google_play', error);
    throw error;
  });
  // Google no longer answers for a voided purchase's token: revoke the purchase as we know it.
  if (notification.state === null && notification.voided?.product_type === SUBSCRIPTION_PRODUCT) {
    return {
      notification_id: notification.notification_id,
      type: notification.type,
      outcome: await applyStoreRevocation(appId, notification, notification.voided.purchase_token, {
        refundedTransactionId: notification.voided.order_id,
      }),
    };
  }
  return applied(appId, notification);
}

/** Google's productType of a subscription in a voided purchase notification. */
const SUBSCRIPTION_PRODUCT = 1;

/** POST /notifications/test-store/{app_id}: what `admin notifications mint` prints. */
export async function receiveTestStoreNotification(appId: string, body: unknown): Promise<ReceivedNotification> {
  const app = await getApp(appId);
  if (!app) throw noApp();
  if (!app.test_store || !app.test_store_public_key) {
    throw new AppError(
      'INVALID_NOTIFICATION',
      'test-store notifications are accepted only by apps with the test store on (admin apps update --test-store on)',
    );
  }
  return applied(appId, decodeTestStoreNotification(body, appId, app.test_store_public_key));
}
