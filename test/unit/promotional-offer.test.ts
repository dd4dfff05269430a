import { describe, expect, it } from 'vitest';
import {
  promotionalOfferAccount,
  promotionalOfferPayload,
  storeKitOfReceipt,
} from '../../lib/domain/promotional-offer.js';

describe('promotionalOfferPayload', () => {
  it("joins Apple's seven fields in its order with U+2063, an empty account included", () => {
    const terms = {
      bundleId: 'com.example.app',
      keyId: 'KEY1234567',
      productId: 'pro_monthly',
      offerId: 'winback',
      account: '',
      nonce: '5b1e4c2a-0d3f-4e6a-8b7c-9d0e1f2a3b4c',
      timestamp: 1733300000000,
    };
    expect(promotionalOfferPayload(terms).split('\u2063')).toEqual([
      'com.example.app',
      'KEY1234567',
      'pro_monthly',
      'winback',
      '',
      '5b1e4c2a-0d3f-4e6a-8b7c-9d0e1f2a3b4c',
      '1733300000000',
    ]);
  });
});

describe('promotionalOfferAccount: the account the purchase carries', () => {
  it.each([
    [
      'StoreKit 2, a UUID user id: the app account token, lowercase',
      'ABCDEF01-2345-4678-9ABC-DEF012345678',
      2,
      'abcdef01-2345-4678-9abc-def012345678',
    ],
    ['StoreKit 2, any other id: no token', '$RCAnonymousID:0123456789abcdef0123456789abcdef', 2, ''],
    ['StoreKit 2, a UUID inside a longer id: no token', 'user-abcdef01-2345-4678-9abc-def012345678', 2, ''],
    ['StoreKit 2, a UUID with more after it: no token', 'abcdef01-2345-4678-9abc-def012345678-2', 2, ''],
    [
      'StoreKit 1: the applicationUsername, as it is',
      'ABCDEF01-2345-4678-9ABC-DEF012345678',
      1,
      'ABCDEF01-2345-4678-9ABC-DEF012345678',
    ],
    ['StoreKit 1, any other id: as it is', 'user-7', 1, 'user-7'],
  ] as const)('%s', (_, user, storeKit, expected) => {
    expect(promotionalOfferAccount(user, storeKit)).toBe(expected);
  });
});

describe('storeKitOfReceipt', () => {
  it.each([
    ['an app receipt (PKCS #7, base64)', 'MIIT0AYJKoZIhvcNAQcCoIITwTCCE70', 1],
    ['a signed transaction', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', 2],
    ["StoreKit 2's JSON receipt, base64", 'eyJ0cmFuc2FjdGlvbnMiOltdfQ==', 2],
    ['none', undefined, 2],
  ] as const)('%s: StoreKit %s', (_, token, expected) => {
    expect(storeKitOfReceipt(token)).toBe(expected);
  });
});
