import { describe, expect, it } from 'vitest';
import {
  PURCHASE_TOKEN_PATTERN,
  purchaseReference,
  purchaseStateOf,
  type SubscriptionPurchaseV2,
} from '../../lib/stores/google-play.js';
import { appErrorThrownBy } from '../support/assertions.js';

const TOKEN = 'opaque-token.AO-J1Oy:x_1';
const AS_OF = '2026-11-27T12:00:00.000Z';
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('a Google Play purchase token', () => {
  it.each([
    ['a'.repeat(10), true],
    ['a'.repeat(9), false],
    ['a'.repeat(2000), true],
    ['a'.repeat(2001), false],
    ['AZaz09._:-AZaz09', true],
    ['abcdefghij/k', false],
    ['abcdefghij k', false],
    [' abcdefghijk', false],
    ['abcdefghijk ', false],
    ['!abcdefghijk', false],
    ['abcdefghijk!', false],
  ])('%s: %s', async (token, valid) => {
    expect(PURCHASE_TOKEN_PATTERN.test(token)).toBe(valid);
  });
});

describe('what receipt_data names', () => {
  it.each<[string, string, ReturnType<typeof purchaseReference>]>([
    ['a bare token', TOKEN, { purchaseToken: TOKEN }],
    ['a bare token among blanks', `  ${TOKEN}\n`, { purchaseToken: TOKEN }],
    [
      'a purchase object with its package',
      base64({ packageName: 'com.example.subs', productId: 'monthly', purchaseToken: TOKEN }),
      { purchaseToken: TOKEN, packageName: 'com.example.subs' },
    ],
    ['a purchase object among blanks', ` ${base64({ purchaseToken: TOKEN })} `, { purchaseToken: TOKEN }],
    [
      'a purchase object whose package is no string',
      base64({ packageName: 7, purchaseToken: TOKEN }),
      { purchaseToken: TOKEN },
    ],
  ])('%s', (_, receiptData, expected) => {
    expect(purchaseReference(receiptData)).toStrictEqual(expected);
  });

  it.each([
    ['base64 of an object whose token is no string', base64({ purchaseToken: 12345678901 })],
    ['base64 of null', base64(null)],
    ['base64 of a string', base64(TOKEN)],
    ['a token too short', 'short'],
  ])('refuses %s: INVALID_RECEIPT', (_, receiptData) => {
    const error = appErrorThrownBy(() => purchaseReference(receiptData));
    expect([error.kind, error.message]).toEqual([
      'INVALID_RECEIPT',
      'receipt_data is neither a Google Play purchase token nor a purchase object',
    ]);
  });

  it('refuses a signed App Store transaction without asking Google', () => {
    const jws = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.e30.c2ln`;
    const error = appErrorThrownBy(() => purchaseReference(jws));
    expect([error.kind, error.message]).toEqual([
      'INVALID_RECEIPT',
      'receipt_data is a signed App Store transaction, not a Google Play purchase',
    ]);
  });
});

/** A paid, auto-renewing monthly purchase as subscriptionsv2.get returns it. */
const purchase = (overrides: Partial<SubscriptionPurchaseV2> = {}, item: Record<string, unknown> = {}) =>
  ({
    startTime: '2026-10-27T12:00:00.000Z',
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: 'GPA.0000-0000-0000-00000..1',
    acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
    lineItems: [
      {
        productId: 'premium_monthly',
        expiryTime: '2026-12-27T12:00:00.000Z',
        latestSuccessfulOrderId: 'GPA.0000-0000-0000-00000..1',
        autoRenewingPlan: {
          autoRenewEnabled: true,
          recurringPrice: { currencyCode: 'EUR', units: '9', nanos: 990_000_000 },
        },
        ...item,
      },
    ],
    ...overrides,
  }) as SubscriptionPurchaseV2;

const ACTIVE = {
  store: 'google_play',
  platform: 'android',
  environment: 'Production',
  transaction_id: 'GPA.0000-0000-0000-00000..1',
  original_transaction_id: TOKEN,
  product_id: 'premium_monthly',
  purchase_date: '2026-10-27T12:00:00.000Z',
  expires_at: '2026-12-27T12:00:00.000Z',
  trial: false,
  price: 9.99,
  currency: 'EUR',
  revoked: false,
  app_account_token: null,
  renewal: { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
  linked_original_transaction_id: null,
  as_of: AS_OF,
};

describe("the store's truth from a SubscriptionPurchaseV2", () => {
  it.each<[string, SubscriptionPurchaseV2, Record<string, unknown>]>([
    ['an active, auto-renewing purchase', purchase(), {}],
    [
      'auto-renew off',
      purchase(
        {},
        {
          autoRenewingPlan: {
            autoRenewEnabled: false,
            recurringPrice: { currencyCode: 'EUR', units: '9', nanos: 990_000_000 },
          },
        },
      ),
      { renewal: { ...ACTIVE.renewal, auto_renew: false } },
    ],
    [
      'auto-renew not said',
      purchase({}, { autoRenewingPlan: { recurringPrice: { currencyCode: 'EUR', units: '9', nanos: 990_000_000 } } }),
      { renewal: { ...ACTIVE.renewal, auto_renew: false } },
    ],
    ['a test purchase', purchase({ testPurchase: {} }), { environment: 'Sandbox' }],
    ['a free trial', purchase({}, { offerPhase: { freeTrial: {} } }), { trial: true }],
    [
      'in its grace period (Google extends the expiry to the grace end)',
      purchase({ subscriptionState: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD' }),
      { renewal: { ...ACTIVE.renewal, billing_issue: true, grace_period_expires_at: '2026-12-27T12:00:00.000Z' } },
    ],
    [
      'on hold',
      purchase({ subscriptionState: 'SUBSCRIPTION_STATE_ON_HOLD' }),
      { renewal: { ...ACTIVE.renewal, billing_issue: true } },
    ],
    ['canceled, still in its period', purchase({ subscriptionState: 'SUBSCRIPTION_STATE_CANCELED' }), {}],
    [
      'a deferred change to another product',
      purchase({}, { deferredItemReplacement: { productId: 'pro_yearly' } }),
      { renewal: { ...ACTIVE.renewal, renewal_product_id: 'pro_yearly' } },
    ],
    [
      'a deferred "change" to the same product',
      purchase({}, { deferredItemReplacement: { productId: 'premium_monthly' } }),
      {},
    ],
    [
      'a plan change: the token it replaces',
      purchase({ linkedPurchaseToken: 'older-token-123' }),
      { linked_original_transaction_id: 'older-token-123' },
    ],
    [
      "the buyer's account id",
      purchase({ externalAccountIdentifiers: { obfuscatedExternalAccountId: 'acct-42' } }),
      { app_account_token: 'acct-42' },
    ],
    [
      'no line item order id: the purchase order id',
      purchase({ latestOrderId: 'GPA.9' }, { latestSuccessfulOrderId: undefined }),
      { transaction_id: 'GPA.9' },
    ],
    [
      'no order id at all: the token and expiry',
      purchase({ latestOrderId: undefined }, { latestSuccessfulOrderId: undefined }),
      { transaction_id: `${TOKEN}:2026-12-27T12:00:00.000Z` },
    ],
    [
      'whole units only',
      purchase(
        {},
        { autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { currencyCode: 'JPY', units: '1200' } } },
      ),
      { price: 1200, currency: 'JPY' },
    ],
    [
      'nanos only',
      purchase(
        {},
        { autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { currencyCode: 'USD', nanos: 500_000_000 } } },
      ),
      { price: 0.5, currency: 'USD' },
    ],
    [
      'a price without a currency',
      purchase({}, { autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { units: '3' } } }),
      { price: 3, currency: null },
    ],
    [
      'a currency without a price',
      purchase({}, { autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { currencyCode: 'EUR' } } }),
      { price: null, currency: null },
    ],
    [
      'units that are no number',
      purchase(
        {},
        { autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { currencyCode: 'EUR', units: 'abc' } } },
      ),
      { price: null, currency: null },
    ],
    [
      'no plan',
      purchase({}, { autoRenewingPlan: undefined }),
      { price: null, currency: null, renewal: { ...ACTIVE.renewal, auto_renew: false } },
    ],
  ])('%s', (_, v2, changes) => {
    expect(purchaseStateOf(v2, TOKEN, AS_OF)).toStrictEqual({ ...ACTIVE, ...changes });
  });

  it.each(['SUBSCRIPTION_STATE_PENDING', 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED'])(
    '%s: nothing to grant',
    (state) => {
      expect(purchaseStateOf(purchase({ subscriptionState: state }), TOKEN, AS_OF)).toBeNull();
    },
  );

  it.each<[string, SubscriptionPurchaseV2]>([
    ['no line item', purchase({ lineItems: [] })],
    ['no product', purchase({}, { productId: undefined })],
    ['no expiry', purchase({}, { expiryTime: undefined })],
    ['no start', purchase({ startTime: undefined })],
  ])('%s: INVALID_RECEIPT', (_, v2) => {
    const error = appErrorThrownBy(() => purchaseStateOf(v2, TOKEN, AS_OF));
    expect([error.kind, error.message]).toEqual([
      'INVALID_RECEIPT',
      'the Google Play purchase has no subscription line item',
    ]);
  });
});
