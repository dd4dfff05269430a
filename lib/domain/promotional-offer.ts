/**
 * An App Store promotional offer's signature (pure): what is signed, as Apple defines it
 * ("Generating a signature for promotional offers"), and whose account it is signed for, as
 * purchases-ios buys it.
 */
import { isUuid } from './app-account-token.js';

/** What the signature covers, in Apple's order, joined by U+2063 (invisible separator). */
export interface PromotionalOfferTerms {
  bundleId: string;
  keyId: string;
  productId: string;
  offerId: string;
  /** The purchase's application username (StoreKit 1) or app account token (StoreKit 2), else empty. */
  account: string;
  /** A lowercase UUID, used once. */
  nonce: string;
  /** Milliseconds since the epoch, when it was signed. */
  timestamp: number;
}

export const promotionalOfferPayload = (terms: PromotionalOfferTerms): string =>
  [terms.bundleId, terms.keyId, terms.productId, terms.offerId, terms.account, terms.nonce, terms.timestamp].join(
    '\u2063',
  );

/**
 * The account the purchase will carry, which the signature must name. purchases-ios buys with
 * StoreKit 2 giving the app user id as the app account token when it is a UUID, and nothing
 * otherwise (PurchasesOrchestrator.swift, `.appAccountToken`); with StoreKit 1 as the payment's
 * `applicationUsername`, whatever it is. Apple's signature takes a token in lowercase.
 */
export function promotionalOfferAccount(appUserId: string, storeKit: 1 | 2): string {
  if (storeKit === 1) return appUserId;
  return isUuid(appUserId) ? appUserId.toLowerCase() : '';
}

/**
 * Which StoreKit asks, from the receipt the SDK sends with the request: StoreKit 1 sends the app
 * receipt (PKCS #7, base64 `MII…`), StoreKit 2 a signed transaction or its own JSON receipt
 * (EncodedAppleReceipt.swift, PurchasesOrchestrator.swift sk1/sk2PromotionalOffer).
 */
export function storeKitOfReceipt(fetchToken: string | undefined): 1 | 2 {
  return fetchToken?.startsWith('MII') ? 1 : 2;
}
