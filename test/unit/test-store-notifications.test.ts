import { sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import type { StoreNotification, StorePurchaseState } from '../../lib/domain/store-purchase.js';
import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { newTestStoreKeys, signTestStoreJws, type TestTransaction } from '../../lib/stores/test-store.js';
import {
  decodeTestStoreNotification,
  isTestNotificationType,
  type KnownTestPurchase,
  latestTestTransaction,
  mintTestNotification,
  TEST_NOTIFICATION_TYPES,
  type TestNotificationRequest,
  type TestNotificationType,
} from '../../lib/stores/test-store-notifications.js';

const APP = 'app_00000000000000aa';
const OTHER = 'app_00000000000000bb';
const keys = newTestStoreKeys();
const otherKeys = newTestStoreKeys();
const NOW = new Date('2026-05-01T10:00:00.000Z');
const AT_NOW = NOW.toISOString();

const LATEST: TestTransaction = {
  transactionId: 'test_latest',
  originalTransactionId: 'test_original',
  productId: 'premium_monthly',
  platform: 'ios',
  purchaseDate: new Date('2026-04-15T10:00:00.000Z'),
  expiresDate: new Date('2026-05-15T10:00:00.000Z'),
  price: 9.99,
  currency: 'USD',
  trial: false,
  appAccountToken: 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A',
};

const mintRequest = (type: TestNotificationType, overrides: Partial<TestNotificationRequest> = {}) => ({
  appId: APP,
  privateKeyPem: keys.privateKeyPem,
  type,
  latest: LATEST,
  autoRenew: true,
  product: type === 'product_changed' ? { productId: 'pro_yearly', price: 59.99, currency: 'EUR' } : undefined,
  now: NOW,
  ...overrides,
});
const mint = (type: TestNotificationType, overrides: Partial<TestNotificationRequest> = {}) =>
  mintTestNotification(mintRequest(type, overrides));
const decode = (body: unknown, appId = APP, publicKeyPem = keys.publicKeyPem) =>
  decodeTestStoreNotification(body, appId, publicKeyPem);

function refusalOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('INVALID_NOTIFICATION');
    return error as AppError;
  }
  throw new Error('expected INVALID_NOTIFICATION, nothing was thrown');
}

/** The latest transaction as a decoded state reads it. */
const LATEST_STATE = {
  store: 'test_store',
  platform: 'ios',
  environment: 'Test',
  transaction_id: 'test_latest',
  original_transaction_id: 'test_original',
  product_id: 'premium_monthly',
  purchase_date: '2026-04-15T10:00:00.000Z',
  expires_at: '2026-05-15T10:00:00.000Z',
  trial: false,
  price: 9.99,
  currency: 'USD',
  revoked: false,
  app_account_token: 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A',
} as const;
/** A renewal: a new transaction of the same purchase, bought now. */
const NEW_TRANSACTION = {
  ...LATEST_STATE,
  transaction_id: expect.stringMatching(/^test_[0-9a-f]{20}$/),
  purchase_date: AT_NOW,
};
const RENEWING = { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null };

const EXPECTED: Record<
  TestNotificationType,
  { type: string; subtype: string | null; state: Omit<StorePurchaseState, 'as_of'> }
