/**
 * Purchase verification: a receipt is verified by its store, then bound to the app and user, in
 * four steps: prefetch (the app, its store settings and, for a signed transaction, what is stored
 * about its purchase, in one request), verify (the store), decide (lib/domain/purchase-decision.ts:
 * every rule of ownership, restore policy, account tokens, renewal and resubscription, one row
 * each), apply (the writes).
 *
 * - A new purchase is recorded active in one write: the pending_verification record every
 *   subscription starts as, activated through the lifecycle table (which gives the status change
 *   and its notification), bound to the transaction and its owner. A record still pending (made
 *   by POST /subscriptions, or left by an older version between its two writes) is activated by
 *   the next verification of its receipt.
 * - Concurrent verifications of one transaction are settled by the table's conditions: a lost
 *   race is decided again on a fresh read.
 */

import { AppError, invalidReceipt } from '../core/errors.js';
import type { AppRecord, RestorePolicy } from '../data/apps.js';
import {
  bindOwnerPart,
  getTransactionBinding,
  lookUpPurchase,
  type PurchaseLookup,
  type PurchaseOwner,
  type PurchaseQuery,
  purchaseLookupKeys,
  purchaseLookupOf,
  type TakeOver,
  type TransactionWrite,
  transferItems,
} from '../data/purchase-ownership.js';
import { type ConfigurableStore, getAppWithStoreSettings, type StoreSettings } from '../data/store-settings.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import { getSubscriptionRecord } from '../data/subscription-queries.js';
import { insertSubscription } from '../data/subscription-writes.js';
import {
  decidePurchase,
  ownedByAnotherUser,
  type PurchaseClaim,
  type PurchaseDecision,
  refusedAsAnotherUsers,
  type StoredPurchase,
  screenTransaction,
} from '../domain/purchase-decision.js';
import { transferredRevenue } from '../domain/revenue-figures.js';
import type { StorePurchaseState, StoreVerifier, VerifiedTransaction } from '../domain/store-purchase.js';
import { environmentOf, storeFacts, type VerifiedPurchaseStart, verifiedPurchaseStart } from '../domain/store-sync.js';
import { RECEIPT_CHARACTERS } from '../schemas/common.js';
import type { VerificationResult, VerifyPurchaseBody } from '../schemas/subscription.js';
import { appStoreVerifier, requireAppReceiptShape } from '../stores/app-store.js';
import { googlePlayVerifier, purchaseReference } from '../stores/google-play.js';
import { jwsOf, statedTransaction } from '../stores/signed-receipt.js';
import { isTestStoreReceipt, testStoreVerifier } from '../stores/test-store.js';
import { guardedStoreCall, storeCallKeys } from './store-call-budget.js';
import { changeWrites, commitChange, type PlannedChange, verifiedSubscription } from './subscriptions.js';

/** The store whose settings verifying a receipt of this platform needs: none for the test store. */
function storeOf(platform: VerifyPurchaseBody['platform'], testStore: boolean): ConfigurableStore | undefined {
  if (testStore) return undefined;
  return platform === 'ios' ? 'app_store' : platform === 'android' ? 'google_play' : undefined;
}

function verifierFor(
  app: AppRecord,
  platform: VerifyPurchaseBody['platform'],
  testStore: boolean,
  settings: StoreSettings[ConfigurableStore] | undefined,
): StoreVerifier {
  if (testStore) {
    if (!app.test_store || !app.test_store_public_key) {
      throw new AppError(
        'INVALID_RECEIPT',
        'test-store receipts are accepted only by apps with the test store on (admin apps update --test-store on)',
      );
    }
    return testStoreVerifier(app.app_id, app.test_store_public_key);
  }
  const missing = (store: string, command: string) =>
    new AppError('VERIFICATION_FAILED', `${store} credentials are not configured for this app (admin ${command})`, {
      retryable: true,
    });
  if (platform === 'ios') {
    if (!settings) throw missing('App Store', 'stores apple set');
    const apple = settings as StoreSettings['app_store'];
    return appStoreVerifier({
      bundleId: apple.bundle_id,
      environment: apple.environment,
      appAppleId: apple.app_apple_id,
      serverApi: apple.server_api,
    });
  }
  if (platform === 'android') {
    if (!settings) throw missing('Google Play', 'stores google set');
    return googlePlayVerifier(settings as StoreSettings['google_play']);
  }
  throw invalidReceipt('web purchases have no store receipt to verify');
}

