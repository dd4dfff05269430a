/**
 * App Store Server Notifications V2 as Apple sends them, signed by the stand-in chain
 * (test/fixtures/app-store-standin, "Test only, not Apple"): the outer payload, its
 * signedTransactionInfo and its signedRenewalInfo each a JWS of that chain, so a decoder that
 * trusts STAND_IN_ROOT verifies them exactly as it verifies Apple's.
 */
import { randomUUID } from 'node:crypto';
import { signedByStandIn } from './app-store-standin.js';

export const NOTIFY_BUNDLE = 'com.example.subs';
export const NOTIFY_APP_APPLE_ID = 1234567890;

export interface NotificationParts {
  type: string;
  subtype?: string | undefined;
  /** Default: a new UUID. */
  notificationUUID?: string;
  /** Default: now. */
  signedDate?: number;
  environment?: string;
  bundleId?: string;
  /** Default: NOTIFY_APP_APPLE_ID for Production, none for Sandbox (as Apple sends them). */
  appAppleId?: number | undefined;
  /** The JWSTransaction payload; absent: the notification carries none. */
  transaction?: Record<string, unknown> | undefined;
  /** The JWSRenewalInfo payload; absent: none. */
  renewal?: Record<string, unknown> | undefined;
  /** The subscription's status (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked). */
  status?: number;
  /** Replaces data (e.g. undefined with `summary` for RENEWAL_EXTENSION SUMMARY). */
  data?: Record<string, unknown> | undefined;
  /** Further top-level fields (summary, externalPurchaseToken). */
  extra?: Record<string, unknown>;
  /** Signs each JWS; default: the stand-in chain. */
  sign?: (payload: Record<string, unknown>) => string;
}

/** The decoded ResponseBodyV2 payload, its inner JWS signed. */
export function appStoreNotificationPayload(parts: NotificationParts): Record<string, unknown> {
  const sign = parts.sign ?? signedByStandIn;
  const environment = parts.environment ?? 'Sandbox';
  const appAppleId =
    'appAppleId' in parts ? parts.appAppleId : environment === 'Production' ? NOTIFY_APP_APPLE_ID : undefined;
  const data =
    'data' in parts
      ? parts.data
      : {
          ...(appAppleId === undefined ? {} : { appAppleId }),
          bundleId: parts.bundleId ?? NOTIFY_BUNDLE,
          bundleVersion: '42',
          environment,
          ...(parts.transaction ? { signedTransactionInfo: sign(parts.transaction) } : {}),
          ...(parts.renewal ? { signedRenewalInfo: sign(parts.renewal) } : {}),
          ...(parts.status === undefined ? {} : { status: parts.status }),
        };
  return {
    notificationType: parts.type,
    ...(parts.subtype === undefined ? {} : { subtype: parts.subtype }),
    notificationUUID: parts.notificationUUID ?? randomUUID(),
    ...(data === undefined ? {} : { data }),
    ...parts.extra,
    version: '2.0',
    signedDate: parts.signedDate ?? Date.now(),
  };
}

/** The body Apple POSTs: `{"signedPayload": "<JWS>"}`. */
export function appStoreNotificationBody(parts: NotificationParts): { signedPayload: string } {
  return { signedPayload: (parts.sign ?? signedByStandIn)(appStoreNotificationPayload(parts)) };
}

/** A JWSRenewalInfo payload for a transaction (auto-renew on, same product), with overrides. */
export function appStoreRenewalInfo(
  transaction: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    originalTransactionId: transaction.originalTransactionId,
    autoRenewProductId: transaction.productId,
    productId: transaction.productId,
    autoRenewStatus: 1,
    renewalDate: transaction.expiresDate,
    recentSubscriptionStartDate: transaction.purchaseDate,
    environment: transaction.environment,
    signedDate: transaction.signedDate,
    ...overrides,
  };
}
