/** purchases-ios's promotional offer signatures: apart, so no other bundle carries the signing. */
import { getAppWithStoreSettings } from '../data/store-settings.js';
import { promotionalOfferAccount, storeKitOfReceipt } from '../domain/promotional-offer.js';
import { REVENUECAT_OFFER_CODES } from '../domain/revenuecat-errors.js';
import type { RevenueCatOffersBody } from '../schemas/revenuecat.js';
import { type PromotionalOfferSignature, signPromotionalOffer } from '../stores/promotional-offer-signing.js';

/** One offer of the answer, as PostOfferResponse.swift decodes it. */
interface SignedOffer {
  offer_id: string;
  product_id: string;
  key_id: string;
  signature_data?: PromotionalOfferSignature;
  signature_error?: { code: number; message: string };
}

/**
 * POST /v1/offers: each offer signed with the app's In-App Purchase key (`admin stores apple set
 * ... --key-id K --key-file F.p8`) for its bundle and the account the purchase will carry. Which
 * offers the user may redeem is the App Store's to decide at purchase. Without a key every offer
 * answers the SDK's `invalidAppleSubscriptionKey` (7234), which it shows as that error.
 */
export async function signRevenueCatOffers(
  appId: string,
  body: RevenueCatOffersBody,
): Promise<{ offers: SignedOffer[] }> {
  const { settings } = await getAppWithStoreSettings(appId, 'app_store', { withCredentials: true });
  const key = settings?.server_api;
  const account = promotionalOfferAccount(body.app_user_id, storeKitOfReceipt(body.fetch_token));
  const offers = body.generate_offers.map(({ offer_id, product_id }): SignedOffer => {
    if (!settings || !key)
      return {
        offer_id,
        product_id,
        key_id: '',
        signature_error: {
          code: REVENUECAT_OFFER_CODES.invalidAppleSubscriptionKey,
          message: 'no In-App Purchase key is set for this app: admin stores apple set --issuer-id --key-id --key-file',
        },
      };
    const terms = {
      bundleId: settings.bundle_id,
      keyId: key.key_id,
      productId: product_id,
      offerId: offer_id,
      account,
    };
    return { offer_id, product_id, key_id: key.key_id, signature_data: signPromotionalOffer(key.private_key, terms) };
  });
  return { offers };
}
