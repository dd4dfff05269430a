/**
 * App Store Server Notifications V2 decoded (lib/stores/app-store-notifications.ts): one row per
 * notification type and subtype Apple documents, signed by the stand-in chain, with the
 * StoreNotification each gives; the refusals; and Apple's real sandbox notification, whose inner
 * transaction and renewal info Apple signed.
 */
import { createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Environment,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import { describe, expect, it } from 'vitest';
import type { StoreNotification, StorePurchaseState } from '../../lib/domain/store-purchase.js';
import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { APPLE_ROOT_CA_G3 } from '../../lib/stores/app-store.js';
import {
  decodeAppStoreNotification,
  decodeAppStorePurchaseState,
  verifyAppStoreNotification,
} from '../../lib/stores/app-store-notifications.js';
import {
  appStoreNotificationBody,
  appStoreNotificationPayload,
  appStoreRenewalInfo,
  NOTIFY_APP_APPLE_ID,
  NOTIFY_BUNDLE,
  type NotificationParts,
} from '../support/app-store-notifications.js';
import { STAND_IN_ROOT, signedByStandIn } from '../support/app-store-standin.js';
import { appErrorThrownBy } from '../support/assertions.js';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const SANDBOX_APP = { bundleId: NOTIFY_BUNDLE, environment: 'Sandbox' } as const;
const PRODUCTION_APP = { bundleId: NOTIFY_BUNDLE, environment: 'Production', appAppleId: NOTIFY_APP_APPLE_ID } as const;
const ROOTS = [STAND_IN_ROOT];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The notification's signedDate (the stand-in certificates are valid from 2026-11-23). */
const SENT = Date.parse('2026-12-01T00:00:00.000Z');
const UUID = '5b0a6e3c-7f0e-4b8e-9c6e-2f1d3c4b5a69';

/** The purchase's latest transaction, as Apple signs it. */
const transaction = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  transactionId: '2000000000000102',
  originalTransactionId: '2000000000000001',
  webOrderLineItemId: '2000000000000555',
  bundleId: NOTIFY_BUNDLE,
  productId: 'premium_monthly',
  subscriptionGroupIdentifier: '21289261',
  purchaseDate: SENT - HOUR,
  originalPurchaseDate: SENT - 90 * DAY,
  expiresDate: SENT - HOUR + 30 * DAY,
  quantity: 1,
  type: 'Auto-Renewable Subscription',
  inAppOwnershipType: 'PURCHASED',
  signedDate: SENT,
  environment: 'Sandbox',
  transactionReason: 'RENEWAL',
  storefront: 'USA',
  price: 9990,
  currency: 'USD',
  ...overrides,
});
const renewalInfo = (overrides: Record<string, unknown> = {}) => appStoreRenewalInfo(transaction(), overrides);