function result(record: SubscriptionRecord, transaction: VerifiedTransaction): VerificationResult {
  return {
    verification_status: 'valid',
    subscription_id: record.id,
    product_id: record.product_id,
    expires_at: record.expires_at,
    auto_renew: record.auto_renew,
    trial_period: record.trial_period,
    original_transaction_id: transaction.original_transaction_id,
    purchase_date: transaction.purchase_date,
  };
}

async function requireRecord(appId: string, subscriptionId: string): Promise<SubscriptionRecord> {
  const record = await getSubscriptionRecord(appId, subscriptionId);
  if (!record) throw new Error(`binding points at missing subscription ${subscriptionId}`);
  return record;
}

/** What the lifecycle answers a cancellation of a subscription that has ended. */
const endedAlready = (error: unknown) =>
  error instanceof AppError && (error.kind === 'INVALID_STATUS_TRANSITION' || error.kind === 'SUBSCRIPTION_EXPIRED');

/** Ends a subscription now (the previous owner's after a transfer, or one the store refunded); one already ended stays as it is. */
async function cancelUnlessEnded(
  appId: string,
  subscriptionId: string,
  refund: boolean,
  reason: string,
): Promise<void> {
  try {
    await commitChange(
      appId,
      subscriptionId,
      () => ({ command: { type: 'cancel', immediate: true, refund, reason } }),
      { cause: { by: 'verification' } },
    );
  } catch (error) {
    if (!endedAlready(error)) throw error;
  }
}

/**
 * A transaction the store revoked (refunded): if it paid for a running subscription of this user,
 * the subscription is cancelled with a refund (the revenue counters take the price back).
 */
async function recordStoreRefund(appId: string, userId: string, transaction: VerifiedTransaction): Promise<void> {
  const bound = await getTransactionBinding(appId, transaction.transaction_id);
  if (bound && bound.user_id === userId)
    await cancelUnlessEnded(appId, bound.subscription_id, true, 'refunded_by_store');
}

/**
 * A restore that takes the purchase over: the previous owner's subscription ends (cancelled now,
 * its status change notified), written in the transaction that gives the purchase to the new
 * owner, so a crash leaves both or neither. These are its writes, conditioned on the version read:
 * none when it has ended already. A concurrent change of it refuses the whole transaction, and the
 * restore decides again on fresh reads.
 */
async function previousOwnerEnds(appId: string, takeOver: TakeOver): Promise<TransactionWrite[]> {
  const previous = await getSubscriptionRecord(appId, takeOver.fromSubscriptionId);
  if (!previous) throw new AppError('SUBSCRIPTION_NOT_FOUND', `Subscription ${takeOver.fromSubscriptionId} not found`);
  try {
    return await changeWrites(
      appId,
      previous,
      { command: { type: 'cancel', immediate: true, refund: false, reason: 'transferred_to_another_user' } },
      { by: 'verification' },
    );
  } catch (error) {
    if (!endedAlready(error)) throw error;
    return [];
  }
}

/** Binding races (two verifications of one new receipt at once) are settled by re-reading. */
const MAX_ATTEMPTS = 3;

export interface VerifyOptions {
  /** The product the client believes it bought (mobile verify/first): another one is INVALID_RECEIPT. */
  expectedProductId?: string | undefined;
  /** A restore (mobile verify/recover): with the app's `transfer` policy another user's purchase moves to this user. */
  restore?: boolean;
  /** The restore policy of an app that set none (default `block`): the DingYue dialect's is `transfer`. */
  unsetRestorePolicy?: RestorePolicy;
}

/**
 * What verifying a receipt starts from, in one request: the app, its settings at the receipt's
 * store and, when the receipt is a signed transaction, what is stored about the purchase it names
 * (read while its signature is yet to be checked, and deciding nothing until it is).
 */
