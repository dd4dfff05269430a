/**
 * Notifications of the test store, shaped like App Store Server Notifications v2 so SDK developers
 * and CI can drive every store event without Apple: `admin notifications mint` signs a
 * `{"signedPayload": "<JWS>"}` body with the app's test-store key (the key and key id of its
 * receipts), whose payload carries a signedTransactionInfo (a test-store transaction, as a receipt
 * is) and a signedRenewalInfo. Only that app's public key verifies it, through the test store's one
 * JWS check (verifiedTestStorePayload).
 */
import { createPublicKey, randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import {
  JWS_PATTERN,
  MAX_NOTIFICATION_BYTES,
  type StoreNotification,
  type StorePurchaseState,
  type StoreRenewalState,
  type VerifiedTransaction,
} from '../domain/store-purchase.js';
import { stateOfNotification, statesPurchase } from './app-store-notification-types.js';
import {
  newTestTransactionId,
  signTestStoreJws,
  signTestTransaction,
  type TestStoreRefusal,
  type TestTransaction,
  verifiedTestStorePayload,
  verifyTestTransaction,
} from './test-store.js';

/** What `admin notifications mint --type` mints. */
export const TEST_NOTIFICATION_TYPES = [
  'renewed',
  'auto_renew_off',
  'auto_renew_on',
  'billing_issue',
  'grace_period_expired',
  'billing_recovered',
  'expired',
  'refunded',
  'refund_reversed',
  'product_changed',
] as const;

export type TestNotificationType = (typeof TEST_NOTIFICATION_TYPES)[number];

export const isTestNotificationType = (value: unknown): value is TestNotificationType =>
  (TEST_NOTIFICATION_TYPES as readonly unknown[]).includes(value);

/** Apple's notificationType and subtype for each: decoded, the state is what Apple's would give. */
export const APPLE_TYPE_OF: Record<TestNotificationType, { notificationType: string; subtype?: string }> = {
  renewed: { notificationType: 'DID_RENEW' },
  auto_renew_off: { notificationType: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED' },
  auto_renew_on: { notificationType: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_ENABLED' },
  billing_issue: { notificationType: 'DID_FAIL_TO_RENEW', subtype: 'GRACE_PERIOD' },
  grace_period_expired: { notificationType: 'GRACE_PERIOD_EXPIRED' },
  billing_recovered: { notificationType: 'DID_RENEW', subtype: 'BILLING_RECOVERY' },
  expired: { notificationType: 'EXPIRED', subtype: 'VOLUNTARY' },
  refunded: { notificationType: 'REFUND' },
  refund_reversed: { notificationType: 'REFUND_REVERSED' },
  product_changed: { notificationType: 'DID_CHANGE_RENEWAL_PREF', subtype: 'UPGRADE' },
};

const DAY_SECONDS = 86_400;
/** A new period (renewed, billing_recovered, product_changed) when --expires-in is not given. */
export const DEFAULT_PERIOD_SECONDS = 30 * DAY_SECONDS;
/** billing_issue's grace period when --expires-in is not given (Apple's longest, for monthly plans). */
export const DEFAULT_GRACE_SECONDS = 16 * DAY_SECONDS;

export interface TestNotificationRequest {
  appId: string;
  /** The app's test-store signing key (PKCS#8 PEM). */
  privateKeyPem: string;
  type: TestNotificationType;
  /** The purchase's latest transaction, as the store knows it (latestTestTransaction). */
  latest: TestTransaction;
  /** Whether the purchase renews now: what refunded keeps (the other types say it themselves). */
  autoRenew: boolean;
  /**
   * The new period's length for renewed, billing_recovered and product_changed (default 30 days);
   * the grace period's for billing_issue (default 16 days); unused by the other types.
   */
  expiresInSeconds?: number | undefined;
  /** product_changed (required): the product the subscriber upgraded to, at its price. */
  product?: { productId: string; price: number; currency: string } | undefined;
  now?: Date;
}

/** What is known of a test-store purchase (cli `notifications mint` reads it). */
export interface KnownTestPurchase {
  /** The subscription the purchase serves. */
  record: {
    product_id: string;
    platform: 'ios' | 'android';
    price: number;
    currency: string;
    expires_at: string;
    started_at: string;
  };
  /** Its latest transaction recorded (null: the receipt's), and when it was last paid. */
  payment: { transaction_id: string | null; last_payment: string | null };
  /** The receipt verified for it. */
  receipt: VerifiedTransaction;
  /** The state the store's last notification left on the purchase, if any. */
  storeState: StorePurchaseState | undefined;
}

/**
 * The purchase's latest transaction as the store knows it: the store's own word on it, not the
 * subscription's (whose end a refund or a cancellation moved to when it happened). The state the
 * last notification left when it is about that transaction, else the receipt when it is that
 * transaction, else (a later transaction recorded by neither) the subscription's period.
 */
export function latestTestTransaction({ record, payment, receipt, storeState }: KnownTestPurchase): TestTransaction {
  const transactionId = payment.transaction_id ?? receipt.transaction_id;
  const told =
    storeState?.transaction_id === transactionId
      ? storeState
      : receipt.transaction_id === transactionId
        ? receipt
        : undefined;
  const base = {
    transactionId,
    originalTransactionId: receipt.original_transaction_id,
    platform: record.platform,
    appAccountToken: receipt.app_account_token ?? undefined,
  };
  if (!told) {
    return {
      ...base,
      productId: record.product_id,
      purchaseDate: new Date(payment.last_payment ?? record.started_at),
      expiresDate: new Date(record.expires_at),
      price: record.price,
      currency: record.currency,
      trial: false,
    };
  }
  // A trial is signed at 0 whatever its price: the subscription's stands for it.
  const priced = !told.trial && told.price !== null && told.currency !== null;
  return {
    ...base,
    productId: told.product_id,
    purchaseDate: new Date(told.purchase_date),
    expiresDate: new Date(told.expires_at),
    price: priced ? told.price! : record.price,
    currency: priced ? told.currency! : record.currency,
    trial: told.trial,
  };
}

/** Apple's JWSRenewalInfo fields the test store writes. */
interface TestRenewalPayload {
  originalTransactionId: string;
  productId: string;
  autoRenewProductId: string;
  autoRenewStatus: 0 | 1;
  isInBillingRetryPeriod: boolean;
  gracePeriodExpiresDate?: number;
  /** 1: the subscriber cancelled (Apple's expirationIntent). */
  expirationIntent?: 1;
  environment: 'Test';
  signedDate: number;
}

/** Apple's subscription status of the data (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked). */
type AppleStatus = 1 | 2 | 3 | 4 | 5;

/** The signed body of a test-store notification, for the app's test store key only. */
export function mintTestNotification(request: TestNotificationRequest): { signedPayload: string } {
  const now = request.now ?? new Date();
  const { latest, type } = request;
  const after = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const period = request.expiresInSeconds ?? DEFAULT_PERIOD_SECONDS;
  /**
   * A new transaction of the same purchase, paid now. A renewal's period follows the current one
   * (from now if that has ended), so it always ends later: a renewal, with its revenue. An
   * upgrade's starts now, as Apple's does.
   */
  const newTransaction = (from: Date, product?: TestNotificationRequest['product']) => ({
    ...latest,
    ...product,
    transactionId: newTestTransactionId(),
    purchaseDate: now,
    expiresDate: new Date(from.getTime() + period * 1000),
    trial: false,
    revocationDate: undefined,
  });
  const renewal = () => newTransaction(new Date(Math.max(now.getTime(), latest.expiresDate.getTime())));
  /** The latest transaction, ended by now at the latest (access ends). */
  const ended = { ...latest, expiresDate: new Date(Math.min(latest.expiresDate.getTime(), now.getTime())) };
  let transaction: TestTransaction = latest;
  let autoRenew = true;
  let billingRetry = false;
  let graceUntil: Date | undefined;
  let status: AppleStatus = 1;
  switch (type) {
    case 'renewed':
    case 'billing_recovered':
      transaction = renewal();
      break;
    case 'auto_renew_off':
      autoRenew = false;
      break;
    case 'auto_renew_on':
      break;
    case 'billing_issue':
      // The store fails to charge when the period ends: from then on only the grace period gives access.
      transaction = ended;
      billingRetry = true;
      graceUntil = after(request.expiresInSeconds ?? DEFAULT_GRACE_SECONDS);
      status = 4;
      break;
    case 'grace_period_expired':
      transaction = ended;
      billingRetry = true;
      status = 3;
      break;
    case 'expired':
      transaction = ended;
      autoRenew = false;
      status = 2;
      break;
    case 'refunded':
      transaction = { ...latest, revocationDate: now };
      autoRenew = request.autoRenew;
      status = 5;
      break;
    case 'refund_reversed':
      transaction = latest;
      autoRenew = request.autoRenew;
      break;
    case 'product_changed':
      if (!request.product) throw new Error('product_changed needs the product changed to');
      transaction = newTransaction(now, request.product);
      break;
  }
  const renewalInfo: TestRenewalPayload = {
    originalTransactionId: transaction.originalTransactionId,
    productId: transaction.productId,
    autoRenewProductId: transaction.productId,
    autoRenewStatus: autoRenew ? 1 : 0,
    isInBillingRetryPeriod: billingRetry,
    ...(graceUntil ? { gracePeriodExpiresDate: graceUntil.getTime() } : {}),
    ...(type === 'expired' ? { expirationIntent: 1 as const } : {}),
    environment: 'Test',
    signedDate: now.getTime(),
  };
  const { appId, privateKeyPem } = request;
  const payload = {
    ...APPLE_TYPE_OF[type],
    notificationUUID: randomUUID(),
    data: {
      bundleId: appId,
      environment: 'Test',
      signedTransactionInfo: signTestTransaction(appId, privateKeyPem, transaction, now),
      signedRenewalInfo: signTestStoreJws(appId, privateKeyPem, renewalInfo),
      status,
    },
    version: '2.0',
    signedDate: now.getTime(),
  };
  return { signedPayload: signTestStoreJws(appId, privateKeyPem, payload) };
}

const refusal = (what: string): TestStoreRefusal => ({ kind: 'INVALID_NOTIFICATION', what });
const invalid = (why: string) => new AppError('INVALID_NOTIFICATION', why);
const isJws = (value: unknown): value is string => typeof value === 'string' && JWS_PATTERN.test(value);
// Number.isFinite is false for anything that is no number (it does not convert).
const isTime = (value: unknown): value is number => Number.isFinite(value);

/**
 * A test-store notification body (`{"signedPayload": "<JWS>"}`, parsed or as the raw JSON text),
 * verified for this app: its signature and every JWS it carries with the app's test-store public
 * key, and its bundleId. AppError INVALID_NOTIFICATION when it is not genuine, another app's,
 * malformed, or larger than 64 KB.
 */
export function decodeTestStoreNotification(body: unknown, appId: string, publicKeyPem: string): StoreNotification {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (text === undefined) throw invalid('the notification has no body');
  if (Buffer.byteLength(text) > MAX_NOTIFICATION_BYTES)
    throw invalid(`the notification is larger than ${MAX_NOTIFICATION_BYTES / 1024} KB`);
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      throw invalid('the notification body is not JSON');
    }
  }
  const signedPayload = isJsonObject(parsed) ? parsed.signedPayload : undefined;
  if (!isJws(signedPayload)) throw invalid('the notification body is not {"signedPayload": "<JWS>"}');
  const publicKey = createPublicKey(publicKeyPem);
  const payload = verifiedTestStorePayload(signedPayload, appId, publicKey, refusal('signedPayload'));
  const { notificationType, subtype, notificationUUID, signedDate } = payload;
  // Apple's summary notifications (RENEWAL_EXTENSION SUMMARY) carry `summary` where the others carry `data`.
  const data = payload.data ?? payload.summary;
  if (
    typeof notificationType !== 'string' ||
    notificationType === '' ||
    typeof notificationUUID !== 'string' ||
    notificationUUID === '' ||
    !isTime(signedDate) ||
    (subtype !== undefined && typeof subtype !== 'string') ||
    !isJsonObject(data)
  ) {
    throw invalid('signedPayload lacks its notificationType, notificationUUID, signedDate or data');
  }
  if (data.bundleId !== appId) throw invalid('signedPayload is for another app (bundleId)');
  if (data.environment !== 'Test') throw invalid('signedPayload is not of the test store (environment)');
  const sentAt = new Date(signedDate).toISOString();
  const notification: Omit<StoreNotification, 'state'> = {
    store: 'test_store',
    notification_id: notificationUUID,
    type: notificationType,
    subtype: subtype ?? null,
    environment: 'Test',
    sent_at: sentAt,
  };
  // As Apple's: a type without a state, or a summary of many purchases (no transaction), changes none.
  if (!statesPurchase(notificationType) || data.signedTransactionInfo === undefined)
    return { ...notification, state: null };
  if (!isJws(data.signedTransactionInfo)) throw invalid('signedTransactionInfo is not a JWS');
  const transaction = verifyTestTransaction(
    data.signedTransactionInfo,
    appId,
    publicKey,
    refusal('signedTransactionInfo'),
  );
  let renewal: StoreRenewalState | null = null;
  if (data.signedRenewalInfo !== undefined) {
    if (!isJws(data.signedRenewalInfo)) throw invalid('signedRenewalInfo is not a JWS');
    const info = verifiedTestStorePayload(data.signedRenewalInfo, appId, publicKey, refusal('signedRenewalInfo'));
    if (info.originalTransactionId !== transaction.original_transaction_id)
      throw invalid('signedRenewalInfo is about another purchase than signedTransactionInfo');
    if (info.autoRenewStatus !== 0 && info.autoRenewStatus !== 1)
      throw invalid('signedRenewalInfo lacks its autoRenewStatus');
    const grace = info.gracePeriodExpiresDate;
    if (grace !== undefined && !isTime(grace))
      throw invalid('signedRenewalInfo has a malformed gracePeriodExpiresDate');
    const renewalProduct = info.autoRenewProductId;
    renewal = {
      auto_renew: info.autoRenewStatus === 1,
      renewal_product_id:
        typeof renewalProduct === 'string' && renewalProduct !== transaction.product_id ? renewalProduct : null,
      billing_issue:
        info.isInBillingRetryPeriod === true ||
        (notificationType === 'DID_FAIL_TO_RENEW' && grace !== undefined && grace > signedDate),
      grace_period_expires_at: grace === undefined ? null : new Date(grace).toISOString(),
    };
  }
  return { ...notification, state: stateOfNotification(notificationType, { ...transaction, renewal, as_of: sentAt }) };
}
