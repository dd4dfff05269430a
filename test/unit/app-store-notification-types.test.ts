import { describe, expect, it } from 'vitest';
import type { StorePurchaseState } from '../../lib/domain/store-purchase.js';
import { stateOfNotification, statesPurchase } from '../../lib/stores/app-store-notification-types.js';

describe("App Store notification types whose signedTransactionInfo is the purchase's state", () => {
  it.each([
    'DID_CHANGE_RENEWAL_PREF',
    'DID_CHANGE_RENEWAL_STATUS',
    'DID_FAIL_TO_RENEW',
    'DID_RENEW',
    'EXPIRED',
    'GRACE_PERIOD_EXPIRED',
    'METADATA_UPDATE',
    'MIGRATION',
    'OFFER_REDEEMED',
    'ONE_TIME_CHARGE',
    'PRICE_CHANGE',
    'PRICE_INCREASE',
    'REFUND',
    'REFUND_REVERSED',
    'RENEWAL_EXTENDED',
    'RENEWAL_EXTENSION',
    'REVOKE',
    'SUBSCRIBED',
  ])('%s (App Store Server Notifications V2, notificationType) describes a purchase', (type) => {
    expect(statesPurchase(type)).toBe(true);
  });

  it.each(['TEST', 'CONSUMPTION_REQUEST', 'REFUND_DECLINED', 'EXTERNAL_PURCHASE_TOKEN', 'REFUND_REQUESTED', ''])(
    '%s states none',
    (type) => {
      expect(statesPurchase(type)).toBe(false);
    },
  );
});

describe('the state a notification states', () => {
  const state = { product_id: 'premium_monthly', revoked: false } as StorePurchaseState;
  it.each<[string, StorePurchaseState, StorePurchaseState]>([
    ['REFUND_REVERSED of a purchase not revoked: the refund is undone', state, { ...state, refund_reversed: true }],
    [
      'REFUND_REVERSED of a purchase still revoked: as stated',
      { ...state, revoked: true },
      { ...state, revoked: true },
    ],
  ])('%s', (_, given, expected) => {
    expect(stateOfNotification('REFUND_REVERSED', given)).toStrictEqual(expected);
  });

  it.each(['DID_RENEW', 'REFUND', 'REVOKE'])('%s: the state as signed', (type) => {
    expect(stateOfNotification(type, state)).toBe(state);
  });
});