async function prefetch(appId: string, body: VerifyPurchaseBody) {
  if (!RECEIPT_CHARACTERS.test(body.receipt_data)) throw invalidReceipt('the receipt is neither base64 nor a JWS');
  const testStore = isTestStoreReceipt(body.receipt_data);
  const store = storeOf(body.platform, testStore);
  // Refuse what cannot be an App Store receipt before asking whether we could verify one.
  const jws = store === 'app_store' ? jwsOf(body.receipt_data) : undefined;
  if (store === 'app_store' && !jws) requireAppReceiptShape(body.receipt_data);
  const stated = jws || testStore ? statedTransaction(body.receipt_data) : undefined;
  // A JWS that names no transaction is none the App Store signed: refused before asking for credentials.
  if (jws && !stated) throw invalidReceipt('the JWS is not a signed transaction');
  const statedQuery: PurchaseQuery | undefined = stated && {
    productId: stated.product_id,
    owner: { store: testStore ? 'test_store' : 'app_store', original_transaction_id: stated.original_transaction_id },
    transactionId: stated.transaction_id,
  };
  // What asks a store (Google Play, a legacy App Store receipt) is guarded by the app's budget
  // (store-call-budget.ts), whose items come in this read.
  const asked =
    store === 'google_play'
      ? purchaseReference(body.receipt_data).purchaseToken
      : store === 'app_store' && !jws
        ? body.receipt_data
        : undefined;
  const guardKeys = asked !== undefined ? storeCallKeys(appId, store!, asked) : [];
  const lookupKeys = statedQuery ? purchaseLookupKeys(appId, statedQuery) : [];
  // Only legacy App Store receipts and Google Play need the store credentials (Secrets Manager in AWS).
  const { app, settings, alsoRead } = await getAppWithStoreSettings(appId, store, {
    withCredentials: asked !== undefined,
    alsoRead: [...lookupKeys, ...guardKeys],
  });
  if (!app) throw new Error(`app ${appId} of an authenticated key does not exist`);
  const guardRead = alsoRead.slice(lookupKeys.length);
  return {
    app,
    /** One verification at the store, within the app's budget (store-call-budget.ts) when it asks one. */
    verify: (call: () => Promise<VerifiedTransaction>) =>
      asked !== undefined ? guardedStoreCall(appId, store!, asked, guardRead, call) : call(),
    verifier: verifierFor(app, body.platform, testStore, settings),
    /** The purchase as read with the app, if it is the one verified (the signature covers the stated bytes; compared anyway). */
    lookedUp: (query: PurchaseQuery): PurchaseLookup | undefined =>
      statedQuery !== undefined &&
      statedQuery.productId === query.productId &&
      statedQuery.transactionId === query.transactionId &&
      statedQuery.owner.store === query.owner.store &&
      statedQuery.owner.original_transaction_id === query.owner.original_transaction_id
        ? purchaseLookupOf(alsoRead.slice(0, lookupKeys.length))
        : undefined,
  };
}

export async function verifyPurchase(
  appId: string,
  body: VerifyPurchaseBody,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  const { app, verify, verifier, lookedUp } = await prefetch(appId, body);
  const transaction = await verify(() => verifier.verify(body.receipt_data));
  const claim: PurchaseClaim = {
    appId,
    userId: body.user_id,
    platform: body.platform,
    transactionId: body.transaction_id,
    expectedProductId: options.expectedProductId,
    transfers: options.restore === true && (app.restore_policy ?? options.unsetRestorePolicy) === 'transfer',
  };
  // A transaction refused for what it is costs no further read.
  const refused = screenTransaction(transaction, claim);
  if (refused) return refuse(appId, transaction, claim, refused);
  const query: PurchaseQuery = {
    productId: transaction.product_id,
    owner: { store: transaction.store, original_transaction_id: transaction.original_transaction_id },
    transactionId: transaction.transaction_id,
  };
  let stored: Stored | undefined = lookedUp(query);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // Everything the decision rests on, in one read, afresh on every later attempt.
    stored ??= await lookUpPurchase(appId, query);
    let decision = decidePurchase(transaction, claim, stored);
    if (decision.kind === 'read_subscription') {
      stored = { ...stored, subscription: await requireRecord(appId, decision.subscriptionId) };
      decision = decidePurchase(transaction, claim, stored);
    }
    const record = await apply({ appId, receiptData: body.receipt_data, transaction, claim, stored }, decision);
    if (record) return result(record, transaction);
    stored = undefined; // someone bound this transaction meanwhile: look again
  }
  throw new AppError('VERIFICATION_FAILED', 'this purchase is being verified concurrently; retry', { retryable: true });
}

/**
 * Whether a restore of the receipt by its user would get the purchase, by whom it belongs to and
 * the app's restore policy (purchases-ios's isPurchaseAllowedByRestoreBehavior): verified as
 * verifyPurchase verifies it and decided by the same rows, with nothing written.
 */
