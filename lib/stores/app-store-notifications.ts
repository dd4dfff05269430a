/**
 * App Store Server Notifications V2: Apple POSTs `{"signedPayload": "<JWS>"}`; the payload, and the
 * signedTransactionInfo and signedRenewalInfo it carries, are JWS verified like StoreKit 2
 * transactions (lib/stores/apple-signed-data.ts, each chain judged at its own signedDate), then
 * checked as Apple's SignedDataVerifier.verifyAndDecodeNotification checks them: the app (bundle
 * id; app Apple id where Apple sends it) and the environment (lib/stores/app-store.ts
 * acceptsEnvironment: a Production app takes Sandbox too). The inner transaction and renewal info
 * must be of the notification's own app and environment.
 *
 * What comes out is the store's state of the purchase (StorePurchaseState): the latest
 * transaction, mapped as a verified one is, with its renewal, as of the notification's signedDate.
 * The same mapping serves the App Store Server API's subscription statuses (the sweeper).
 */
import type { X509Certificate } from 'node:crypto';
import * as z from 'zod/mini';
import { AppError, invalidReceipt } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import {
  JWS_PATTERN,
  MAX_NOTIFICATION_BYTES,
  type StoreNotification,
  type StorePurchaseState,
  type StoreRenewalState,
} from '../domain/store-purchase.js';
import { define } from '../schemas/define.js';
import {
  APPLE_ROOT_CA_G3,
  type AppStoreEnvironment,
  type AppStoreSettings,
  type AppStoreTransactionPayload,
  acceptsEnvironment,
  appStoreTransactionPayload,
  isAppStoreEnvironment,
  transactionFromPayload,
} from './app-store.js';
import { stateOfNotification, statesPurchase } from './app-store-notification-types.js';
import { fetchAppStorePurchaseState, type SignedPurchaseState } from './app-store-server-api.js';
import { type AppleRejection, AppleSignedDataError, verifyAppleSignedData } from './apple-signed-data.js';

/** The types and subtypes are recorded as sent: bounded, as anything stored is. */
const recordedString = () => z.string().check(z.minLength(1), z.maxLength(128));
const appIdentity = () => ({
  appAppleId: z.optional(z.number()),
  bundleId: z.optional(z.string()),
  environment: z.optional(z.string()),
});

/** ResponseBodyV2DecodedPayload, the fields we read, typed as Apple documents them. */
const notificationPayload = /* @__PURE__ */ define(() =>
  z.looseObject({
    notificationType: recordedString(),
    subtype: z.optional(recordedString()),
    notificationUUID: recordedString(),
    version: z.optional(z.string()),
    signedDate: z.number(),
    data: z.optional(
      z.looseObject({
        ...appIdentity(),
        bundleVersion: z.optional(z.string()),
        signedTransactionInfo: z.optional(z.string()),
        signedRenewalInfo: z.optional(z.string()),
        status: z.optional(z.number()),
      }),
    ),
    // RENEWAL_EXTENSION SUMMARY carries a summary instead of data; EXTERNAL_PURCHASE_TOKEN, a token;
    // RESCIND_CONSENT, appData.
    summary: z.optional(z.looseObject(appIdentity())),
    appData: z.optional(z.looseObject(appIdentity())),
    externalPurchaseToken: z.optional(
      z.looseObject({
        appAppleId: z.optional(z.number()),
        bundleId: z.optional(z.string()),
        externalPurchaseId: z.optional(z.string()),
      }),
    ),
  }),
);
type NotificationPayload = z.infer<typeof notificationPayload>;

/** JWSRenewalInfoDecodedPayload, the fields we read. */
export const appStoreRenewalPayload = /* @__PURE__ */ define(() =>
  z.looseObject({
    originalTransactionId: z.optional(z.string()),
    productId: z.optional(z.string()),
    autoRenewProductId: z.optional(z.string()),
    autoRenewStatus: z.optional(z.number()),
    isInBillingRetryPeriod: z.optional(z.boolean()),
    gracePeriodExpiresDate: z.optional(z.number()),
    expirationIntent: z.optional(z.number()),
    environment: z.optional(z.string()),
    signedDate: z.optional(z.number()),
  }),
);
export type AppStoreRenewalPayload = z.infer<typeof appStoreRenewalPayload>;

type NotificationSettings = Pick<AppStoreSettings, 'bundleId' | 'environment' | 'appAppleId'>;

/**
 * A notification whose signatures all chain to Apple's root, read, but not yet held against the
 * app it was posted for: what it needs of the table can then be read with the app in one request.
 */
export interface SignedAppStoreNotification {
  store: 'app_store';
  notification_id: string;
  /** The purchase's state it reports (null: none, or of an environment no app takes). */
  state: StorePurchaseState | null;
  /**
   * The notification, once it is for this app, as Apple's verifyAndDecodeNotification checks: the
   * bundle id; the app Apple id where the app has one and Apple sends it (always in Production); an
   * environment the app takes. Throws INVALID_NOTIFICATION.
   */
  forApp(settings: NotificationSettings): StoreNotification;
}