> = {
  renewed: {
    type: 'DID_RENEW',
    subtype: null,
    // The new period follows the current one (to 2026-05-15): 30 days after it.
    state: { ...NEW_TRANSACTION, expires_at: '2026-06-14T10:00:00.000Z', renewal: RENEWING },
  },
  auto_renew_off: {
    type: 'DID_CHANGE_RENEWAL_STATUS',
    subtype: 'AUTO_RENEW_DISABLED',
    state: { ...LATEST_STATE, renewal: { ...RENEWING, auto_renew: false } },
  },
  auto_renew_on: {
    type: 'DID_CHANGE_RENEWAL_STATUS',
    subtype: 'AUTO_RENEW_ENABLED',
    state: { ...LATEST_STATE, renewal: RENEWING },
  },
  billing_issue: {
    type: 'DID_FAIL_TO_RENEW',
    subtype: 'GRACE_PERIOD',
    // The renewal failed when the period ended: access lasts only to the end of the grace period.
    state: {
      ...LATEST_STATE,
      expires_at: AT_NOW,
      renewal: { ...RENEWING, billing_issue: true, grace_period_expires_at: '2026-05-17T10:00:00.000Z' },
    },
  },
  grace_period_expired: {
    type: 'GRACE_PERIOD_EXPIRED',
    subtype: null,
    state: { ...LATEST_STATE, expires_at: AT_NOW, renewal: { ...RENEWING, billing_issue: true } },
  },
  billing_recovered: {
    type: 'DID_RENEW',
    subtype: 'BILLING_RECOVERY',
    state: { ...NEW_TRANSACTION, expires_at: '2026-06-14T10:00:00.000Z', renewal: RENEWING },
  },
  expired: {
    type: 'EXPIRED',
    subtype: 'VOLUNTARY',
    state: { ...LATEST_STATE, expires_at: AT_NOW, renewal: { ...RENEWING, auto_renew: false } },
  },
  refunded: {
    type: 'REFUND',
    subtype: null,
    state: { ...LATEST_STATE, revoked: true, renewal: RENEWING },
  },
  refund_reversed: {
    type: 'REFUND_REVERSED',
    subtype: null,
    state: { ...LATEST_STATE, renewal: RENEWING, refund_reversed: true },
  },
  product_changed: {
    type: 'DID_CHANGE_RENEWAL_PREF',
    subtype: 'UPGRADE',
    state: {
      ...NEW_TRANSACTION,
      product_id: 'pro_yearly',
      price: 59.99,
      currency: 'EUR',
      expires_at: '2026-05-31T10:00:00.000Z',
      renewal: RENEWING,
    },
  },
};

