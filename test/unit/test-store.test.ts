import { describe, expect, it } from 'vitest';
import {
  isTestStoreReceipt,
  mintTestReceipt,
  newTestStoreKeys,
  testStoreVerifier,
} from '../../lib/stores/test-store.js';
import { appErrorOf } from '../support/assertions.js';

const APP = 'app_00000000000000aa';
const OTHER = 'app_00000000000000bb';
const keys = newTestStoreKeys();
const otherKeys = newTestStoreKeys();
const NOW = new Date('2026-05-01T10:00:00.000Z');
const mint = (overrides: Partial<Parameters<typeof mintTestReceipt>[0]> = {}) =>
  mintTestReceipt({
    appId: APP,
    privateKeyPem: keys.privateKeyPem,
    productId: 'premium_monthly',
    platform: 'ios',
    price: 9.99,
    currency: 'USD',
    expiresInSeconds: 3600,
    trial: false,
    now: NOW,
    ...overrides,
  });

describe('test store', () => {
  // The verifier of the module as loaded for the running test.
  const verifier = {
    verify: (receiptData: string) => testStoreVerifier(APP, keys.publicKeyPem).verify(receiptData),
  };

  it('verifies a minted receipt and reads it like a StoreKit transaction', async () => {
    const { receipt_data, transaction_id } = mint();
    expect(isTestStoreReceipt(receipt_data)).toBe(true);
    expect(await verifier.verify(receipt_data)).toEqual({
      store: 'test_store',
      platform: 'ios',
      environment: 'Test',
      transaction_id,
      original_transaction_id: transaction_id,
      product_id: 'premium_monthly',
      purchase_date: NOW.toISOString(),
      expires_at: '2026-05-01T11:00:00.000Z',
      trial: false,
      price: 9.99,
      currency: 'USD',
      revoked: false,
      app_account_token: null,
    });
  });

  it('carries the account token a receipt was minted with, as StoreKit carries appAccountToken', async () => {
    const token = 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A';
    expect((await verifier.verify(mint({ appAccountToken: token }).receipt_data)).app_account_token).toBe(token);
  });

  it('marks trials (free) and renewals (same original transaction)', async () => {
    const first = mint({ trial: true });
    const trial = await verifier.verify(first.receipt_data);
    expect(trial).toMatchObject({ trial: true, price: 0 });
    const renewal = await verifier.verify(mint({ originalTransactionId: first.transaction_id }).receipt_data);
    expect(renewal.original_transaction_id).toBe(first.transaction_id);
    expect(renewal.transaction_id).not.toBe(first.transaction_id);
  });

  it('an expired purchase still verifies (the subscription will be expired)', async () => {
    const result = await verifier.verify(mint({ expiresInSeconds: -60 }).receipt_data);
    expect(Date.parse(result.expires_at)).toBeLessThan(NOW.getTime());
  });

  it('is refused by any other app, even one with the test store on', async () => {
    const error = await appErrorOf(testStoreVerifier(OTHER, otherKeys.publicKeyPem).verify(mint().receipt_data));
    expect(error.code).toBe('INVALID_RECEIPT');
    expect(error.message).toBe('test-store receipt was minted for another app');
  });

  it('a receipt signed with another key, or changed in one byte, does not verify', async () => {
    const forged = mint({ privateKeyPem: otherKeys.privateKeyPem });
    expect((await appErrorOf(verifier.verify(forged.receipt_data))).message).toBe(
      'test-store receipt signature does not verify',
    );
    const jws = Buffer.from(mint().receipt_data, 'base64').toString();
    const [h, p, s] = jws.split('.') as [string, string, string];
    const changed = `${h}.${p.slice(0, 20)}${p[20] === 'A' ? 'B' : 'A'}${p.slice(21)}.${s}`;
    expect((await appErrorOf(verifier.verify(changed))).code).toBe('INVALID_RECEIPT');
  });

  it('garbage is INVALID_RECEIPT', async () => {
    for (const receipt of ['x', Buffer.from('a.b.c').toString('base64'), 'eyJhbGciOiJub25lIn0.e30.']) {
      expect((await appErrorOf(verifier.verify(receipt))).code).toBe('INVALID_RECEIPT');
    }
    expect(isTestStoreReceipt('x')).toBe(false);
  });
});