/** The state of the default transaction, as the decoder must give it. */
const STATE: StorePurchaseState = {
  store: 'app_store',
  platform: 'ios',
  environment: 'Sandbox',
  transaction_id: '2000000000000102',
  original_transaction_id: '2000000000000001',
  product_id: 'premium_monthly',
  purchase_date: '2026-11-30T23:00:00.000Z',
  expires_at: '2026-12-30T23:00:00.000Z',
  trial: false,
  price: 9.99,
  currency: 'USD',
  revoked: false,
  app_account_token: null,
  renewal: { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
  as_of: '2026-12-01T00:00:00.000Z',
};
const state = (
  overrides: Partial<StorePurchaseState>,
  renewal: Partial<NonNullable<StorePurchaseState['renewal']>> = {},
): StorePurchaseState => ({ ...STATE, ...overrides, renewal: { ...STATE.renewal!, ...renewal } });

type Row = [
  type: string,
  subtype: string | undefined,
  parts: Partial<NotificationParts>,
  expected: StorePurchaseState | null,
];
const expired = transaction({ purchaseDate: SENT - 31 * DAY, expiresDate: SENT - HOUR });
const EXPIRED_STATE = { purchase_date: '2026-10-31T00:00:00.000Z', expires_at: '2026-11-30T23:00:00.000Z' };

const ROWS: Row[] = [
  [
    'SUBSCRIBED',
    'INITIAL_BUY',
    {
      transaction: transaction({
        transactionId: '2000000000000001',
        offerType: 1,
        offerDiscountType: 'FREE_TRIAL',
        price: 0,
        expiresDate: SENT - HOUR + 7 * DAY,
      }),
      renewal: renewalInfo(),
    },
    state({ transaction_id: '2000000000000001', trial: true, price: 0, expires_at: '2026-12-07T23:00:00.000Z' }),
  ],
  ['SUBSCRIBED', 'RESUBSCRIBE', { transaction: transaction(), renewal: renewalInfo() }, STATE],
  [
    'DID_CHANGE_RENEWAL_PREF',
    'UPGRADE',
    {
      transaction: transaction({ productId: 'premium_yearly', price: 99990, expiresDate: SENT - HOUR + 365 * DAY }),
      renewal: renewalInfo({ productId: 'premium_yearly', autoRenewProductId: 'premium_yearly' }),
    },
    state({ product_id: 'premium_yearly', price: 99.99, expires_at: '2027-11-30T23:00:00.000Z' }),
  ],
  [
    'DID_CHANGE_RENEWAL_PREF',
    'DOWNGRADE',
    { transaction: transaction(), renewal: renewalInfo({ autoRenewProductId: 'premium_basic' }) },
    state({}, { renewal_product_id: 'premium_basic' }),
  ],
  ['DID_CHANGE_RENEWAL_PREF', undefined, { transaction: transaction(), renewal: renewalInfo() }, STATE],
  [
    'DID_CHANGE_RENEWAL_STATUS',
    'AUTO_RENEW_ENABLED',
    { transaction: transaction(), renewal: renewalInfo({ autoRenewStatus: 1 }) },
    STATE,
  ],
  [
    'DID_CHANGE_RENEWAL_STATUS',
    'AUTO_RENEW_DISABLED',
    { transaction: transaction(), renewal: renewalInfo({ autoRenewStatus: 0 }) },
    state({}, { auto_renew: false }),
  ],
  [
    'DID_FAIL_TO_RENEW',
    'GRACE_PERIOD',
    {
      transaction: expired,
      renewal: renewalInfo({ isInBillingRetryPeriod: true, gracePeriodExpiresDate: SENT - HOUR + 6 * DAY }),
    },
    state(EXPIRED_STATE, { billing_issue: true, grace_period_expires_at: '2026-12-06T23:00:00.000Z' }),
  ],
  [
    'DID_FAIL_TO_RENEW',
    undefined,
    { transaction: expired, renewal: renewalInfo({ isInBillingRetryPeriod: true }) },
    state(EXPIRED_STATE, { billing_issue: true }),
  ],
  ['DID_RENEW', undefined, { transaction: transaction(), renewal: renewalInfo() }, STATE],
  [
    'DID_RENEW',
    'BILLING_RECOVERY',
    {
      transaction: transaction({ transactionId: '2000000000000103' }),
      renewal: renewalInfo({ isInBillingRetryPeriod: false, gracePeriodExpiresDate: SENT - 2 * DAY }),
    },
    state({ transaction_id: '2000000000000103' }, { grace_period_expires_at: '2026-11-29T00:00:00.000Z' }),
  ],
  [
    'EXPIRED',
    'VOLUNTARY',
    { transaction: expired, renewal: renewalInfo({ autoRenewStatus: 0, expirationIntent: 1 }) },
    state(EXPIRED_STATE, { auto_renew: false }),
  ],
  [
    'EXPIRED',
    'BILLING_RETRY',
    // Billing retry ended: Apple still says the subscriber wanted it renewed; it will not be.
    {
      transaction: expired,
      renewal: renewalInfo({ autoRenewStatus: 1, expirationIntent: 2, isInBillingRetryPeriod: false }),
    },
    state(EXPIRED_STATE, { auto_renew: false }),
  ],
  [
    'EXPIRED',
    'PRICE_INCREASE',
    { transaction: expired, renewal: renewalInfo({ autoRenewStatus: 0, expirationIntent: 3, priceIncreaseStatus: 0 }) },
    state(EXPIRED_STATE, { auto_renew: false }),
  ],
  [
    'EXPIRED',
    'PRODUCT_NOT_FOR_SALE',
    { transaction: expired, renewal: renewalInfo({ autoRenewStatus: 1, expirationIntent: 4 }) },
    state(EXPIRED_STATE, { auto_renew: false }),
  ],
  [
    'EXTERNAL_PURCHASE_TOKEN',
    'UNREPORTED',
    {
      data: undefined,
      extra: {
        externalPurchaseToken: {
          externalPurchaseId: 'SANDBOX_b2f4-4c9a',
          tokenCreationDate: SENT - DAY,
          appAppleId: NOTIFY_APP_APPLE_ID,
          bundleId: NOTIFY_BUNDLE,
        },
      },
    },
    null,
  ],
  [
    'GRACE_PERIOD_EXPIRED',
    undefined,
    // The grace period is over, billing retry goes on: access ends, the billing issue stays.
    {
      transaction: expired,
      renewal: renewalInfo({ isInBillingRetryPeriod: true, gracePeriodExpiresDate: SENT - 60_000 }),
    },
    state(EXPIRED_STATE, {
      auto_renew: false,
      billing_issue: true,
      grace_period_expires_at: '2026-11-30T23:59:00.000Z',
    }),
  ],
  [
    'OFFER_REDEEMED',
    'UPGRADE',
    {
      transaction: transaction({
        productId: 'premium_yearly',
        offerType: 2,
        offerDiscountType: 'PAY_UP_FRONT',
        price: 49990,
      }),
      renewal: renewalInfo({ productId: 'premium_yearly', autoRenewProductId: 'premium_yearly' }),
    },
    state({ product_id: 'premium_yearly', price: 49.99 }),
  ],
  [
    'OFFER_REDEEMED',
    'DOWNGRADE',
    {
      transaction: transaction({ offerType: 3, offerDiscountType: 'PAY_AS_YOU_GO', price: 4990 }),
      renewal: renewalInfo({ autoRenewProductId: 'premium_basic', offerType: 3 }),
    },
    state({ price: 4.99 }, { renewal_product_id: 'premium_basic' }),
  ],
  [
    'OFFER_REDEEMED',
    undefined,
    {
      transaction: transaction({ offerType: 1, offerDiscountType: 'FREE_TRIAL', price: 0 }),
      renewal: renewalInfo({ offerType: 1 }),
    },
    state({ trial: true, price: 0 }),
  ],
  [
    'ONE_TIME_CHARGE',
    undefined,
    // A consumable: no expiresDate, nothing to follow.
    {
      transaction: transaction({ productId: 'coins_100', type: 'Consumable', expiresDate: undefined, price: 990 }),
    },
    null,
  ],
  [
    'PRICE_INCREASE',
    'PENDING',
    { transaction: transaction(), renewal: renewalInfo({ priceIncreaseStatus: 0, renewalPrice: 12990 }) },
    STATE,
  ],
  [
    'PRICE_INCREASE',
    'ACCEPTED',
    { transaction: transaction(), renewal: renewalInfo({ priceIncreaseStatus: 1, renewalPrice: 12990 }) },
    STATE,
  ],
  [
    'REFUND',
    undefined,
    {
      transaction: transaction({ revocationDate: SENT - 60_000, revocationReason: 0 }),
      renewal: renewalInfo({ autoRenewStatus: 0 }),
    },
    state({ revoked: true }, { auto_renew: false }),
  ],
  // A declined refund changes nothing; its transaction may be an earlier period's.
  ['REFUND_DECLINED', undefined, { transaction: transaction(), renewal: renewalInfo() }, null],
  // The one notification that gives a refunded purchase its access back, and says so.
  [
    'REFUND_REVERSED',
    undefined,
    { transaction: transaction(), renewal: renewalInfo() },
    { ...STATE, refund_reversed: true },
  ],
  [
    'RENEWAL_EXTENDED',
    undefined,
    { transaction: transaction({ expiresDate: SENT - HOUR + 37 * DAY }), renewal: renewalInfo() },
    state({ expires_at: '2027-01-06T23:00:00.000Z' }),
  ],
  [
    'RENEWAL_EXTENSION',
    'SUMMARY',
    {
      data: undefined,
      extra: {
        summary: {
          requestIdentifier: '7c4d1e0a-3c1b-4f8e-9d2a-6b5e4f3a2c1d',
          environment: 'Sandbox',
          bundleId: NOTIFY_BUNDLE,
          productId: 'premium_monthly',
          storefrontCountryCodes: ['USA'],
          failedCount: 0,
          succeededCount: 3,
        },
      },
    },
    null,
  ],
  ['RENEWAL_EXTENSION', 'FAILURE', { transaction: transaction(), renewal: renewalInfo() }, STATE],
  [
    'REVOKE',
    undefined,
    // Family Sharing ended for this member.
    {
      transaction: transaction({
        inAppOwnershipType: 'FAMILY_SHARED',
        revocationDate: SENT - 60_000,
        revocationReason: 0,
      }),
      renewal: renewalInfo(),
    },
    // A member pays nothing: revoking its access takes no money back.
    state({ revoked: true, price: 0 }),
  ],
  ['TEST', undefined, {}, null],
  // Apple asks for consumption data about a refund request: nothing changes yet.
  ['CONSUMPTION_REQUEST', undefined, { transaction: transaction(), renewal: renewalInfo() }, null],
  // Advanced Commerce API notifications carry the subscription's transaction too.
  ['METADATA_UPDATE', undefined, { transaction: transaction(), renewal: renewalInfo() }, STATE],
  ['MIGRATION', undefined, { transaction: transaction(), renewal: renewalInfo() }, STATE],
  ['PRICE_CHANGE', undefined, { transaction: transaction(), renewal: renewalInfo() }, STATE],
  [
    'RESCIND_CONSENT',
    undefined,
    { data: undefined, extra: { appData: { bundleId: NOTIFY_BUNDLE, environment: 'Sandbox' } } },
    null,
  ],
  // A type Apple adds later: recorded as sent, nothing guessed.
  ['SOMETHING_NEW', 'SOMEHOW', { transaction: transaction(), renewal: renewalInfo() }, null],
];

const decode = (parts: NotificationParts, app: Parameters<typeof decodeAppStoreNotification>[1] = SANDBOX_APP) =>
  decodeAppStoreNotification(appStoreNotificationBody(parts), app, ROOTS);

describe('App Store notifications: every type and subtype', () => {
  it.each(ROWS)('%s %s', async (type, subtype, parts, expected) => {
    const notification: StoreNotification = decodeAppStoreNotification(
      appStoreNotificationBody({ type, subtype, notificationUUID: UUID, signedDate: SENT, ...parts }),
      SANDBOX_APP,
      ROOTS,
    );
    expect(notification).toEqual({
      store: 'app_store',
      notification_id: UUID,
      type,
      subtype: subtype ?? null,
      environment: 'Sandbox',
      sent_at: '2026-12-01T00:00:00.000Z',
      state: expected,
    });
  });

  it.each([
    ['a chain of two certificates', ['MIIB', 'MIIB']],
    ['a chain of three that are no certificates', ['bm90', 'YQ', 'Yg']],
  ])("%s: the certificate chain is not Apple's", async (_case, x5c) => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const genuine = appStoreNotificationBody({ type: 'TEST', notificationUUID: UUID, signedDate: SENT });
    const [, payload, signature] = genuine.signedPayload.split('.');
    const signedPayload = `${part({ alg: 'ES256', x5c })}.${payload}.${signature}`;
    expect(appErrorThrownBy(() => decodeAppStoreNotification({ signedPayload }, SANDBOX_APP, ROOTS))).toMatchObject({
      code: 'INVALID_NOTIFICATION',
      message: "App Store notification rejected: its signed payload: the certificate chain is not Apple's",
    });
  });

  it('verified before any app is known: the purchase it is about, then held against each app', () => {
    const body = appStoreNotificationBody({
      type: 'DID_RENEW',
      notificationUUID: UUID,
      signedDate: SENT,
      transaction: transaction(),
      renewal: renewalInfo(),
    });
    const signed = verifyAppStoreNotification(body, ROOTS);
    expect({ store: signed.store, notification_id: signed.notification_id, state: signed.state }).toEqual({
      store: 'app_store',
      notification_id: UUID,
      state: STATE,
    });
    expect(signed.forApp(SANDBOX_APP)).toEqual(decodeAppStoreNotification(body, SANDBOX_APP, ROOTS));
    // A Production app takes Sandbox; another bundle, or a Sandbox app for Production, does not.
    expect(signed.forApp({ bundleId: NOTIFY_BUNDLE, environment: 'Production' }).environment).toBe('Sandbox');
    expect(
      appErrorThrownBy(() => signed.forApp({ bundleId: 'com.example.other', environment: 'Sandbox' })),
    ).toMatchObject({
      code: 'INVALID_NOTIFICATION',
      message:
        'App Store notification rejected: its signed payload: it belongs to another app (bundle id, app Apple id or purchase)',
    });
  });

  it('of an environment no app takes: no purchase to read ahead, and every app refuses it', () => {
    const signed = verifyAppStoreNotification(
      appStoreNotificationBody({
        type: 'DID_RENEW',
        environment: 'Xcode',
        notificationUUID: UUID,
        signedDate: SENT,
        transaction: transaction({ environment: 'Xcode' }),
      }),
      ROOTS,
    );
    expect(signed.state).toBeNull();
    for (const environment of ['Sandbox', 'Production'] as const)
      expect(appErrorThrownBy(() => signed.forApp({ bundleId: NOTIFY_BUNDLE, environment }))).toMatchObject({
        code: 'INVALID_NOTIFICATION',
        message: 'App Store notification rejected: its signed payload: it belongs to another environment',
      });
  });

  it('takes the body as JSON text too, as API Gateway hands it over', () => {
    const body = appStoreNotificationBody({ type: 'TEST', notificationUUID: UUID, signedDate: SENT });
    expect(decodeAppStoreNotification(JSON.stringify(body), SANDBOX_APP, ROOTS)).toEqual(
      decodeAppStoreNotification(body, SANDBOX_APP, ROOTS),
    );
  });

  it('a renewal notification without renewal info still brings the transaction (renewal unknown)', () => {
    expect(decode({ type: 'DID_RENEW', signedDate: SENT, transaction: transaction() }).state).toEqual({
      ...STATE,
      renewal: null,
    });
  });

  it('a grace period still running at signedDate is a billing issue, even without the retry flag', () => {
    const renewal = renewalInfo({ gracePeriodExpiresDate: SENT + DAY });
    expect(
      decode({ type: 'DID_FAIL_TO_RENEW', signedDate: SENT, transaction: expired, renewal }).state?.renewal,
    ).toEqual({
      auto_renew: true,
      renewal_product_id: null,
      billing_issue: true,
      grace_period_expires_at: '2026-12-02T00:00:00.000Z',
    });
    // GRACE_PERIOD_EXPIRED without billing retry (the subscriber cancelled meanwhile): no billing issue.
    const over = renewalInfo({ gracePeriodExpiresDate: SENT - 60_000, isInBillingRetryPeriod: false });
    expect(
      decode({ type: 'GRACE_PERIOD_EXPIRED', signedDate: SENT, transaction: expired, renewal: over }).state?.renewal
        ?.billing_issue,
    ).toBe(false);
    // At the moment it ends, the grace period runs no more.
    const ending = renewalInfo({ gracePeriodExpiresDate: SENT, isInBillingRetryPeriod: false });
    expect(
      decode({ type: 'DID_FAIL_TO_RENEW', signedDate: SENT, transaction: expired, renewal: ending }).state?.renewal
        ?.billing_issue,
    ).toBe(false);
  });

  it('a date no Date can hold is not Apple’s: refused', () => {
    const beyond = renewalInfo({ gracePeriodExpiresDate: 8.64e15 + 1 });
    expect(
      appErrorThrownBy(() =>
        decode({ type: 'DID_FAIL_TO_RENEW', signedDate: SENT, transaction: expired, renewal: beyond }),
      ),
    ).toMatchObject({
      code: 'INVALID_NOTIFICATION',
      message: 'App Store notification rejected: it carries a date out of range',
    });
  });
});

