/** Minting the test store's receipts and notifications, signed with an app's test-store key. */
import { getApp } from '../../lib/data/apps.js';
import { getProduct } from '../../lib/data/products.js';
import { getPurchaseOwner, getPurchaseStoreState, getTransactionBinding } from '../../lib/data/purchase-ownership.js';
import { testStorePrivateKey } from '../../lib/data/store-settings.js';
import { getSubscription } from '../../lib/data/subscription-queries.js';
import { appAccountTokenFor, isUuid } from '../../lib/domain/app-account-token.js';
import { addBillingPeriod, addDays } from '../../lib/domain/billing.js';
import type { VerifiedTransaction } from '../../lib/domain/store-purchase.js';
import { notificationPath } from '../../lib/routes.js';
import { userIdSchema } from '../../lib/schemas/common.js';
import { mintTestReceipt, type TestTransaction, testStoreVerifier } from '../../lib/stores/test-store.js';
import {
  APPLE_TYPE_OF,
  isTestNotificationType,
  latestTestTransaction,
  mintTestNotification,
  TEST_NOTIFICATION_TYPES,
} from '../../lib/stores/test-store-notifications.js';
import { CliError, type CommandTable } from '../command.js';
import { requireApp, required } from '../options.js';

/** `--for-user` (the user's token, computed) or `--app-account-token` (as given): the account a minted purchase is made for. */
function accountTokenOption(appId: string, values: Record<string, unknown>): string | undefined {
  const forUser = values['for-user'];
  const token = values['app-account-token'];
  if (forUser !== undefined && token !== undefined)
    throw new CliError('give --for-user or --app-account-token, not both');
  if (typeof forUser === 'string') {
    if (!userIdSchema.safeParse(forUser).success)
      throw new CliError('--for-user must be a user id of 1-256 characters');
    return appAccountTokenFor(appId, forUser);
  }
  if (typeof token === 'string' && !isUuid(token))
    throw new CliError('--app-account-token must be a UUID (StoreKit sets appAccountToken to one)');
  return typeof token === 'string' ? token : undefined;
}

/** The app's test-store signing key, or NOT_TEST_STORE when the app has no test store. */
async function requireTestStoreKey(appId: string): Promise<{ privateKeyPem: string; publicKeyPem: string }> {
  const app = (await getApp(appId))!;
  const privateKeyPem = app.test_store ? await testStorePrivateKey(app) : undefined;
  if (!privateKeyPem || !app.test_store_public_key)
    throw new CliError(
      `app ${appId} has no test store: \`apps update --app ${appId} --test-store on\` turns it on`,
      'NOT_TEST_STORE',
    );
  return { privateKeyPem, publicKeyPem: app.test_store_public_key };
}

/**
 * The test-store purchase a transaction id belongs to (any of its transactions, or its original
 * transaction id), and its latest transaction as the store knows it (latestTestTransaction: the
 * state its last notification left, its receipt, or its subscription's period).
 */
async function testStorePurchase(
  appId: string,
  publicKeyPem: string,
  transactionId: string,
): Promise<{ subscriptionId: string; latest: TestTransaction; autoRenew: boolean }> {
  const subscriptionId =
    (await getTransactionBinding(appId, transactionId))?.subscription_id ??
    (await getPurchaseOwner(appId, transactionId))?.subscription_id;
  const stored = subscriptionId && (await getSubscription(appId, subscriptionId));
  if (!subscriptionId || !stored)
    throw new CliError(
      `transaction ${transactionId} is no purchase of ${appId} (verify its receipt first)`,
      'NOT_FOUND',
    );
  const { record, payment } = stored;
  const receipt: VerifiedTransaction | undefined = payment.receipt_data
    ? await testStoreVerifier(appId, publicKeyPem)
        .verify(payment.receipt_data)
        .catch(() => undefined)
    : undefined;
  if (!receipt || (record.platform !== 'ios' && record.platform !== 'android'))
    throw new CliError(
      `transaction ${transactionId} is not a test-store purchase of ${appId} (its subscription ${subscriptionId} has no test-store receipt)`,
      'NOT_TEST_STORE',
    );
  const storeState = await getPurchaseStoreState(appId, receipt.original_transaction_id);
  return {
    subscriptionId,
    autoRenew: record.auto_renew,
    latest: latestTestTransaction({
      record: { ...record, platform: record.platform },
      payment,
      receipt,
      storeState,
    }),
  };
}

