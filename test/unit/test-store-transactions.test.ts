import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isTestStoreReceipt,
  newTestStoreKeys,
  signTestStoreJws,
  testStoreVerifier,
  verifyTestTransaction,
} from '../../lib/stores/test-store.js';
import { appErrorOf, appErrorThrownBy } from '../support/assertions.js';

const APP = 'app_00000000000000aa';
const keys = newTestStoreKeys();
const publicKey = createPublicKey(keys.publicKeyPem);
const REFUSAL = { kind: 'INVALID_NOTIFICATION', what: 'signedTransactionInfo' } as const;
const PAYLOAD = {
  transactionId: 'test_1',
  originalTransactionId: 'test_0',
  productId: 'premium_monthly',
  bundleId: APP,
  environment: 'Test',
  storefront: 'ios',
  purchaseDate: Date.parse('2026-11-01T00:00:00.000Z'),
  expiresDate: Date.parse('2026-12-01T00:00:00.000Z'),
  price: 9990,
  currency: 'EUR',
};
const VERIFIED = {
  store: 'test_store',
  platform: 'ios',
  environment: 'Test',
  transaction_id: 'test_1',
  original_transaction_id: 'test_0',
  product_id: 'premium_monthly',
  purchase_date: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-12-01T00:00:00.000Z',
  trial: false,
  price: 9.99,
  currency: 'EUR',
  revoked: false,
  app_account_token: null,
};
const verified = (payload: Record<string, unknown>) =>
  verifyTestTransaction(signTestStoreJws(APP, keys.privateKeyPem, payload), APP, publicKey, REFUSAL);

describe('a test-store transaction, read like a StoreKit transaction', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['as minted', {}, {}],
    ['on Android', { storefront: 'android' }, { platform: 'android' }],
    ['a free trial', { offerDiscountType: 'FREE_TRIAL', price: 0 }, { trial: true, price: 0 }],
    ['another offer', { offerDiscountType: 'PAY_AS_YOU_GO' }, {}],
    ['without a price or currency', { price: undefined, currency: undefined }, { price: null, currency: null }],
    ['revoked', { revocationDate: Date.parse('2026-11-15T00:00:00.000Z') }, { revoked: true }],
    [
      'with an account token',
      { appAccountToken: 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A' },
      { app_account_token: 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A' },
    ],
    ['with an account token that is no string', { appAccountToken: 7 }, {}],
  ])('%s', (_, changes, expected) => {
    expect(verified({ ...PAYLOAD, ...changes })).toStrictEqual({ ...VERIFIED, ...expected });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['of another app', { bundleId: 'app_00000000000000bb' }, 'signedTransactionInfo belongs to another app'],
    ['of another environment', { environment: 'Sandbox' }, 'signedTransactionInfo belongs to another app'],
    ['without a platform', { storefront: undefined }, 'signedTransactionInfo names no platform'],
    ['of another platform', { storefront: 'web' }, 'signedTransactionInfo names no platform'],
    ['without a transaction id', { transactionId: undefined }, 'signedTransactionInfo lacks its ids or dates'],
    ['with an empty transaction id', { transactionId: '' }, 'signedTransactionInfo lacks its ids or dates'],
    ['with a numeric transaction id', { transactionId: 1 }, 'signedTransactionInfo lacks its ids or dates'],
    [
      'without an original transaction id',
      { originalTransactionId: undefined },
      'signedTransactionInfo lacks its ids or dates',
    ],
    [
      'with an empty original transaction id',
      { originalTransactionId: '' },
      'signedTransactionInfo lacks its ids or dates',
    ],
    [
      'with a numeric original transaction id',
      { originalTransactionId: 1 },
      'signedTransactionInfo lacks its ids or dates',
    ],
    ['with a numeric product', { productId: 1 }, 'signedTransactionInfo lacks its ids or dates'],
    ['without a product', { productId: undefined }, 'signedTransactionInfo lacks its ids or dates'],
    ['with an empty product', { productId: '' }, 'signedTransactionInfo lacks its ids or dates'],
    ['without a purchase date', { purchaseDate: undefined }, 'signedTransactionInfo lacks its ids or dates'],
    ['with an expiry that is text', { expiresDate: '2026-12-01' }, 'signedTransactionInfo lacks its ids or dates'],
  ])('refuses one %s, as the refusal says', (_, changes, message) => {
    const error = appErrorThrownBy(() => verified({ ...PAYLOAD, ...changes }));
    expect([error.kind, error.message]).toEqual(['INVALID_NOTIFICATION', message]);
  });

  it('refuses a payload that is not a JSON object, signed or not', () => {
    for (const payload of [null, 'text', 7]) {
      const error = appErrorThrownBy(() =>
        verifyTestTransaction(signTestStoreJws(APP, keys.privateKeyPem, payload), APP, publicKey, REFUSAL),
      );
      expect(error.message).toBe('signedTransactionInfo signature does not verify');
    }
  });
});

describe('what claims to be a test-store receipt', () => {
  it.each<[string, string, boolean]>([
    ['a minted transaction', signTestStoreJws(APP, keys.privateKeyPem, PAYLOAD), true],
    ['one minted for another app', signTestStoreJws('app_00000000000000bb', keys.privateKeyPem, PAYLOAD), true],
    ['another kid', `${Buffer.from('{"alg":"ES256","kid":"apple"}').toString('base64url')}.e30.c2ln`, false],
    [
      'a kid that merely contains the prefix',
      `${Buffer.from('{"alg":"ES256","kid":"x-test-store:a"}').toString('base64url')}.e30.c2ln`,
      false,
    ],
    ['a numeric kid', `${Buffer.from('{"alg":"ES256","kid":7}').toString('base64url')}.e30.c2ln`, false],
    ['no JWS', 'MIIT', false],
  ])('%s: %s', (_, receiptData, claims) => {
    expect(isTestStoreReceipt(receiptData)).toBe(claims);
  });

  it('receipt_data that is no JWS at all: INVALID_RECEIPT, saying so', async () => {
    const error = await appErrorOf(testStoreVerifier(APP, keys.publicKeyPem).verify('MIIT'));
    expect([error.kind, error.message]).toEqual(['INVALID_RECEIPT', 'receipt_data is not a test-store receipt']);
  });
});