describe('App Store notifications: environments', () => {
  it('a Production app takes Production notifications (with its app Apple id) and Sandbox ones (App Review)', () => {
    const production = decode(
      {
        type: 'DID_RENEW',
        environment: 'Production',
        signedDate: SENT,
        transaction: transaction({ environment: 'Production' }),
        renewal: renewalInfo({ environment: 'Production' }),
      },
      PRODUCTION_APP,
    );
    expect(production.environment).toBe('Production');
    expect(production.state).toEqual({ ...STATE, environment: 'Production' });
    const sandbox = decode(
      { type: 'DID_RENEW', signedDate: SENT, transaction: transaction(), renewal: renewalInfo() },
      PRODUCTION_APP,
    );
    expect(sandbox.environment).toBe('Sandbox');
    expect(sandbox.state).toEqual(STATE);
  });

  it('a Sandbox app refuses Production notifications; no app takes Xcode ones', () => {
    for (const [environment, app] of [
      ['Production', SANDBOX_APP],
      ['Xcode', SANDBOX_APP],
      ['Xcode', PRODUCTION_APP],
      ['LocalTesting', PRODUCTION_APP],
    ] as const) {
      const error = appErrorThrownBy(() => decode({ type: 'TEST', environment, appAppleId: NOTIFY_APP_APPLE_ID }, app));
      expect(error.code).toBe('INVALID_NOTIFICATION');
      expect(error.message).toContain('another environment');
    }
  });
});