describe("the purchase's latest transaction as the test store knows it (latestTestTransaction)", () => {
  // The receipt verified: the first transaction, a month to 2026-05-15.
  const RECEIPT = {
    ...LATEST_STATE,
    transaction_id: 'test_first',
    purchase_date: '2026-04-15T10:00:00.000Z',
  } as const;
  // A refund ended the subscription when it came (2026-04-20); the store's transaction still ends 2026-05-15.
  const RECORD = {
    product_id: 'premium_monthly',
    platform: 'ios',
    price: 9.99,
    currency: 'USD',
    expires_at: '2026-04-20T10:00:00.000Z',
    started_at: '2026-04-15T10:00:00.000Z',
  } as const;
  const known = (overrides: Partial<KnownTestPurchase>): KnownTestPurchase => ({
    record: RECORD,
    payment: { transaction_id: 'test_first', last_payment: '2026-04-15T10:00:00.000Z' },
    receipt: RECEIPT,
    storeState: undefined,
    ...overrides,
  });
  const FROM_RECEIPT: TestTransaction = {
    transactionId: 'test_first',
    originalTransactionId: 'test_original',
    productId: 'premium_monthly',
    platform: 'ios',
    purchaseDate: new Date('2026-04-15T10:00:00.000Z'),
    expiresDate: new Date('2026-05-15T10:00:00.000Z'),
    price: 9.99,
    currency: 'USD',
    trial: false,
    appAccountToken: LATEST.appAccountToken,
  };
  const renewalState = {
    ...LATEST_STATE,
    transaction_id: 'test_second',
    purchase_date: '2026-05-15T10:00:00.000Z',
    expires_at: '2026-06-14T10:00:00.000Z',
    price: 12.99,
    renewal: null,
    as_of: '2026-05-15T10:00:00.000Z',
  };
  const rows: [string, KnownTestPurchase, TestTransaction][] = [
    [
      "the receipt is the latest: the receipt's own period, not the subscription's (a refund ended it sooner)",
      known({}),
      FROM_RECEIPT,
    ],
    [
      'no transaction recorded besides the receipt: the receipt',
      known({ payment: { transaction_id: null, last_payment: null } }),
      FROM_RECEIPT,
    ],
    [
      "a notification's state of the latest transaction (a refund of it): that transaction's own period, unrevoked",
      known({ storeState: { ...RECEIPT, revoked: true, renewal: null, as_of: '2026-04-20T10:00:00.000Z' } }),
      FROM_RECEIPT,
    ],
    [
      "a renewal a notification recorded: the notification's transaction, at its price",
      known({
        payment: { transaction_id: 'test_second', last_payment: '2026-05-15T10:00:00.000Z' },
        storeState: renewalState,
      }),
      {
        ...FROM_RECEIPT,
        transactionId: 'test_second',
        purchaseDate: new Date('2026-05-15T10:00:00.000Z'),
        expiresDate: new Date('2026-06-14T10:00:00.000Z'),
        price: 12.99,
      },
    ],
    [
      'a trial: the subscription price stands for it',
      known({ receipt: { ...RECEIPT, trial: true, price: 0 } }),
      { ...FROM_RECEIPT, trial: true },
    ],
    [
      "a later transaction neither the receipt nor the kept state is about: the subscription's period",
      known({
        payment: { transaction_id: 'test_third', last_payment: '2026-04-18T10:00:00.000Z' },
        storeState: renewalState,
      }),
      {
        ...FROM_RECEIPT,
        transactionId: 'test_third',
        purchaseDate: new Date('2026-04-18T10:00:00.000Z'),
        expiresDate: new Date('2026-04-20T10:00:00.000Z'),
      },
    ],
    [
      'the same, never paid: from the subscription start',
      known({ payment: { transaction_id: 'test_third', last_payment: null } }),
      {
        ...FROM_RECEIPT,
        transactionId: 'test_third',
        purchaseDate: new Date('2026-04-15T10:00:00.000Z'),
        expiresDate: new Date('2026-04-20T10:00:00.000Z'),
      },
    ],
  ];
  for (const [name, purchase, latest] of rows) {
    it(name, () => expect(latestTestTransaction(purchase)).toEqual(latest));
  }
});