/**
 * A notification Apple POSTed, verified and read. `body`: the request's JSON, parsed or as text.
 * Throws INVALID_NOTIFICATION, saying why (never with the payload's contents).
 */
export function decodeAppStoreNotification(
  body: unknown,
  settings: NotificationSettings,
  roots: readonly X509Certificate[] = [APPLE_ROOT_CA_G3],
): StoreNotification {
  return verifyAppStoreNotification(body, roots).forApp(settings);
}

/**
 * The signatures of a notification (its payload, then the transaction and renewal info it carries)
 * and what they say, before any app is known: no request is made. Throws INVALID_NOTIFICATION.
 */
export function verifyAppStoreNotification(
  body: unknown,
  roots: readonly X509Certificate[] = [APPLE_ROOT_CA_G3],
): SignedAppStoreNotification {
  const signedPayload = signedPayloadOf(body);
  const payload = verifiedAs('notification', 'its signed payload', () =>
    verifyAppleSignedData(signedPayload, roots, notificationPayload),
  );
  const { appAppleId, bundleId, environment } = appOf(payload);
  const signedAt = payload.signedDate;
  const sentAt = isoOf(signedAt);
  const signed = payload.data?.signedTransactionInfo;
  const decoded =
    statesPurchase(payload.notificationType) && signed !== undefined && isAppStoreEnvironment(environment)
      ? decodeAppStorePurchaseState(
          { signedTransactionInfo: signed, signedRenewalInfo: payload.data?.signedRenewalInfo },
          // Of the payload's own app, which forApp holds against the app's.
          { bundleId, environment },
          signedAt,
          roots,
          // The subscription does not renew at expires_at after these: it ended (EXPIRED), or its grace
          // period did (GRACE_PERIOD_EXPIRED: access ends; a later recovery is a DID_RENEW of its own).
          { ended: ['EXPIRED', 'GRACE_PERIOD_EXPIRED'].includes(payload.notificationType) },
        )
      : null;
  const state = decoded && stateOfNotification(payload.notificationType, decoded);
  return {
    store: 'app_store',
    notification_id: payload.notificationUUID,
    state,
    forApp: (settings) => {
      const accepted = verifiedAs('notification', 'its signed payload', () => {
        const appleIdRequired =
          settings.appAppleId !== undefined && (environment === 'Production' || appAppleId !== undefined);
        if (bundleId !== settings.bundleId || (appleIdRequired && appAppleId !== settings.appAppleId))
          throw new AppleSignedDataError('app');
        if (!acceptsEnvironment(settings.environment, environment)) throw new AppleSignedDataError('environment');
        return environment;
      });
      return {
        store: 'app_store',
        notification_id: payload.notificationUUID,
        type: payload.notificationType,
        subtype: payload.subtype ?? null,
        environment: accepted,
        sent_at: sentAt,
        state,
      };
    },
  };
}

/**
 * The purchase's state from its signed transaction and renewal info, both of exactly this bundle
 * and environment (the notification's, or the one the App Store Server API was asked in), as of
 * `asOf` (ms). Null for a purchase that is not an auto-renewable subscription. `ended`: the store
 * says it will not renew at expires_at; `source`: what brought them, for messages. Throws
 * INVALID_NOTIFICATION.
 */
export function decodeAppStorePurchaseState(
  signed: SignedPurchaseState,
  app: { bundleId: string | undefined; environment: AppStoreEnvironment },
  asOf: number,
  roots: readonly X509Certificate[] = [APPLE_ROOT_CA_G3],
  { ended = false, source = 'notification' }: { ended?: boolean; source?: string } = {},
): StorePurchaseState | null {
  const verified = <T>(what: string, verify: () => T) => verifiedAs(source, what, verify);
  const transaction = verified('its signed transaction', () => {
    const decoded = verifyAppleSignedData(signed.signedTransactionInfo, roots, appStoreTransactionPayload);
    if (decoded.bundleId !== app.bundleId) throw new AppleSignedDataError('app');
    if (decoded.environment !== app.environment) throw new AppleSignedDataError('environment');
    return decoded;
  });
  const renewalJws = signed.signedRenewalInfo;
  const renewal =
    renewalJws === undefined
      ? undefined
      : verified('its signed renewal info', () => {
          const decoded = verifyAppleSignedData(renewalJws, roots, appStoreRenewalPayload);
          // Renewal info names no bundle: it must be of this purchase.
          if (decoded.originalTransactionId !== transaction.originalTransactionId)
            throw new AppleSignedDataError('app');
          if (decoded.environment !== app.environment) throw new AppleSignedDataError('environment');
          return decoded;
        });
  // A consumable, non-consumable or non-renewing purchase: recorded, nothing to follow.
  if (transaction.expiresDate === undefined) return null;
  return {
    ...transactionFromPayload(transaction, 'INVALID_NOTIFICATION'),
    renewal: renewal === undefined ? null : renewalState(transaction, renewal, asOf, ended),
    as_of: isoOf(asOf),
  };
}

