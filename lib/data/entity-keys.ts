/**
 * The key of each entity's item, one export per entity, laid out as table-keys.ts maps them.
 * Imported as a namespace (`import * as keys from './entity-keys.js'`), so that each bundle
 * carries only the builders it calls: as one object, every bundle carried all of them (1.6 KB).
 */
import type { ApiKeyKind } from '../core/ids.js';
import type { TableKey } from './table-keys.js';
import { APP_DIRECTORY_PK, SUBSCRIPTION_SK } from './table-keys.js';

export const app = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'APP' });
/** The one partition that names every app, for the operator; no request reads it. */
export const appDirectory = (appId: string): TableKey => ({ pk: APP_DIRECTORY_PK, sk: `APP#${appId}` });
export const appKeyPrefix = (appId: string, kind?: ApiKeyKind) => ({
  pk: `APP#${appId}`,
  skPrefix: kind ? `KEY#${kind}#` : 'KEY#',
});
export const appKey = (appId: string, kind: ApiKeyKind, hash: string): TableKey => ({
  pk: `APP#${appId}`,
  sk: `KEY#${kind}#${hash}`,
});
export const apiKey = (hash: string): TableKey => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' });
/** The requests one user of an app made in the current rate-limit window (mobile API). */
export const rateLimitWindow = (appId: string, userId: string): TableKey => ({
  pk: `RATE#${appId}#${userId}`,
  sk: 'WINDOW',
});
/** What the app's users together reported in the current quota windows (lib/domain/report-quota.ts). */
export const reportQuota = (appId: string): TableKey => ({ pk: `QUOTA#${appId}`, sk: 'REPORTS' });
export const product = (appId: string, productId: string): TableKey => ({
  pk: `APP#${appId}`,
  sk: `PRODUCT#${productId}`,
});
export const productPrefix = (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'PRODUCT#' });
export const subscription = (appId: string, subscriptionId: string): TableKey => ({
  pk: `SUB#${appId}#${subscriptionId}`,
  sk: SUBSCRIPTION_SK,
});
export const subscriptionPayment = (appId: string, subscriptionId: string): TableKey => ({
  pk: `SUB#${appId}#${subscriptionId}`,
  sk: 'PAYMENT',
});
/** The receipt the subscription was verified with, compressed: written once, apart from the payment fields renewals update. */
export const subscriptionReceipt = (appId: string, subscriptionId: string): TableKey => ({
  pk: `SUB#${appId}#${subscriptionId}`,
  sk: 'RECEIPT',
});
/** A transfer of the purchase to or from this subscription: one item in each of the two partitions. */
export const subscriptionTransfer = (
  appId: string,
  subscriptionId: string,
  transferredAt: string,
  eventId: string,
): TableKey => ({
  pk: `SUB#${appId}#${subscriptionId}`,
  sk: `TRANSFER#${transferredAt}#${eventId}`,
});
export const transaction = (appId: string, transactionId: string): TableKey => ({
  pk: `TXN#${appId}#${transactionId}`,
  sk: 'TXN',
});
/**
 * A store purchase (original transaction / purchase token) belongs to one user of one app: kept
 * on its original transaction's item, which a first purchase's binding writes anyway. Transaction
 * ids of the stores never collide (Apple's are numbers, Google's `GPA.` order ids, the test
 * store's `test_`), and a transaction id is one app-wide name already (TXN#).
 */
export const purchase = (appId: string, originalTransactionId: string): TableKey => ({
  pk: `TXN#${appId}#${originalTransactionId}`,
  sk: 'TXN',
});
/** Where a purchase's owner was kept before it moved to its transaction's item (`admin subscriptions rewrite` moves it). */
export const formerPurchaseOwner = (appId: string, store: string, originalTransactionId: string): TableKey => ({
  pk: `OWNER#${appId}#${store}#${originalTransactionId}`,
  sk: 'OWNER',
});
/** A store notification received (Apple notificationUUID, Pub/Sub messageId): each is applied once. */
export const storeNotification = (appId: string, store: string, notificationId: string): TableKey => ({
  pk: `NOTIFICATION#${appId}#${store}#${notificationId}`,
  sk: 'NOTIFICATION',
});
export const revenue = (appId: string, day: string, productId: string, currency: string): TableKey => ({
  pk: `REV#${appId}#${day.slice(0, 7)}`,
  sk: `${day}#${productId}#${currency}`,
});
export const revenueMonth = (appId: string, month: string) => `REV#${appId}#${month}`;
export const fxRate = (toCurrency: string, day: string, fromCurrency: string): TableKey => ({
  pk: `FX#${toCurrency}#${day.slice(0, 7)}`,
  sk: `${day}#${fromCurrency}`,
});
export const fxMonth = (toCurrency: string, month: string) => `FX#${toCurrency}#${month}`;
export const outbox = (eventId: string): TableKey => ({ pk: `OUTBOX#${eventId}`, sk: 'OUTBOX' });
export const webhook = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'WEBHOOK' });
export const segments = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'SEGMENTS' });
/** The app's entitlement definitions: one item, so a put replaces the whole set at once. */
export const entitlements = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'ENTITLEMENTS' });
export const adsConfig = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'ADS' });
/** The app's offerings and placements: one item, so a put replaces them at once. */
export const offerings = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'OFFERINGS' });
/** The app's paywall and guide page bundles, each at its current version: one item. */
export const paywalls = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'PAYWALLS' });
/** The app's remote switches: one item. */
export const remoteSwitches = (appId: string): TableKey => ({ pk: `APP#${appId}`, sk: 'SWITCHES' });
export const storeSettings = (appId: string, store: string): TableKey => ({ pk: `APP#${appId}`, sk: `STORE#${store}` });
export const delivery = (eventId: string): TableKey => ({ pk: `DELIVERY#${eventId}`, sk: 'DELIVERY' });
export const checkpoint = (job: string): TableKey => ({ pk: `CHECKPOINT#${job}`, sk: 'CHECKPOINT' });
/** The key set Google publishes at this URL for its Pub/Sub push tokens, as a function last fetched it. */
export const googleOidcKeys = (jwksUrl: string): TableKey => ({ pk: `GOOGLE_KEYS#${jwksUrl}`, sk: 'KEYS' });
/** The app's budget of outbound calls to a store (lib/domain/store-call-budget.ts). */
export const storeCallBudget = (appId: string, store: string): TableKey => ({
  pk: `STOREBUDGET#${appId}#${store}`,
  sk: 'BUDGET',
});
/** A purchase token or receipt (by its hash) the store said it does not know, until the item's `until`. */
export const unknownToStore = (appId: string, store: string, subjectHash: string): TableKey => ({
  pk: `STOREMISS#${appId}#${store}#${subjectHash}`,
  sk: 'MISS',
});
export const userProfile = (appId: string, userId: string): TableKey => ({
  pk: `USER#${appId}#${userId}`,
  sk: 'PROFILE',
});
/**
 * Items of their own, next to the profile, that event batches update: an update is billed at the
 * size of the whole item, and the profile may hold kilobytes the events never change.
 */
export const userActivity = (appId: string, userId: string): TableKey => ({
  pk: `USER#${appId}#${userId}`,
  sk: 'ACTIVITY',
});
export const userFeatures = (appId: string, userId: string): TableKey => ({
  pk: `USER#${appId}#${userId}`,
  sk: 'FEATURES',
});
/** Partition of the subscriptionsOfUser index. */
export const userSubscriptions = (appId: string, userId: string): string => `${appId}#${userId}`;