/** The same JWS with one byte of its payload changed (`from` -> `to`, the last occurrence), the signature kept. */
function tampered(jws: string, from: string, to: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const json = Buffer.from(payload, 'base64url').toString();
  const at = json.lastIndexOf(from);
  const changed = json.slice(0, at) + to + json.slice(at + from.length);
  return [header, Buffer.from(changed).toString('base64url'), signature].join('.');
}

/** The same JWS with one bit of its signature changed. */
function resigned(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  bytes[10] = bytes[10]! ^ 0x01;
  return [header, payload, bytes.toString('base64url')].join('.');
}

/** Signs with a chain of Apple's shape under a root nobody trusts (same leaf key). */
const untrustedChain = ['leaf-under-untrusted-root', 'intermediate-under-untrusted-root', 'untrusted-root'].map(
  (name) => new X509Certificate(fixture(`app-store-standin/negative/${name}.pem`)).raw.toString('base64'),
);
const leafKey = createPrivateKey(fixture('app-store-standin/leaf.p8'));
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function signedUntrusted(payload: Record<string, unknown>): string {
  const input = `${part({ alg: 'ES256', x5c: untrustedChain })}.${part(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: leafKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('App Store notifications: refusals (INVALID_NOTIFICATION, saying why)', () => {
  const renew = (parts: Partial<NotificationParts> = {}): NotificationParts => ({
    type: 'DID_RENEW',
    signedDate: SENT,
    transaction: transaction({ appAccountToken: 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A' }),
    renewal: renewalInfo(),
    ...parts,
  });
  const refusal = (body: unknown, app: Parameters<typeof decodeAppStoreNotification>[1] = SANDBOX_APP) => {
    const error = appErrorThrownBy(() => decodeAppStoreNotification(body, app, ROOTS));
    expect(error.code).toBe('INVALID_NOTIFICATION');
    expect(error.status).toBe(400);
    // Never the payload's contents: no ids, no account token.
    expect(error.message).not.toMatch(/2000000000000|B1011B47|premium/);
    return error.message;
  };

  it('one byte changed in the signed payload, or in the transaction it carries', () => {
    const body = appStoreNotificationBody(renew());
    // DID_RENEW -> DID_RENEX in the payload; one bit of the signature.
    expect(refusal({ signedPayload: tampered(body.signedPayload, 'DID_RENEW', 'DID_RENEX') })).toContain(
      'signed payload: the signature or certificate chain does not verify',
    );
    expect(refusal({ signedPayload: resigned(body.signedPayload) })).toContain('signed payload: the signature');
    // premium_monthly -> premium_monthlz in the transaction, then its signature.
    for (const change of [(jws: string) => tampered(jws, 'premium_monthly', 'premium_monthlz'), resigned]) {
      const sign = (p: Record<string, unknown>) =>
        p.notificationType || p.autoRenewStatus !== undefined ? signedByStandIn(p) : change(signedByStandIn(p));
      expect(refusal(appStoreNotificationBody(renew({ sign })))).toContain(
        'signed transaction: the signature or certificate chain does not verify',
      );
    }
  });

  it('a chain of Apple shape to another root, outside or inside', () => {
    expect(refusal(appStoreNotificationBody(renew({ sign: signedUntrusted })))).toContain(
      'signed payload: the signature or certificate chain does not verify',
    );
    const innerUntrusted = {
      signedPayload: signedByStandIn(appStoreNotificationPayload(renew({ sign: signedUntrusted }))),
    };
    expect(refusal(innerUntrusted)).toContain('signed transaction: the signature or certificate chain');
    // Trusting only Apple's real root, the stand-in's own notifications are refused.
    const error = appErrorThrownBy(() =>
      decodeAppStoreNotification(appStoreNotificationBody(renew()), SANDBOX_APP, [APPLE_ROOT_CA_G3]),
    );
    expect(error.message).toContain('signed payload: the signature or certificate chain does not verify');
  });

  it('another bundle id, another app Apple id, or none in Production', () => {
    expect(refusal(appStoreNotificationBody(renew({ bundleId: 'com.example.other' })))).toContain('another app');
    const production = (appAppleId: number | undefined) =>
      appStoreNotificationBody(
        renew({
          environment: 'Production',
          appAppleId,
          transaction: transaction({ environment: 'Production' }),
          renewal: renewalInfo({ environment: 'Production' }),
        }),
      );
    expect(refusal(production(987654321), PRODUCTION_APP)).toContain('another app');
    expect(refusal(production(undefined), PRODUCTION_APP)).toContain('another app');
    // An app Apple id in a sandbox notification must be the app's too.
    expect(refusal(appStoreNotificationBody(renew({ appAppleId: 987654321 })), PRODUCTION_APP)).toContain(
      'another app',
    );
    // A Sandbox app configured without one takes any (Apple's library checks it in Production only).
    expect(decode(renew({ appAppleId: 987654321 }), SANDBOX_APP).type).toBe('DID_RENEW');
  });

  it("an inner transaction or renewal info of another bundle, environment or purchase than the notification's", () => {
    expect(
      refusal(appStoreNotificationBody(renew({ transaction: transaction({ bundleId: 'com.example.other' }) }))),
    ).toBe(
      'App Store notification rejected: its signed transaction: it belongs to another app (bundle id, app Apple id or purchase)',
    );
    const productionInner = renew({
      transaction: transaction({ environment: 'Production' }),
      renewal: renewalInfo({ environment: 'Production' }),
    });
    expect(refusal(appStoreNotificationBody(productionInner), PRODUCTION_APP)).toContain(
      'signed transaction: it belongs to another environment',
    );
    expect(refusal(appStoreNotificationBody(renew({ renewal: renewalInfo({ environment: 'Production' }) })))).toContain(
      'signed renewal info: it belongs to another environment',
    );
    expect(
      refusal(appStoreNotificationBody(renew({ renewal: renewalInfo({ originalTransactionId: '2000000000000999' }) }))),
    ).toContain('signed renewal info: it belongs to another app');
  });

  it('malformed bodies, JSON and JWS', () => {
    const valid = appStoreNotificationBody(renew()).signedPayload;
    const [header, , signature] = valid.split('.');
    for (const [body, why] of [
      ['{"signedPayload": ', 'the body is not JSON'],
      [null, 'the body is not {"signedPayload": "<JWS>"}'],
      [[valid], 'the body is not {"signedPayload": "<JWS>"}'],
      [{ signedPayload: 42 }, 'the body is not {"signedPayload": "<JWS>"}'],
      [{ payload: valid }, 'the body is not {"signedPayload": "<JWS>"}'],
      [{ signedPayload: 'not a JWS' }, 'its signed payload is not a JWS'],
      [{ signedPayload: `${header}.bm90IEpTT04.${signature}` }, 'not signed data of the documented format'],
      [{ signedPayload: `${header}.${part([1])}.${signature}` }, 'not signed data of the documented format'],
      // Signed, but without the fields every notification has.
      [{ signedPayload: signedByStandIn({ signedDate: SENT, data: {} }) }, 'not signed data of the documented format'],
      [
        { signedPayload: signedByStandIn({ notificationType: 'TEST', notificationUUID: UUID, signedDate: '2026' }) },
        'not signed data of the documented format',
      ],
      [
        {
          signedPayload: signedByStandIn({
            notificationType: 'T'.repeat(129),
            notificationUUID: UUID,
            signedDate: SENT,
          }),
        },
        'not signed data of the documented format',
      ],
      // Signed, but for no app.
      [
        { signedPayload: signedByStandIn({ notificationType: 'TEST', notificationUUID: UUID, signedDate: SENT }) },
        'another app',
      ],
      [{ signedPayload: `${valid}.x` }, 'its signed payload is not a JWS'],
    ] as const) {
      expect(refusal(body)).toContain(why);
    }
    // The whole wording, and the cause: the verifier's rejection where there is one, none where there is not.
    const notJson = appErrorThrownBy(() => decodeAppStoreNotification('{', SANDBOX_APP, ROOTS));
    expect(notJson.message).toBe('App Store notification rejected: the body is not JSON');
    expect(notJson.cause).toBeUndefined();
    const unsigned = appErrorThrownBy(() =>
      decodeAppStoreNotification({ signedPayload: `${header}.bm90IEpTT04.${signature}` }, SANDBOX_APP, ROOTS),
    );
    expect(unsigned.cause).toMatchObject({
      rejection: 'malformed',
      message: 'App Store signed data rejected: malformed',
    });
    // A transaction that is not a signed transaction.
    const notJws = appStoreNotificationPayload(renew());
    (notJws.data as Record<string, unknown>).signedTransactionInfo = 'garbage';
    expect(refusal({ signedPayload: signedByStandIn(notJws) })).toContain('signed transaction: it is not signed data');
  });

  it(`bodies over ${MAX_NOTIFICATION_BYTES / 1024} KB, as text or parsed`, () => {
    const big = appStoreNotificationBody(renew({ extra: { padding: 'x'.repeat(MAX_NOTIFICATION_BYTES) } }));
    expect(refusal(big)).toContain('larger than 64 KB');
    expect(refusal(JSON.stringify({ signedPayload: 'a.b.c', padding: 'x'.repeat(MAX_NOTIFICATION_BYTES) }))).toContain(
      'larger than 64 KB',
    );
    // At the bound exactly, the body and the payload are read (and refused for what they are).
    const text = (bytes: number) => {
      const head = JSON.stringify({ signedPayload: 'a.b.c', padding: '' });
      return JSON.stringify({ signedPayload: 'a.b.c', padding: 'x'.repeat(bytes - head.length) });
    };
    expect(Buffer.byteLength(text(MAX_NOTIFICATION_BYTES))).toBe(MAX_NOTIFICATION_BYTES);
    expect(refusal(text(MAX_NOTIFICATION_BYTES))).toContain('not signed data of the documented format');
    expect(refusal(text(MAX_NOTIFICATION_BYTES + 1))).toContain('larger than 64 KB');
    const payloadOf = (bytes: number) => ({ signedPayload: `a.b.${'c'.repeat(bytes - 4)}` });
    expect(refusal(payloadOf(MAX_NOTIFICATION_BYTES))).toContain('not signed data of the documented format');
    expect(refusal(payloadOf(MAX_NOTIFICATION_BYTES + 1))).toContain('larger than 64 KB');
    // Just under the bound is read.
    const near = appStoreNotificationBody(renew({ extra: { padding: 'x'.repeat(38 * 1024) } }));
    expect(near.signedPayload.length).toBeGreaterThan(60 * 1024);
    expect(near.signedPayload.length).toBeLessThanOrEqual(MAX_NOTIFICATION_BYTES);
    expect(decodeAppStoreNotification(near, SANDBOX_APP, ROOTS).type).toBe('DID_RENEW');
  });
});

describe("App Store notifications: the signed payload, ours against Apple's library (verifyAndDecodeNotification)", () => {
  type Outcome = { accepted: true } | { accepted: false; reason: string };
  type App = { bundleId: string; environment: 'Sandbox' | 'Production'; appAppleId?: number };
  async function apple(signedPayload: string, app: App): Promise<Outcome> {
    const verifier = new SignedDataVerifier(
      [STAND_IN_ROOT.raw],
      false,
      app.environment === 'Sandbox' ? Environment.SANDBOX : Environment.PRODUCTION,
      app.bundleId,
      app.appAppleId,
    );
    try {
      await verifier.verifyAndDecodeNotification(signedPayload);
      return { accepted: true };
    } catch (error) {
      if (!(error instanceof VerificationException)) throw error;
      const reasons: Partial<Record<VerificationStatus, string>> = {
        [VerificationStatus.VERIFICATION_FAILURE]: 'chain or signature',
        [VerificationStatus.INVALID_APP_IDENTIFIER]: 'app',
        [VerificationStatus.INVALID_ENVIRONMENT]: 'environment',
        [VerificationStatus.INVALID_CERTIFICATE]: 'certificate',
      };
      return { accepted: false, reason: reasons[error.status] ?? `status ${error.status}` };
    }
  }
  function ours(signedPayload: string, app: App): Outcome {
    try {
      decodeAppStoreNotification({ signedPayload }, app, ROOTS);
      return { accepted: true };
    } catch (error) {
      const message = (error as Error).message;
      const reason = [
        ['the signature or certificate chain does not verify', 'chain or signature'],
        ['another app', 'app'],
        ['another environment', 'environment'],
        ["not Apple's", 'certificate'],
      ].find(
        ([text]) =>
          message.startsWith('App Store notification rejected: its signed payload:') && message.includes(text!),
      )?.[1];
      return { accepted: false, reason: reason ?? message };
    }
  }
  const production = { type: 'TEST', environment: 'Production' } as const;
  const CASES: [string, NotificationParts, App, Outcome][] = [
    ['a sandbox TEST', { type: 'TEST' }, SANDBOX_APP, { accepted: true }],
    [
      'a sandbox DID_RENEW',
      { type: 'DID_RENEW', transaction: transaction(), renewal: renewalInfo() },
      SANDBOX_APP,
      { accepted: true },
    ],
    ['a production TEST', production, PRODUCTION_APP, { accepted: true }],
    [
      'another bundle',
      { type: 'TEST', bundleId: 'com.example.other' },
      SANDBOX_APP,
      { accepted: false, reason: 'app' },
    ],
    [
      'another app Apple id',
      { ...production, appAppleId: 987654321 },
      PRODUCTION_APP,
      { accepted: false, reason: 'app' },
    ],
    [
      'no app Apple id in Production',
      { ...production, appAppleId: undefined },
      PRODUCTION_APP,
      { accepted: false, reason: 'app' },
    ],
    ['Production for a Sandbox app', production, SANDBOX_APP, { accepted: false, reason: 'environment' }],
    [
      'Xcode for a Sandbox app',
      { type: 'TEST', environment: 'Xcode' },
      SANDBOX_APP,
      { accepted: false, reason: 'environment' },
    ],
    [
      'a renewal extension summary',
      {
        type: 'RENEWAL_EXTENSION',
        subtype: 'SUMMARY',
        data: undefined,
        extra: { summary: { bundleId: NOTIFY_BUNDLE, environment: 'Sandbox' } },
      },
      SANDBOX_APP,
      { accepted: true },
    ],
    [
      'a sandbox external purchase token',
      {
        type: 'EXTERNAL_PURCHASE_TOKEN',
        data: undefined,
        extra: { externalPurchaseToken: { bundleId: NOTIFY_BUNDLE, externalPurchaseId: 'SANDBOX_1' } },
      },
      SANDBOX_APP,
      { accepted: true },
    ],
    [
      'a production external purchase token for a Production app',
      {
        type: 'EXTERNAL_PURCHASE_TOKEN',
        data: undefined,
        extra: {
          externalPurchaseToken: {
            bundleId: NOTIFY_BUNDLE,
            appAppleId: NOTIFY_APP_APPLE_ID,
            externalPurchaseId: 'b2f4',
          },
        },
      },
      PRODUCTION_APP,
      { accepted: true },
    ],
    [
      'a production external purchase token for a Sandbox app',
      {
        type: 'EXTERNAL_PURCHASE_TOKEN',
        data: undefined,
        extra: { externalPurchaseToken: { bundleId: NOTIFY_BUNDLE, externalPurchaseId: 'b2f4' } },
      },
      SANDBOX_APP,
      { accepted: false, reason: 'environment' },
    ],
    [
      'app data (RESCIND_CONSENT)',
      {
        type: 'RESCIND_CONSENT',
        data: undefined,
        extra: { appData: { bundleId: NOTIFY_BUNDLE, environment: 'Sandbox' } },
      },
      SANDBOX_APP,
      { accepted: true },
    ],
    [
      'a chain to another root',
      { type: 'TEST', sign: signedUntrusted },
      SANDBOX_APP,
      { accepted: false, reason: 'chain or signature' },
    ],
    [
      'signed before the certificates were valid',
      { type: 'TEST', signedDate: Date.parse('2026-11-01T00:00:00Z') },
      SANDBOX_APP,
      { accepted: false, reason: 'certificate' },
    ],
  ];

  it.each(CASES)('%s: both judge it alike', async (_name, parts, app, expected) => {
    const { signedPayload } = appStoreNotificationBody({ signedDate: SENT, ...parts });
    expect(await apple(signedPayload, app)).toEqual(expected);
    expect(ours(signedPayload, app)).toEqual(expected);
  });

  it('both refuse a changed byte; only ours takes a sandbox notification in a Production app (App Review)', async () => {
    const { signedPayload } = appStoreNotificationBody({ type: 'TEST', signedDate: SENT });
    const changed = tampered(signedPayload, 'TEST', 'TESU');
    expect(await apple(changed, SANDBOX_APP)).toEqual({ accepted: false, reason: 'chain or signature' });
    expect(ours(changed, SANDBOX_APP)).toEqual({ accepted: false, reason: 'chain or signature' });
    // Apple's verifier is for one environment: a server follows both with two of them, as ours does in one.
    expect(await apple(signedPayload, PRODUCTION_APP)).toEqual({ accepted: false, reason: 'app' });
    expect(ours(signedPayload, PRODUCTION_APP)).toEqual({ accepted: true });
  });
});

describe("App Store notifications: Apple's real sandbox notification", () => {
  /** Decoded by Apple's tooling; its signedTransactionInfo and signedRenewalInfo are Apple's own JWS. */
  const REAL = JSON.parse(fixture('apple/sandbox-notification-subscribed-payload.json').toString()) as Record<
    string,
    unknown
  >;
  // Re-signed by the stand-in chain, dated within its certificates; the inner JWS stay Apple's,
  // judged at their own signedDate (2023-03-27) against Apple Root CA G3.
  const body = { signedPayload: signedByStandIn({ ...REAL, signedDate: SENT }) };
  const EXPECTED: StoreNotification = {
    store: 'app_store',
    notification_id: 'f8ac20ef-e972-4465-80c4-3170f9882aff',
    type: 'SUBSCRIBED',
    subtype: 'RESUBSCRIBE',
    environment: 'Sandbox',
    sent_at: '2026-12-01T00:00:00.000Z',
    state: {
      store: 'app_store',
      platform: 'ios',
      environment: 'Sandbox',
      transaction_id: '2000000302596403',
      original_transaction_id: '2000000302178785',
      product_id: 'com.app.qysmat.premium.child.individual.subscription',
      purchase_date: '2023-03-27T06:47:22.000Z',
      expires_at: '2023-03-27T06:52:22.000Z',
      trial: false,
      price: null,
      currency: null,
      revoked: false,
      app_account_token: null,
      renewal: { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
      as_of: '2026-12-01T00:00:00.000Z',
    },
  };

  it('verifies the inner JWS against the real Apple root, for com.app.qysmat in Sandbox and in Production', () => {
    const roots = [STAND_IN_ROOT, APPLE_ROOT_CA_G3];
    expect(decodeAppStoreNotification(body, { bundleId: 'com.app.qysmat', environment: 'Sandbox' }, roots)).toEqual(
      EXPECTED,
    );
    // App Review's case: a Production app takes it; Apple sent no app Apple id from the sandbox.
    expect(
      decodeAppStoreNotification(body, { bundleId: 'com.app.qysmat', environment: 'Production', appAppleId: 1 }, roots),
    ).toEqual(EXPECTED);
  });

  it('its inner JWS alone, as the App Store Server API answers them, go through Apple Root CA - G3 by default', () => {
    const data = REAL.data as Record<string, string>;
    const signed = { signedTransactionInfo: data.signedTransactionInfo!, signedRenewalInfo: data.signedRenewalInfo! };
    const asOf = Date.parse('2023-03-27T06:48:20.000Z');
    expect(decodeAppStorePurchaseState(signed, { bundleId: 'com.app.qysmat', environment: 'Sandbox' }, asOf)).toEqual({
      ...EXPECTED.state,
      as_of: '2023-03-27T06:48:20.000Z',
    });
    const production = appErrorThrownBy(() =>
      decodeAppStorePurchaseState(signed, { bundleId: 'com.app.qysmat', environment: 'Production' }, asOf, undefined, {
        source: 'status',
      }),
    );
    expect(production.message).toBe(
      'App Store status rejected: its signed transaction: it belongs to another environment',
    );
  });

  it("refuses it without Apple's root, for another bundle, or with a byte of Apple's transaction changed", () => {
    const inner = appErrorThrownBy(() =>
      decodeAppStoreNotification(body, { bundleId: 'com.app.qysmat', environment: 'Sandbox' }, [STAND_IN_ROOT]),
    );
    expect(inner.message).toContain('signed transaction: the signature or certificate chain does not verify');
    const other = appErrorThrownBy(() =>
      decodeAppStoreNotification(body, { bundleId: 'com.example.other', environment: 'Sandbox' }, [
        STAND_IN_ROOT,
        APPLE_ROOT_CA_G3,
      ]),
    );
    expect(other.message).toContain('signed payload: it belongs to another app');
    const data = REAL.data as Record<string, string>;
    for (const field of ['signedTransactionInfo', 'signedRenewalInfo']) {
      const changed = { ...REAL, signedDate: SENT, data: { ...data, [field]: tampered(data[field]!, '1', '2') } };
      const error = appErrorThrownBy(() =>
        decodeAppStoreNotification(
          { signedPayload: signedByStandIn(changed) },
          { bundleId: 'com.app.qysmat', environment: 'Sandbox' },
          [STAND_IN_ROOT, APPLE_ROOT_CA_G3],
        ),
      );
      expect(error.code).toBe('INVALID_NOTIFICATION');
    }
  });
});