describe('test-store notifications: minted, then decoded as a store notification', () => {
  it.each(TEST_NOTIFICATION_TYPES)('%s', (type) => {
    const expected = EXPECTED[type];
    expect(isTestNotificationType(type)).toBe(true);
    const decoded = decodeTestStoreNotification(mintTestNotification(mintRequest(type)), APP, keys.publicKeyPem);
    expect(decoded).toEqual({
      store: 'test_store',
      notification_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: expected.type,
      subtype: expected.subtype,
      environment: 'Test',
      sent_at: AT_NOW,
      state: { ...expected.state, as_of: AT_NOW },
    } satisfies StoreNotification);
    if (expected.state.transaction_id !== 'test_latest')
      expect(decoded.state?.transaction_id).not.toBe(LATEST.transactionId);
  });

  it('knows no other type', () => {
    for (const other of ['renew', 'DID_RENEW', '', undefined, 3]) expect(isTestNotificationType(other)).toBe(false);
  });

  it('every notification has its own id; a new transaction its own transaction id', () => {
    const [a, b] = [decode(mint('renewed')), decode(mint('renewed'))];
    expect(a.notification_id).not.toBe(b.notification_id);
    expect(a.state?.transaction_id).not.toBe(b.state?.transaction_id);
  });

  it('--expires-in sets the new period (renewals, upgrades) and the grace period (billing issue)', () => {
    // A renewal's period follows the current one (to 2026-05-15); an upgrade's starts now.
    for (const type of ['renewed', 'billing_recovered'] as const) {
      expect(decode(mint(type, { expiresInSeconds: 3600 })).state?.expires_at).toBe('2026-05-15T11:00:00.000Z');
    }
    expect(decode(mint('product_changed', { expiresInSeconds: 3600 })).state?.expires_at).toBe(
      '2026-05-01T11:00:00.000Z',
    );
    expect(decode(mint('billing_issue', { expiresInSeconds: 3600 })).state?.renewal).toEqual({
      ...RENEWING,
      billing_issue: true,
      grace_period_expires_at: '2026-05-01T11:00:00.000Z',
    });
  });

  it('a renewal always ends after the current period: from its end, or from now once it has ended', () => {
    const rows: [string, string, number | undefined, string][] = [
      [
        'current period runs, a period shorter than what is left',
        '2026-05-15T10:00:00.000Z',
        60,
        '2026-05-15T10:01:00.000Z',
      ],
      ['current period runs, the default period', '2026-05-15T10:00:00.000Z', undefined, '2026-06-14T10:00:00.000Z'],
      ['current period ended (a billing issue): from now', '2026-04-30T10:00:00.000Z', 60, '2026-05-01T10:01:00.000Z'],
      ['current period ends right now: from now', AT_NOW, 60, '2026-05-01T10:01:00.000Z'],
    ];
    for (const [name, end, expiresInSeconds, renewedTo] of rows) {
      for (const type of ['renewed', 'billing_recovered'] as const) {
        const state = decode(mint(type, { latest: { ...LATEST, expiresDate: new Date(end) }, expiresInSeconds })).state;
        expect({ name, type, expires_at: state?.expires_at, paid: state?.purchase_date }).toEqual({
          name,
          type,
          expires_at: renewedTo,
          paid: AT_NOW,
        });
      }
    }
  });

  it('expired and grace_period_expired keep an expiry already past; refunded keeps auto-renew as it was', () => {
    const past = { ...LATEST, expiresDate: new Date('2026-04-30T10:00:00.000Z') };
    for (const type of ['expired', 'grace_period_expired'] as const) {
      expect(decode(mint(type, { latest: past })).state?.expires_at).toBe('2026-04-30T10:00:00.000Z');
    }
    expect(decode(mint('refunded', { autoRenew: false })).state?.renewal?.auto_renew).toBe(false);
  });

  it("the minted payload as Apple writes one: version 2.0, the retry flag of a billing issue, an expiry's intent", () => {
    const renewalOf = (type: TestNotificationType) => {
      const payload = payloadOf(mint(type));
      expect(payload.version).toBe('2.0');
      return JSON.parse(
        Buffer.from(payload.data.signedRenewalInfo.split('.')[1], 'base64url').toString('utf8'),
      ) as Record<string, unknown>;
    };
    expect(renewalOf('billing_issue')).toMatchObject({ isInBillingRetryPeriod: true });
    expect(renewalOf('grace_period_expired')).toMatchObject({ isInBillingRetryPeriod: true });
    expect(renewalOf('renewed')).toMatchObject({ isInBillingRetryPeriod: false });
    // expirationIntent 1: the customer cancelled (Apple's code), and only on an expiry.
    expect(renewalOf('expired')).toMatchObject({ expirationIntent: 1 });
    for (const type of ['renewed', 'auto_renew_off', 'billing_issue', 'refunded'] as const) {
      expect(renewalOf(type)).not.toHaveProperty('expirationIntent');
    }
  });

  it('product_changed needs the product it changed to', () => {
    expect(() => mint('product_changed', { product: undefined })).toThrow(
      'product_changed needs the product changed to',
    );
  });

  it('a renewal of a trial is a paid transaction; a trial refunded is the trial, at 0', () => {
    const trial = { ...LATEST, trial: true };
    expect(decode(mint('renewed', { latest: trial })).state).toMatchObject({ trial: false, price: 9.99 });
    expect(decode(mint('refunded', { latest: trial })).state).toMatchObject({ trial: true, price: 0, revoked: true });
  });

  it("Apple's rule: a failed renewal with a grace period still to come is a billing issue, retry flag or not", () => {
    const payload = payloadOf(mint('billing_issue'));
    const withRenewal = (notificationType: string, graceAt: number) =>
      signed({
        ...payload,
        notificationType,
        data: {
          ...payload.data,
          signedRenewalInfo: signTestStoreJws(APP, keys.privateKeyPem, {
            originalTransactionId: 'test_original',
            autoRenewProductId: 'premium_monthly',
            autoRenewStatus: 1,
            isInBillingRetryPeriod: false,
            gracePeriodExpiresDate: graceAt,
          }),
        },
      });
    const billingIssue = (type: string, graceAt: number) => decode(withRenewal(type, graceAt)).state?.renewal;
    expect(billingIssue('DID_FAIL_TO_RENEW', NOW.getTime() + 1)).toEqual({
      ...RENEWING,
      billing_issue: true,
      grace_period_expires_at: '2026-05-01T10:00:00.001Z',
    });
    expect(billingIssue('DID_FAIL_TO_RENEW', NOW.getTime())?.billing_issue).toBe(false);
    expect(billingIssue('DID_RENEW', NOW.getTime() + 1)?.billing_issue).toBe(false);
  });

  it('a renewal product other than the transaction product is the renewal_product_id (a downgrade)', () => {
    const payload = payloadOf(mint('auto_renew_on'));
    const info = signTestStoreJws(APP, keys.privateKeyPem, {
      originalTransactionId: 'test_original',
      autoRenewProductId: 'basic_monthly',
      autoRenewStatus: 1,
    });
    expect(decode(signed({ ...payload, data: { ...payload.data, signedRenewalInfo: info } })).state?.renewal).toEqual({
      ...RENEWING,
      renewal_product_id: 'basic_monthly',
    });
  });

  it('takes the body parsed or as its raw JSON text', () => {
    expect(decode(JSON.stringify(mint('auto_renew_on'))).subtype).toBe('AUTO_RENEW_ENABLED');
  });
});