/**
 * What the renewal info says, read from its own fields: a billing issue is a billing retry, or a
 * grace period still running at `asOf`.
 */
function renewalState(
  transaction: AppStoreTransactionPayload,
  renewal: AppStoreRenewalPayload,
  asOf: number,
  ended: boolean,
): StoreRenewalState {
  const grace = renewal.gracePeriodExpiresDate;
  const nextProduct = renewal.autoRenewProductId;
  return {
    auto_renew: !ended && renewal.autoRenewStatus === 1,
    renewal_product_id: nextProduct !== undefined && nextProduct !== transaction.productId ? nextProduct : null,
    billing_issue: renewal.isInBillingRetryPeriod === true || (grace !== undefined && grace > asOf),
    grace_period_expires_at: grace === undefined ? null : isoOf(grace),
  };
}

/**
 * The purchase's state now, read from the App Store Server API (Get All Subscription Statuses) in
 * the purchase's environment (a Production app's purchase may be Sandbox): for the sweeper, before
 * it expires a subscription the store may have renewed. Needs the app's Server API key.
 * Unreachable API: VERIFICATION_FAILED, retryable; a purchase it does not know: INVALID_RECEIPT.
 */
export async function readAppStorePurchaseState(
  settings: Pick<AppStoreSettings, 'bundleId' | 'environment' | 'serverApi'>,
  purchaseEnvironment: AppStoreEnvironment,
  originalTransactionId: string,
  roots: readonly X509Certificate[] = [APPLE_ROOT_CA_G3],
): Promise<StorePurchaseState> {
  if (!settings.serverApi)
    throw new AppError('VERIFICATION_FAILED', 'reading the App Store needs App Store Server API credentials', {
      retryable: true,
    });
  if (!acceptsEnvironment(settings.environment, purchaseEnvironment))
    throw invalidReceipt('the purchase is of an environment this app does not take');
  const state = await fetchAppStorePurchaseState(
    settings.serverApi,
    settings.bundleId,
    purchaseEnvironment,
    originalTransactionId,
    (signed, readAt) =>
      decodeAppStorePurchaseState(
        signed,
        { bundleId: settings.bundleId, environment: purchaseEnvironment },
        readAt,
        roots,
        // The API's status 2: the subscription expired and will not renew.
        { ended: signed.status === 2, source: 'subscription status' },
      ),
  );
  if (!state) throw invalidReceipt('the App Store lists this purchase, but not as a subscription');
  return state;
}

function signedPayloadOf(body: unknown): string {
  let value = body;
  if (typeof body === 'string') {
    if (Buffer.byteLength(body) > MAX_NOTIFICATION_BYTES) throw invalid('the body is larger than 64 KB');
    try {
      value = JSON.parse(body);
    } catch {
      throw invalid('the body is not JSON');
    }
  }
  const signedPayload =
    // Stryker disable next-line ConditionalExpression: an array has no signedPayload either, and is refused alike
    isJsonObject(value) ? value.signedPayload : undefined;
  if (typeof signedPayload !== 'string') throw invalid('the body is not {"signedPayload": "<JWS>"}');
  if (Buffer.byteLength(signedPayload) > MAX_NOTIFICATION_BYTES) throw invalid('the body is larger than 64 KB');
  if (!JWS_PATTERN.test(signedPayload)) throw invalid('its signed payload is not a JWS');
  return signedPayload;
}

/** The app and environment the payload is for, wherever Apple put them (as Apple's library reads them). */
function appOf(payload: NotificationPayload): { appAppleId?: number; bundleId?: string; environment?: string } {
  if (payload.data) return payload.data;
  if (payload.summary) return payload.summary;
  const token = payload.externalPurchaseToken;
  if (token)
    return {
      appAppleId: token.appAppleId,
      bundleId: token.bundleId,
      environment: token.externalPurchaseId?.startsWith('SANDBOX') ? 'Sandbox' : 'Production',
    };
  return payload.appData ?? {};
}

/** Runs a verification of `what` (part of `source`), turning Apple's rejections into INVALID_NOTIFICATION. */
function verifiedAs<T>(source: string, what: string, verify: () => T): T {
  try {
    return verify();
  } catch (error) {
    if (!(error instanceof AppleSignedDataError)) throw error;
    const rejections: Record<AppleRejection, string> = {
      malformed: 'it is not signed data of the documented format',
      signature: 'the signature or certificate chain does not verify',
      chain: 'the signature or certificate chain does not verify',
      app: 'it belongs to another app (bundle id, app Apple id or purchase)',
      environment: 'it belongs to another environment',
      chain_length: "the certificate chain is not Apple's",
      certificate: "the certificate chain is not Apple's",
    };
    throw invalid(`${what}: ${rejections[error.rejection]}`, error, source);
  }
}

const invalid = (why: string, cause?: unknown, source = 'notification') =>
  new AppError('INVALID_NOTIFICATION', `App Store ${source} rejected: ${why}`, cause ? { cause } : {});

/** A date Apple sent; one no Date can hold is not Apple's. */
function isoOf(ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw invalid('it carries a date out of range');
  return date.toISOString();
}
