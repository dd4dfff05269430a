/**
 * Purchase verification: a receipt is verified by its store, then bound to the app and user.
 *
 * - A store purchase (original transaction / purchase token) belongs to one user of one app;
 *   another user presenting it gets RECEIPT_ALREADY_USED.
 * - A purchase the app made for an account (appAccountToken, obfuscatedExternalAccountId) is
 *   that account's user's only, even before anyone has verified it and whatever the restore policy.
 * - A transaction pays once: verifying it again returns the same result and changes nothing.
 * - A new purchase is recorded active in one write: the pending_verification record every
 *   subscription starts as, activated through the lifecycle table (which gives the status change
 *   and its notification), bound to the transaction and its owner. A record still pending (made
 *   by POST /subscriptions, or left by an older version between its two writes) is activated by
 *   the next verification of its receipt.
 * - A later transaction of an owned purchase whose subscription is running is a renewal; one
 *   whose subscription has ended is a resubscription: a new subscription.
 */
import type { AppRecord } from '../data/apps.js';
import {
  getTransactionBinding,
  lookUpPurchase,
  type PurchaseOwner,
  type PurchaseQuery,
  purchaseLookupKeys,
  purchaseLookupOf,
  type TakeOver,
} from '../data/purchase-ownership.js';
import type { SubscriptionRecord } from '../data/subscription-items.js';
import { getSubscriptionRecord } from '../data/subscription-queries.js';
import { insertSubscription } from '../data/subscription-writes.js';
import { accountTokenAllows } from '../domain/app-account-token.js';
import { transferredRevenue } from '../domain/revenue.js';
import { AppError } from '../errors.js';
import { RECEIPT_CHARACTERS } from '../schemas/common.js';
import type { VerificationResult, VerifyPurchaseBody } from '../schemas/subscription.js';
import { appStoreVerifier, requireAppReceiptShape } from '../stores/app-store.js';
import { googlePlayVerifier } from '../stores/google-play.js';
import { type ConfigurableStore, getAppWithStoreSettings, type StoreSettings } from '../stores/settings.js';
import { isTestStoreReceipt, testStoreVerifier } from '../stores/test-store.js';
import { jwsOf, type StoreVerifier, statedTransaction, type VerifiedTransaction } from '../stores/types.js';
import { commitChange, verifiedSubscription } from './subscriptions.js';

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
  throw new AppError('INVALID_RECEIPT', 'web purchases have no store receipt to verify');
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

