import type { StorePurchaseState } from '../domain/store-purchase.js';

/**
 * Whether an Apple notification type (App Store Server Notifications V2) has the purchase's state
 * as its signedTransactionInfo: in the App Store's notifications and the test store's, which are
 * shaped like them. In a module of its own so the test store's bundle does not load the App Store
 * verifier.
 * Not REFUND_DECLINED: a declined refund changes nothing, and its transaction is the one the
 * refund was asked for, which may be an earlier period's than the subscription's current one.
 */
export function statesPurchase(type: string): boolean {
  return [
    'SUBSCRIBED',
    'DID_RENEW',
    'DID_CHANGE_RENEWAL_STATUS',
    'DID_CHANGE_RENEWAL_PREF',
    'DID_FAIL_TO_RENEW',
    'GRACE_PERIOD_EXPIRED',
    'EXPIRED',
    'OFFER_REDEEMED',
    'PRICE_INCREASE',
    'REFUND',
    'REFUND_REVERSED',
    'REVOKE',
    'RENEWAL_EXTENDED',
    'RENEWAL_EXTENSION',
    'ONE_TIME_CHARGE',
    'METADATA_UPDATE',
    'MIGRATION',
    'PRICE_CHANGE',
  ].includes(type);
}

/** The purchase's state as a notification of this type states it: REFUND_REVERSED says the refund is undone. */
export function stateOfNotification(type: string, state: StorePurchaseState): StorePurchaseState {
  return type === 'REFUND_REVERSED' && !state.revoked ? { ...state, refund_reversed: true } : state;
}
