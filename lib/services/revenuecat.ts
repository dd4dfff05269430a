/**
 * RevenueCat's SDK calls (lib/http/revenuecat.ts) as steps of this service's own use cases: a
 * customer info is the one every API reads (lib/services/customer-info.ts), and a posted receipt
 * goes through the same verification, ownership and restore policy as the spec's routes.
 */
import { isAppError } from '../core/errors.js';
import { mergeProfileMaps } from '../data/profiles.js';
import { type RevenueCatCustomerInfo, revenuecatCustomerInfoOf } from '../domain/revenuecat-customer.js';
import type { Platform } from '../schemas/common.js';
import type { RevenueCatReceiptBody } from '../schemas/revenuecat.js';
import { readCustomerFacts } from './customer-info.js';
import { verifyPurchase } from './verification.js';

/** The user's customer info as the SDKs decode it, and whether the app had seen the user. */
async function readCustomerInfo(appId: string, userId: string, now: Date) {
  const facts = await readCustomerFacts(appId, userId);
  const info = revenuecatCustomerInfoOf(
    {
      userId,
      firstSeen: (facts.profile?.first_seen as string | undefined) ?? facts.subscriptions.at(-1)?.created_at ?? null,
      lastSeen: (facts.profile?.last_seen as string | undefined) ?? null,
      subscriptions: facts.subscriptions,
      grants: facts.grants,
      definitions: facts.entitlements,
    },
    now,
  );
  return { info, known: facts.known };
}

/**
 * GET /v1/subscribers/{app_user_id}: the user's customer info. A user the app has never seen is
 * recorded now (the SDKs read the customer info of a new anonymous user at its first launch, and
 * RevenueCat creates the user).
 */
export async function revenuecatCustomerInfo(
  appId: string,
  userId: string,
  now = new Date(),
): Promise<RevenueCatCustomerInfo> {
  const { info, known } = await readCustomerInfo(appId, userId, now);
  if (!known) await mergeProfileMaps(appId, userId, (maps) => maps, now);
  return info;
}

/**
 * POST /v1/receipts: the purchase verified for the user, then their customer info. A restore moves
 * another user's purchase only under the app's `transfer` policy. A purchase that has ended
 * (an expired subscription restored) gives nothing and is no error: the SDK finishes it and shows
 * the customer info as it is. The product the SDK names is not held against the receipt: the
 * verified transaction decides what the user gets, and a refusal would lose a paid purchase.
 */
export async function postRevenueCatReceipt(
  appId: string,
  platform: Platform,
  body: RevenueCatReceiptBody,
): Promise<RevenueCatCustomerInfo> {
  if (body.fetch_token !== undefined) {
    try {
      await verifyPurchase(
        appId,
        { platform, receipt_data: body.fetch_token, user_id: body.app_user_id },
        { restore: body.is_restore === true },
      );
    } catch (error) {
      if (!(isAppError(error) && error.kind === 'SUBSCRIPTION_EXPIRED')) throw error;
    }
  }
  return (await readCustomerInfo(appId, body.app_user_id, new Date())).info;
}
