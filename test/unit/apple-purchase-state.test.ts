/**
 * A purchase's state read from Apple's own signed transaction and renewal info
 * (test/fixtures/apple, signed in the App Store sandbox), through Apple Root CA - G3, the trust
 * anchor the functions use when no other is given (lib/stores/app-store-notifications.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { decodeAppStorePurchaseState } from '../../lib/stores/app-store-notifications.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/apple/${name}`, import.meta.url), 'utf8').trim();
const SIGNED = {
  signedTransactionInfo: fixture('sandbox-subscription-transaction.jws'),
  signedRenewalInfo: fixture('sandbox-subscription-renewal-info.jws'),
};
const APP = { bundleId: 'com.app.qysmat', environment: 'Sandbox' as const };
/** A minute into the transaction's five-minute sandbox period. */
const AS_OF = Date.parse('2023-03-27T06:48:20.000Z');

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe("a purchase's state from Apple's signed data", () => {
  it('is read through Apple Root CA - G3 when no root is given', () => {
    expect(decodeAppStorePurchaseState(SIGNED, APP, AS_OF)).toEqual({
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
      as_of: '2023-03-27T06:48:20.000Z',
    });
  });

  it('is refused for another bundle or another environment, naming what brought it', () => {
    const otherBundle = refusal(() =>
      decodeAppStorePurchaseState(SIGNED, { ...APP, bundleId: 'com.example.other' }, AS_OF),
    );
    expect(otherBundle.code).toBe('INVALID_NOTIFICATION');
    expect(otherBundle.message).toMatch(/^App Store notification rejected: its signed transaction: /);
    const production = refusal(() =>
      decodeAppStorePurchaseState(SIGNED, { ...APP, environment: 'Production' }, AS_OF, undefined, {
        source: 'status',
      }),
    );
    expect(production.message).toBe(
      'App Store status rejected: its signed transaction: it belongs to another environment',
    );
  });
});