export async function restoreAllowed(appId: string, body: VerifyPurchaseBody): Promise<boolean> {
  const { app, verify, verifier, lookedUp } = await prefetch(appId, body);
  const transaction = await verify(() => verifier.verify(body.receipt_data));
  const query: PurchaseQuery = {
    productId: transaction.product_id,
    owner: { store: transaction.store, original_transaction_id: transaction.original_transaction_id },
    transactionId: transaction.transaction_id,
  };
  const stored = lookedUp(query) ?? (await lookUpPurchase(appId, query));
  const claim = { appId, userId: body.user_id, platform: body.platform, transfers: app.restore_policy === 'transfer' };
  return !refusedAsAnotherUsers(decidePurchase(transaction, claim, stored));
}

type Decision = PurchaseDecision<SubscriptionRecord>;

const REFUNDED = {
  kind: 'refund',
  code: 'INVALID_RECEIPT',
  message: 'the store has revoked or refunded this purchase',
} as const;

/** What is stored about the purchase, with the store state a notification left on it. */
type Stored = StoredPurchase<SubscriptionRecord> & { storeState?: StorePurchaseState | undefined };

/** One verification as its decision is carried out: the receipt, the transaction its store verified, who asks, what is stored. */
interface Verification {
  appId: string;
  receiptData: string;
  transaction: VerifiedTransaction;
  claim: PurchaseClaim;
  stored: Stored;
}

type DecisionOf<K extends Decision['kind']> = Extract<Decision, { kind: K }>;

async function refuse(
  appId: string,
  transaction: VerifiedTransaction,
  claim: PurchaseClaim,
  decision: DecisionOf<'reject' | 'refund'>,
): Promise<never> {
  if (decision.kind === 'refund') await recordStoreRefund(appId, claim.userId, transaction);
  throw new AppError(decision.code, decision.message);
}

/** Carries out a decision: the subscription the transaction pays for, or undefined when it must be decided again on a fresh read. */
function apply(verification: Verification, decision: Decision): Promise<SubscriptionRecord | undefined> {
  const { appId, transaction, claim } = verification;
  switch (decision.kind) {
    case 'reject':
    case 'refund':
      return refuse(appId, transaction, claim, decision);
    case 'read_subscription':
      throw new Error('decided without the subscription it rests on');
    case 'answer':
      return answer(verification, decision);
    case 'renew':
      return renew(verification, decision);
    case 'activate':
      return activate(verification, decision);
    case 'insert':
      return insert(verification, decision);
  }
}

const ownerOf = (transaction: VerifiedTransaction): PurchaseOwner => ({
  store: transaction.store,
  original_transaction_id: transaction.original_transaction_id,
});

/** The payment a transaction records: a trial pays nothing. */
const paidBy = (transaction: VerifiedTransaction) =>
  transaction.trial ? {} : { last_payment: transaction.purchase_date };

/**
 * Commits a change decided again on the latest record (a concurrent verification of this
 * transaction may have made it); undefined when an alsoWrite item refused it (the previous owner's
 * subscription changed): decide again.
 */
async function commitDecided(
  { appId, transaction, claim, stored }: Verification,
  subscription: SubscriptionRecord,
  plan: (again: Decision, latest: SubscriptionRecord, now: Date) => PlannedChange | null,
): Promise<SubscriptionRecord | undefined> {
  const change = await commitChange(
    appId,
    subscription.id,
    (latest, now) => plan(decidePurchase(transaction, claim, { ...stored, subscription: latest }), latest, now),
    { current: subscription, cause: { by: 'verification' } },
  );
  return change.refused === undefined ? change.record : undefined;
}

/**
 * Verified already: nothing changes. Restored under the transfer policy, the previous owner's
 * subscription ends (one write of its own: this one's stays as it is).
 */
async function answer({ appId }: Verification, decision: DecisionOf<'answer'>): Promise<SubscriptionRecord> {
  if (decision.takeOver)
    await cancelUnlessEnded(appId, decision.takeOver.fromSubscriptionId, false, 'transferred_to_another_user');
  return decision.subscription;
}