export const testStoreCommands: CommandTable = {
  'receipts mint': {
    usage:
      'receipts mint --app A --platform ios|android --product P [--expires-in SECONDS] [--trial] [--renews TRANSACTION_ID] [--revokes TRANSACTION_ID [--original ID]] [--for-user USER | --app-account-token UUID]',
    options: {
      app: { type: 'string' },
      platform: { type: 'string' },
      product: { type: 'string' },
      'expires-in': { type: 'string' },
      trial: { type: 'boolean', default: false },
      renews: { type: 'string' },
      revokes: { type: 'string' },
      original: { type: 'string' },
      'for-user': { type: 'string' },
      'app-account-token': { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const appAccountToken = accountTokenOption(appId, values);
      const { privateKeyPem } = await requireTestStoreKey(appId);
      const platform = required(values, 'platform');
      if (platform !== 'ios' && platform !== 'android') throw new CliError('--platform must be ios or android');
      const product = await getProduct(appId, required(values, 'product'));
      if (!product)
        throw new CliError(`product ${String(values.product)} is not in the catalogue of ${appId}`, 'NOT_FOUND');
      const trial = values.trial === true;
      if (trial && product.trial_period_days === 0) throw new CliError(`product ${product.id} has no trial period`);
      const now = new Date();
      const defaultEnd = trial
        ? addDays(now, product.trial_period_days)
        : addBillingPeriod(now, product.billing_period);
      const expiresIn =
        values['expires-in'] === undefined
          ? Math.round((defaultEnd.getTime() - now.getTime()) / 1000)
          : Number(values['expires-in']);
      if (!Number.isInteger(expiresIn))
        throw new CliError('--expires-in must be a whole number of seconds (negative mints an expired purchase)');
      const minted = mintTestReceipt({
        appId,
        privateKeyPem,
        productId: product.id,
        platform,
        price: product.price,
        currency: product.currency,
        expiresInSeconds: expiresIn,
        trial,
        originalTransactionId: typeof values.renews === 'string' ? values.renews : undefined,
        // The store refunding a transaction: the same ids with a revocation date.
        revokes:
          typeof values.revokes === 'string'
            ? {
                transactionId: values.revokes,
                originalTransactionId: typeof values.original === 'string' ? values.original : values.revokes,
              }
            : undefined,
        appAccountToken,
        now,
      });
      return {
        json: { ...minted, app_account_token: appAccountToken ?? null },
        text: [
          `Test-store receipt for ${product.id} on ${platform}, transaction ${minted.transaction_id}, expires in ${expiresIn} s${appAccountToken ? `, app account token ${appAccountToken}` : ''}:`,
          minted.receipt_data,
        ].join('\n'),
      };
    },
  },
  'notifications mint': {
    usage: `notifications mint --app A --transaction T --type ${TEST_NOTIFICATION_TYPES.join('|')} [--expires-in SECONDS] [--product P]`,
    options: {
      app: { type: 'string' },
      transaction: { type: 'string' },
      type: { type: 'string' },
      'expires-in': { type: 'string' },
      product: { type: 'string' },
    },
    async run(values) {
      const type = required(values, 'type');
      if (!isTestNotificationType(type))
        throw new CliError(`--type must be one of ${TEST_NOTIFICATION_TYPES.join(', ')}`);
      if (type === 'product_changed' && values.product === undefined)
        throw new CliError('--product is required with --type product_changed (the product upgraded to)');
      const expiresIn = values['expires-in'] === undefined ? undefined : Number(values['expires-in']);
      if (expiresIn !== undefined && !Number.isInteger(expiresIn))
        throw new CliError('--expires-in must be a whole number of seconds');
      const transactionId = required(values, 'transaction');
      const appId = await requireApp(values);
      const { privateKeyPem, publicKeyPem } = await requireTestStoreKey(appId);
      const purchase = await testStorePurchase(appId, publicKeyPem, transactionId);
      let product: { productId: string; price: number; currency: string } | undefined;
      if (type === 'product_changed') {
        const found = await getProduct(appId, required(values, 'product'));
        if (!found)
          throw new CliError(`product ${String(values.product)} is not in the catalogue of ${appId}`, 'NOT_FOUND');
        product = { productId: found.id, price: found.price, currency: found.currency };
      }
      const body = mintTestNotification({
        appId,
        privateKeyPem,
        type,
        latest: purchase.latest,
        autoRenew: purchase.autoRenew,
        expiresInSeconds: expiresIn,
        product,
      });
      const path = notificationPath('test_store', appId);
      const apple = APPLE_TYPE_OF[type];
      return {
        json: { path, body },
        text: [
          `Test-store notification ${type} (${apple.notificationType}${apple.subtype ? ` ${apple.subtype}` : ''}) about transaction ${transactionId} of subscription ${purchase.subscriptionId}; POST the body as JSON to the path:`,
          JSON.stringify({ path, body }),
        ].join('\n'),
      };
    },
  },
};
