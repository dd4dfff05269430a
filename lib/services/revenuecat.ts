/**
 * RevenueCat's SDK calls (lib/http/revenuecat.ts) as steps of this service's own use cases: a
 * customer info is the one every API reads (lib/services/customer-info.ts), and a posted receipt
 * goes through the same verification, ownership and restore policy as the spec's routes.
 */
import { AppError, isAppError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { mergeProfileMaps } from '../data/profiles.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import { newestSubscriptionsOfUser } from '../data/subscription-queries.js';
import { transferSubscription } from '../data/subscription-reassignment.js';
import { type AttributeError, mergeAttributes } from '../domain/revenuecat-attributes.js';
import { type RevenueCatCustomerInfo, revenuecatCustomerInfoOf } from '../domain/revenuecat-customer.js';
import { REVENUECAT_CODES } from '../domain/revenuecat-errors.js';
import type { Platform } from '../schemas/common.js';
import { MAX_CUSTOMER_SUBSCRIPTIONS } from '../schemas/entitlement.js';
import {
  MAX_ATTRIBUTES_PER_REQUEST,
  type RevenueCatLogInBody,
  type RevenueCatReceiptBody,
} from '../schemas/revenuecat.js';
import { readCustomerFacts } from './customer-info.js';
import { verifyPurchase } from './verification.js';

type CustomerFacts = Awaited<ReturnType<typeof readCustomerFacts>>;

/** The customer info of these facts, as the SDKs decode it. */
const customerInfoOf = (userId: string, facts: CustomerFacts, now: Date): RevenueCatCustomerInfo =>
  revenuecatCustomerInfoOf(
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

/** The user's customer info as the SDKs decode it, and whether the app had seen the user. */
async function readCustomerInfo(appId: string, userId: string, now: Date) {
  const facts = await readCustomerFacts(appId, userId);
  return { info: customerInfoOf(userId, facts, now), known: facts.known };
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
  const attributeErrors = isJsonObject(body.attributes)
    ? await keepReceiptAttributes(appId, body.app_user_id, body.attributes)
    : [];
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
  const { info } = await readCustomerInfo(appId, body.app_user_id, new Date());
  if (attributeErrors.length === 0) return info;
  return {
    ...info,
    attributes_error_response: {
      code: REVENUECAT_CODES.invalidSubscriberAttributes,
      message: 'some attributes were not kept',
      attribute_errors: attributeErrors,
    },
  };
}

/**
 * The attributes riding in a receipts body, kept before the purchase is verified: the SDKs mark
 * them synced on any answer below 500, a refused purchase's included. Those that cannot be kept
 * are reported (`attributes_error_response`, which both SDKs log), never a refusal; an
 * `attributes` that is not an object is left out.
 */
async function keepReceiptAttributes(
  appId: string,
  userId: string,
  attributes: Readonly<Record<string, unknown>>,
): Promise<AttributeError[]> {
  const count = Object.keys(attributes).length;
  if (count === 0) return [];
  if (count > MAX_ATTRIBUTES_PER_REQUEST) {
    return [{ key_name: '', message: `at most ${MAX_ATTRIBUTES_PER_REQUEST} attributes per request; none was kept` }];
  }
  let errors: AttributeError[] = [];
  await mergeProfileMaps(
    appId,
    userId,
    (current) => {
      const merged = mergeAttributes(current.custom_properties, attributes);
      errors = merged.errors;
      return { ...current, custom_properties: merged.properties };
    },
    new Date(),
  );
  return errors;
}

/** The ids the SDKs make for a user the app has not identified: `$RCAnonymousID:` and 32 hex digits (random). */
export const REVENUECAT_ANONYMOUS_ID = /^\$RCAnonymousID:[0-9a-f]{32}$/;

/** The most purchases one logIn moves: a real anonymous user has a handful; the rest move at a later logIn. */
export const MAX_PURCHASES_MOVED_AT_LOG_IN = 50;

/**
 * POST /v1/subscribers/identify (logIn): the user's customer info, created (201) when the app had
 * not seen the new id. From an anonymous id, the store purchases of that id move to the new user
 * as they stand (their subscriptions, history and revenue kept; subscription.transferred
 * notified): the SDK keeps using the new id from now on. From an identified id nothing moves, as
 * with RevenueCat: two identified users' purchases are theirs.
 */
export async function logInRevenueCatUser(
  appId: string,
  { app_user_id: currentId, new_app_user_id: newId }: RevenueCatLogInBody,
): Promise<{ customerInfo: RevenueCatCustomerInfo; created: boolean }> {
  // Read before anything moves: whether the app had seen the new id decides the 201.
  const before = await readCustomerFacts(appId, newId);
  const moved =
    currentId !== newId && REVENUECAT_ANONYMOUS_ID.test(currentId) ? await movePurchases(appId, currentId, newId) : [];
  const now = new Date();
  // A new id is recorded: by the purchases it now has, else by a profile of its own.
  const recorded = !before.known && moved.length === 0;
  if (recorded) await mergeProfileMaps(appId, newId, (maps) => maps, now);
  // The answer from what was read and moved, without reading it again: the moved subscriptions
  // among the user's, newest first; a new user's profile as its creation just wrote it.
  const movedIds = new Set(moved.map((subscription) => subscription.id));
  const subscriptions = [...moved, ...before.subscriptions.filter((subscription) => !movedIds.has(subscription.id))]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .slice(0, MAX_CUSTOMER_SUBSCRIPTIONS);
  const profile = recorded ? { first_seen: now.toISOString(), last_seen: now.toISOString() } : before.profile;
  return { customerInfo: customerInfoOf(newId, { ...before, subscriptions, profile }, now), created: !before.known };
}

/** The store purchases of an anonymous id handed to the user, as they now stand (at most MAX_PURCHASES_MOVED_AT_LOG_IN). */
async function movePurchases(appId: string, anonymousId: string, userId: string): Promise<SubscriptionRecord[]> {
  const purchases = (await newestSubscriptionsOfUser(appId, anonymousId, MAX_PURCHASES_MOVED_AT_LOG_IN)).filter(
    (subscription) => subscription.store !== null && subscription.original_transaction_id !== null,
  );
  const moved: SubscriptionRecord[] = [];
  for (const subscription of purchases) {
    const { outcome, record } = await transferSubscription(subscription, userId);
    if (outcome === 'changing') {
      throw new AppError('CONCURRENT_MODIFICATION', `subscription ${subscription.id} kept changing while it moved`, {
        retryable: true,
      });
    }
    if (record) moved.push(record);
  }
  return moved;
}
