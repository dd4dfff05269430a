/**
 * What a verified App Store transaction says once normalised (lib/stores/app-store.ts), and which
 * environments an app takes: tables of payload fields as Apple documents them (JWSTransaction's
 * offerType 1 is an introductory offer, offerDiscountType its kind), no signature involved.
 */
import { describe, expect, it } from 'vitest';
import { acceptsEnvironment, transactionFromPayload } from '../../lib/stores/app-store.js';
import { appErrorThrownBy } from '../support/assertions.js';

const PAYLOAD = {
  transactionId: '2000000100',
  originalTransactionId: '2000000001',
  productId: 'premium_monthly',
  purchaseDate: Date.parse('2026-05-01T00:00:00Z'),
  expiresDate: Date.parse('2026-06-01T00:00:00Z'),
  environment: 'Sandbox',
};

describe('which App Store environments an app takes', () => {
  it.each([
    ['Production', 'Production', true],
    // Apple's rule: App Review buys with sandbox accounts against the production build.
    ['Production', 'Sandbox', true],
    ['Sandbox', 'Sandbox', true],
    ['Sandbox', 'Production', false],
    ['Production', 'Xcode', false],
    ['Sandbox', 'Xcode', false],
    ['Production', undefined, false],
    ['Production', 'production', false],
  ] as const)('an app in %s takes %s: %s', (configured, stated, expected) => {
    expect(acceptsEnvironment(configured, stated)).toBe(expected);
  });
});

describe('a free trial, from the offer fields', () => {
  it.each([
    ['no offer', {}, false],
    ['an introductory offer of kind FREE_TRIAL', { offerType: 1, offerDiscountType: 'FREE_TRIAL' }, true],
    ['an introductory offer without its kind (before iOS 15): a trial', { offerType: 1 }, true],
    ['an introductory offer paid as you go', { offerType: 1, offerDiscountType: 'PAY_AS_YOU_GO' }, false],
    ['an introductory offer paid up front', { offerType: 1, offerDiscountType: 'PAY_UP_FRONT' }, false],
    ['a promotional offer without its kind', { offerType: 2 }, false],
    ['a promotional free trial', { offerType: 2, offerDiscountType: 'FREE_TRIAL' }, true],
    ['an offer code', { offerType: 3, offerDiscountType: 'PAY_AS_YOU_GO' }, false],
  ])('%s: %s', (_name, offer, trial) => {
    expect(transactionFromPayload({ ...PAYLOAD, ...offer }).trial).toBe(trial);
  });
});

describe('the price paid, in major units', () => {
  it.each([
    ['milliunits, as Apple reports them', { price: 9990 }, 9.99],
    ['none stated', {}, null],
    ["the purchaser's own", { price: 9990, inAppOwnershipType: 'PURCHASED' }, 9.99],
    // The purchaser's money is counted on the purchaser's transaction, not once more per member.
    ['a Family Sharing member’s: nothing', { price: 9990, inAppOwnershipType: 'FAMILY_SHARED' }, 0],
  ])('%s', (_name, fields, price) => {
    expect(transactionFromPayload({ ...PAYLOAD, ...fields }).price).toBe(price);
  });
});

describe('what a transaction must carry', () => {
  it.each(['transactionId', 'originalTransactionId', 'productId', 'purchaseDate'] as const)(
    'without %s it is refused, as the caller asks (a receipt or a notification)',
    (field) => {
      const { [field]: _, ...lacking } = PAYLOAD;
      for (const kind of ['INVALID_RECEIPT', 'INVALID_NOTIFICATION'] as const) {
        expect(appErrorThrownBy(() => transactionFromPayload(lacking, kind))).toMatchObject({
          code: kind,
          message: 'App Store transaction lacks its ids or purchase date',
        });
      }
    },
  );

  it('without expiresDate it is no auto-renewable subscription', () => {
    const { expiresDate: _, ...lacking } = PAYLOAD;
    expect(appErrorThrownBy(() => transactionFromPayload(lacking))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'App Store transaction is not an auto-renewable subscription',
    });
  });
});