/** Ends a subscription now (the previous owner's after a transfer, or one the store refunded); one already ended stays as it is. */
async function cancelUnlessEnded(
  appId: string,
  subscriptionId: string,
  refund: boolean,
  reason: string,
): Promise<void> {
  try {
    await commitChange(appId, subscriptionId, () => ({ command: { type: 'cancel', immediate: true, refund, reason } }));
  } catch (error) {
    const ended =
      error instanceof AppError &&
      (error.kind === 'INVALID_STATUS_TRANSITION' || error.kind === 'SUBSCRIPTION_EXPIRED');
    if (!ended) throw error;
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

/** Running subscriptions take renewals; ended ones are replaced by a new subscription. */
const RUNNING = new Set(['active', 'paused', 'pending_verification']);

/** Binding races (two verifications of one new receipt at once) are settled by re-reading. */
const MAX_ATTEMPTS = 3;

export interface VerifyOptions {
  /** The product the client believes it bought (mobile verify/first): another one is INVALID_RECEIPT. */
  expectedProductId?: string | undefined;
  /** A restore (mobile verify/recover): with the app's `transfer` policy another user's purchase moves to this user. */
  restore?: boolean;
}

export async function verifyPurchase(
  appId: string,
  body: VerifyPurchaseBody,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  if (!RECEIPT_CHARACTERS.test(body.receipt_data))
    throw new AppError('INVALID_RECEIPT', 'the receipt is neither base64 nor a JWS');
  const testStore = isTestStoreReceipt(body.receipt_data);
  const store = storeOf(body.platform, testStore);
  // Refuse what cannot be an App Store receipt before asking whether we could verify one.
  const jws = store === 'app_store' ? jwsOf(body.receipt_data) : undefined;
  if (store === 'app_store' && !jws) requireAppReceiptShape(body.receipt_data);
  // A signed transaction names its purchase: what the decision rests on is read with the app, in
  // one request, while the signature is yet to be checked (and decides nothing until it is).
  const stated = jws || testStore ? statedTransaction(body.receipt_data) : undefined;
  const statedQuery: PurchaseQuery | undefined = stated && {
    productId: stated.product_id,
    owner: { store: testStore ? 'test_store' : 'app_store', original_transaction_id: stated.original_transaction_id },
    transactionId: stated.transaction_id,
  };
  // Only legacy App Store receipts and Google Play need the store credentials (Secrets Manager in AWS).
  const { app, settings, alsoRead } = await getAppWithStoreSettings(appId, store, {
    withCredentials: store === 'google_play' || (store === 'app_store' && !jws),
    alsoRead: statedQuery ? purchaseLookupKeys(appId, statedQuery) : [],
  });
  if (!app) throw new Error(`app ${appId} of an authenticated key does not exist`);
  const transaction = await verifierFor(app, body.platform, testStore, settings).verify(body.receipt_data);
  if (transaction.platform !== body.platform) {
    throw new AppError('INVALID_RECEIPT', `the receipt was issued for ${transaction.platform}, not ${body.platform}`);
  }
  if (transaction.revoked) {
    await recordStoreRefund(appId, body.user_id, transaction);
    throw new AppError('INVALID_RECEIPT', 'the store has revoked or refunded this purchase');
  }
  if (
    body.transaction_id &&
    body.transaction_id !== transaction.transaction_id &&
    body.transaction_id !== transaction.original_transaction_id
  ) {
    throw new AppError('INVALID_RECEIPT', 'transaction_id is not a transaction of this receipt');
  }
  if (options.expectedProductId !== undefined && options.expectedProductId !== transaction.product_id) {
    throw new AppError(
      'INVALID_RECEIPT',
      `the receipt is for product ${transaction.product_id}, not ${options.expectedProductId}`,
    );
  }
  if (!accountTokenAllows(transaction.app_account_token, appId, body.user_id)) {
    throw new AppError(
      'RECEIPT_ALREADY_USED',
      'This purchase was made for another user (the app account token it carries)',
    );
  }
  const transfers = options.restore === true && app.restore_policy === 'transfer';
  const owner: PurchaseOwner = {
    store: transaction.store,
    original_transaction_id: transaction.original_transaction_id,
  };
  const alreadyUsed = () => new AppError('RECEIPT_ALREADY_USED', 'This purchase belongs to another user');
  const paid = transaction.trial ? {} : { last_payment: transaction.purchase_date };

  const query: PurchaseQuery = { productId: transaction.product_id, owner, transactionId: transaction.transaction_id };
  // The verified transaction is the one stated (the signature covers those bytes); compared anyway.
  const asStated =
    statedQuery !== undefined &&
    statedQuery.productId === query.productId &&
    statedQuery.transactionId === query.transactionId &&
    statedQuery.owner.store === owner.store &&
    statedQuery.owner.original_transaction_id === owner.original_transaction_id;
  const readWithApp = asStated ? purchaseLookupOf(alsoRead) : undefined;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // Everything the decision rests on, in one read, afresh on every later attempt.
    const { product, owned, binding } = attempt === 1 && readWithApp ? readWithApp : await lookUpPurchase(appId, query);
    if (!product)
      throw new AppError(
        'INVALID_RECEIPT',
        `product ${transaction.product_id} of the receipt is not in this app's catalogue`,
      );
    let takeOver: TakeOver | undefined;
    if (owned && owned.user_id !== body.user_id) {
      if (!transfers) throw alreadyUsed();
      // Restore with the transfer policy: the previous owner's subscription ends (their status
      // change is notified), and the purchase continues as a new subscription of this user.
      await cancelUnlessEnded(appId, owned.subscription_id, false, 'transferred_to_another_user');
      takeOver = { fromUserId: owned.user_id, fromSubscriptionId: owned.subscription_id };
    }
    const bound = takeOver && binding?.subscription_id === takeOver.fromSubscriptionId ? undefined : binding;
    if (bound && bound.user_id !== body.user_id) throw alreadyUsed();

    if (!bound && owned && !takeOver) {
      const current = await requireRecord(appId, owned.subscription_id);
      if (RUNNING.has(current.status)) {
        // A later transaction of a running purchase: a renewal (an older one changes nothing).
        // Decided on the latest record: a concurrent verification of this renewal may have made it.
        const renews = (record: SubscriptionRecord) =>
          record.status === 'active' && Date.parse(transaction.expires_at) > Date.parse(record.expires_at);
        if (!renews(current)) return result(current, transaction);
        const renewed = await commitChange(
          appId,
          current.id,
          (latest) =>
            renews(latest)
              ? {
                  command: { type: 'renew', expires_at: transaction.expires_at },
                  payment: { ...paid, transaction_id: transaction.transaction_id, receipt_data: body.receipt_data },
                  bindTransaction: transaction.transaction_id,
                }
              : null,
          { current },
        );
        return result(renewed.record, transaction);
      }
    }

    // The subscription this transaction pays for, as just read or written.
    let current: SubscriptionRecord;
    if (bound) {
      current = await requireRecord(appId, bound.subscription_id);
    } else {
      // A new purchase: recorded and activated in one write.
      const { record, payment, statusChange, revenue } = verifiedSubscription(
        appId,
        {
          user_id: body.user_id,
          product_id: product.id,
          platform: body.platform,
          price: transaction.trial ? product.price : (transaction.price ?? product.price),
          currency: transaction.trial ? product.currency : (transaction.currency ?? product.currency),
          started_at: transaction.purchase_date,
          expires_at: transaction.expires_at,
          auto_renew: Date.parse(transaction.expires_at) > Date.now(),
          trial_period: transaction.trial,
          trial_expires_at: transaction.trial ? transaction.expires_at : null,
          transaction_id: transaction.transaction_id,
          receipt_data: body.receipt_data,
        },
        paid,
        new Date(),
      );
      const inserted = await insertSubscription(record, payment, {
        owner,
        takeOver,
        statusChange,
        revenue: takeOver ? transferredRevenue(revenue) : revenue,
      });
      if (!inserted.inserted) {
        if (inserted.reason === 'owned_by_another_user') throw alreadyUsed();
        continue; // someone bound this transaction meanwhile: look again
      }
      return result(record, transaction);
    }

    if (current.status !== 'pending_verification') return result(current, transaction);
    // A concurrent verification of this receipt may have activated it meanwhile: then it stays as that left it.
    const activated = await commitChange(
      appId,
      current.id,
      (latest) =>
        latest.status === 'pending_verification'
          ? {
              command: { type: 'activate', expires_at: transaction.expires_at },
              payment: paid,
              // A record created by POST /subscriptions is not yet known as this purchase's.
              bindOwner: latest.user_id === body.user_id ? owner : undefined,
            }
          : null,
      { current },
    );
    return result(activated.record, transaction);
  }
  throw new AppError('VERIFICATION_FAILED', 'this purchase is being verified concurrently; retry', { retryable: true });
}