/** A later transaction of a running purchase: the store's truth as the receipt tells it, the same path as a store notification's. */
function renew(verification: Verification, decision: DecisionOf<'renew'>): Promise<SubscriptionRecord | undefined> {
  const { transaction, receiptData } = verification;
  const receiptState: StorePurchaseState = { ...transaction, renewal: null, as_of: transaction.purchase_date };
  return commitDecided(verification, decision.subscription, (again) =>
    again.kind === 'renew'
      ? {
          command: { type: 'sync', facts: storeFacts(receiptState) },
          storeState: receiptState,
          payment: { ...paidBy(transaction), transaction_id: transaction.transaction_id, receipt_data: receiptData },
          bindTransaction: transaction.transaction_id,
        }
      : null,
  );
}

/**
 * A pending_verification record of this transaction becomes active. Taking the purchase over, the
 * move, its transfer and the previous owner's end are written with the activation.
 */
async function activate(
  verification: Verification,
  decision: DecisionOf<'activate'>,
): Promise<SubscriptionRecord | undefined> {
  const { appId, transaction } = verification;
  const { takeOver } = decision;
  const owner = ownerOf(transaction);
  const previousEnds = takeOver ? await previousOwnerEnds(appId, takeOver) : [];
  return commitDecided(verification, decision.subscription, (again, latest, now) =>
    again.kind === 'activate'
      ? {
          command: { type: 'activate', expires_at: again.expiresAt },
          payment: paidBy(transaction),
          bindOwner: again.bindOwner && !takeOver ? owner : undefined,
          alsoWrite: takeOver && [
            bindOwnerPart(latest, owner, takeOver),
            ...transferItems(latest, owner, takeOver, now),
            ...previousEnds,
          ],
        }
      : null,
  );
}

/**
 * A new purchase: recorded and activated in one write, with a takeover's end of the previous
 * owner's subscription. Undefined when the transaction or an alsoWrite item was taken meanwhile.
 */
async function insert(
  verification: Verification,
  decision: DecisionOf<'insert'>,
): Promise<SubscriptionRecord | undefined> {
  const { appId, transaction, claim, stored } = verification;
  // A refund kept on the purchase refuses only the transaction it refunds (verifiedPurchaseStart).
  const start = verifiedPurchaseStart(transaction, stored.storeState);
  if (start.kind === 'refunded') return refuse(appId, transaction, claim, REFUNDED);
  const { record, payment, statusChange, revenue } = newSubscription(verification, decision, start);
  const inserted = await insertSubscription(record, payment, {
    owner: ownerOf(transaction),
    takeOver: decision.takeOver,
    statusChange,
    revenue: decision.revenue === 'transferred' ? transferredRevenue(revenue) : revenue,
    cause: { by: 'verification', action: 'create' },
    alsoWrite: decision.takeOver && (await previousOwnerEnds(appId, decision.takeOver)),
  });
  if (inserted.inserted) return record;
  if (inserted.reason === 'owned_by_another_user') return refuse(appId, transaction, claim, ownedByAnotherUser());
  return undefined;
}

/**
 * The subscription a new purchase starts, from the store's latest word on it (a notification that
 * arrived before the app verified the purchase) when there is one, else from the transaction.
 */
function newSubscription(
  { appId, receiptData, transaction, claim }: Verification,
  decision: DecisionOf<'insert'>,
  start: Extract<VerifiedPurchaseStart, { kind: 'start' }>,
) {
  const latest = start.from;
  const period = latest ?? transaction;
  const paidPeriod = latest && !latest.trial ? latest : undefined;
  return verifiedSubscription(
    appId,
    {
      user_id: claim.userId,
      product_id: decision.productId,
      platform: transaction.platform,
      price: paidPeriod?.price ?? decision.price,
      currency: paidPeriod?.currency ?? decision.currency,
      billing_period: decision.billingPeriod,
      started_at: transaction.purchase_date,
      expires_at: period.expires_at,
      auto_renew: latest?.renewal?.auto_renew ?? Date.parse(period.expires_at) > Date.now(),
      trial_period: period.trial,
      trial_expires_at: period.trial ? period.expires_at : null,
      transaction_id: transaction.transaction_id,
      receipt_data: receiptData,
      store: transaction.store,
      original_transaction_id: transaction.original_transaction_id,
      environment: environmentOf(transaction.environment),
    },
    paidBy(transaction),
    new Date(),
    latest && storeFacts(latest),
    start.earlierRefund,
  );
}