/** A notification signed by this app's key with any payload (what a forger with the key, or a bug, could make). */
const signed = (payload: Record<string, unknown>, appId = APP, privateKeyPem = keys.privateKeyPem) => ({
  signedPayload: signTestStoreJws(appId, privateKeyPem, payload),
});
/** A payload signed as the JSON text given, for what JSON.stringify never writes. */
const signedText = (text: string) => {
  const [header] = signTestStoreJws(APP, keys.privateKeyPem, {}).split('.');
  const input = `${header}.${Buffer.from(text).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input), { key: keys.privateKeyPem, dsaEncoding: 'ieee-p1363' });
  return { signedPayload: `${input}.${signature.toString('base64url')}` };
};
const payloadOf = (body: { signedPayload: string }): Record<string, any> =>
  JSON.parse(Buffer.from(body.signedPayload.split('.')[1]!, 'base64url').toString('utf8'));

describe('test-store notifications: what changes nothing', () => {
  it.each([
    ['TEST', undefined],
    ['CONSUMPTION_REQUEST', undefined],
    ['A_TYPE_APPLE_ADDS_NEXT_YEAR', 'SOMETHING'],
  ])('%s is verified and returned with no state', (notificationType, subtype) => {
    const body = signed({
      notificationType,
      ...(subtype ? { subtype } : {}),
      notificationUUID: '7a1f3bc6-0000-4000-8000-000000000001',
      signedDate: NOW.getTime(),
      data: { bundleId: APP, environment: 'Test' },
    });
    expect(decode(body)).toEqual({
      store: 'test_store',
      notification_id: '7a1f3bc6-0000-4000-8000-000000000001',
      type: notificationType,
      subtype: subtype ?? null,
      environment: 'Test',
      sent_at: AT_NOW,
      state: null,
    });
  });

  it('a summary notification (summary instead of data) of a type it does not know: no state', () => {
    const body = signed({
      notificationType: 'RENEWAL_EXTENSION',
      subtype: 'SUMMARY',
      notificationUUID: '7a1f3bc6-0000-4000-8000-000000000002',
      signedDate: NOW.getTime(),
      summary: { bundleId: APP, environment: 'Test', requestIdentifier: 'r1' },
    });
    expect(decode(body)).toMatchObject({ type: 'RENEWAL_EXTENSION', subtype: 'SUMMARY', state: null });
    const foreign = signed({ ...payloadOf(body), summary: { bundleId: OTHER, environment: 'Test' } });
    expect(refusalOf(() => decode(foreign)).message).toBe('signedPayload is for another app (bundleId)');
  });

  it('a state type without signedTransactionInfo changes nothing, as an App Store one would', () => {
    const { data, ...rest } = payloadOf(mint('renewed'));
    const { signedTransactionInfo: _, ...withoutTransaction } = data;
    expect(decode(signed({ ...rest, data: withoutTransaction }))).toMatchObject({ type: 'DID_RENEW', state: null });
  });

  it('a state without signedRenewalInfo has no renewal (Apple may send none)', () => {
    const { data, ...rest } = payloadOf(mint('refunded'));
    const { signedRenewalInfo: _, ...withoutRenewal } = data;
    expect(decode(signed({ ...rest, data: withoutRenewal })).state?.renewal).toBeNull();
  });
});

describe('test-store notifications: refusals (INVALID_NOTIFICATION)', () => {
  it('another app refuses it, even one with the test store on', () => {
    expect(refusalOf(() => decode(mint('renewed'), OTHER, otherKeys.publicKeyPem)).message).toBe(
      'signedPayload was minted for another app',
    );
  });

  it('signed with another key under this app key id: the signature does not verify', () => {
    const forged = mintTestNotification({
      appId: APP,
      privateKeyPem: otherKeys.privateKeyPem,
      type: 'renewed',
      latest: LATEST,
      autoRenew: true,
    });
    expect(refusalOf(() => decode(forged)).message).toBe('signedPayload signature does not verify');
  });

  it('one byte changed anywhere in the JWS', () => {
    const jws = mint('renewed').signedPayload;
    for (const at of [5, jws.indexOf('.') + 30, jws.lastIndexOf('.') + 10]) {
      const changed = `${jws.slice(0, at)}${jws[at] === 'A' ? 'B' : 'A'}${jws.slice(at + 1)}`;
      expect(refusalOf(() => decode({ signedPayload: changed })).message).toMatch(
        /signature does not verify|minted for another app/,
      );
    }
  });

  it("another app's bundleId, or another environment, in a payload signed with this app's key", () => {
    const payload = payloadOf(mint('renewed'));
    expect(refusalOf(() => decode(signed({ ...payload, data: { ...payload.data, bundleId: OTHER } }))).message).toBe(
      'signedPayload is for another app (bundleId)',
    );
    expect(
      refusalOf(() => decode(signed({ ...payload, data: { ...payload.data, environment: 'Production' } }))).message,
    ).toBe('signedPayload is not of the test store (environment)');
  });

  it("a transaction or renewal info of another app, or of another purchase, inside this app's notification", () => {
    const payload = payloadOf(mint('renewed'));
    const foreign = payloadOf(
      mintTestNotification({
        appId: OTHER,
        privateKeyPem: otherKeys.privateKeyPem,
        type: 'renewed',
        latest: LATEST,
        autoRenew: true,
      }),
    ).data;
    const withData = (data: Record<string, unknown>) => signed({ ...payload, data: { ...payload.data, ...data } });
    expect(refusalOf(() => decode(withData({ signedTransactionInfo: foreign.signedTransactionInfo }))).message).toBe(
      'signedTransactionInfo was minted for another app',
    );
    expect(refusalOf(() => decode(withData({ signedRenewalInfo: foreign.signedRenewalInfo }))).message).toBe(
      'signedRenewalInfo was minted for another app',
    );
    const otherPurchase = payloadOf(mint('renewed', { latest: { ...LATEST, originalTransactionId: 'test_x' } })).data;
    expect(refusalOf(() => decode(withData({ signedRenewalInfo: otherPurchase.signedRenewalInfo }))).message).toBe(
      'signedRenewalInfo is about another purchase than signedTransactionInfo',
    );
  });

  it('malformed bodies and payloads', () => {
    const payload = payloadOf(mint('renewed'));
    const cases: [unknown, string][] = [
      [undefined, 'the notification has no body'],
      ['{not json', 'the notification body is not JSON'],
      [null, 'the notification body is not {"signedPayload": "<JWS>"}'],
      [[], 'the notification body is not {"signedPayload": "<JWS>"}'],
      [{}, 'the notification body is not {"signedPayload": "<JWS>"}'],
      [{ signedPayload: 42 }, 'the notification body is not {"signedPayload": "<JWS>"}'],
      [{ signedPayload: 'not a jws' }, 'the notification body is not {"signedPayload": "<JWS>"}'],
      [{ signedPayload: 'eyJhbGciOiJub25lIn0.e30.' }, 'signedPayload was minted for another app'],
      [{ signedPayload: 'a.b.c' }, 'signedPayload was minted for another app'],
      [
        signed({ ...payload, notificationUUID: undefined }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, signedDate: 'yesterday' }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, subtype: 7 }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, notificationType: '' }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, notificationUUID: '' }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, data: [payload.data] }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, data: 'the data' }),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({
          ...payload,
          data: {
            ...payload.data,
            signedRenewalInfo: signTestStoreJws(APP, keys.privateKeyPem, {
              ...JSON.parse(Buffer.from(payload.data.signedRenewalInfo.split('.')[1], 'base64url').toString('utf8')),
              gracePeriodExpiresDate: 'tomorrow',
            }),
          },
        }),
        'signedRenewalInfo has a malformed gracePeriodExpiresDate',
      ],
      // JSON reads 1e999 as Infinity: a number, but no time.
      [
        signedText(JSON.stringify({ ...payload, signedDate: 0 }).replace('"signedDate":0', '"signedDate":1e999')),
        'signedPayload lacks its notificationType, notificationUUID, signedDate or data',
      ],
      [
        signed({ ...payload, data: { ...payload.data, signedTransactionInfo: 'not.a jws' } }),
        'signedTransactionInfo is not a JWS',
      ],
      [signed({ ...payload, data: { ...payload.data, signedRenewalInfo: 'x' } }), 'signedRenewalInfo is not a JWS'],
      [
        signed({
          ...payload,
          data: {
            ...payload.data,
            signedTransactionInfo: signTestStoreJws(APP, keys.privateKeyPem, { bundleId: APP, environment: 'Test' }),
          },
        }),
        'signedTransactionInfo names no platform',
      ],
      [
        signed({
          ...payload,
          data: {
            ...payload.data,
            signedRenewalInfo: signTestStoreJws(APP, keys.privateKeyPem, { originalTransactionId: 'test_original' }),
          },
        }),
        'signedRenewalInfo lacks its autoRenewStatus',
      ],
    ];
    for (const [body, message] of cases)
      expect(refusalOf(() => decode(body)).message, JSON.stringify(body)).toBe(message);
  });

  it('more than 64 KB is refused before anything is parsed or verified', () => {
    const padding = 'A'.repeat(MAX_NOTIFICATION_BYTES);
    const oversized = { ...mint('renewed'), padding };
    expect(refusalOf(() => decode(oversized)).message).toBe('the notification is larger than 64 KB');
    expect(refusalOf(() => decode(JSON.stringify(oversized))).message).toBe('the notification is larger than 64 KB');
    // At the limit it is read (and refused only for what it is).
    const atLimit = `{"signedPayload": "x"}${' '.repeat(MAX_NOTIFICATION_BYTES - 22)}`;
    expect(Buffer.byteLength(atLimit)).toBe(MAX_NOTIFICATION_BYTES);
    expect(refusalOf(() => decode(atLimit)).message).toBe('the notification body is not {"signedPayload": "<JWS>"}');
  });
});
