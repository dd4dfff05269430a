/** Operator commands. Each returns a human text and one JSON document; cli.ts prints one of them. */
import { readFile } from 'node:fs/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type * as z from 'zod/mini';
import { config } from '../lib/core/config.js';
import { AppError } from '../lib/core/errors.js';
import type { ApiKeyKind } from '../lib/core/ids.js';
import {
  issueKey,
  issueUserTokenSecret,
  listAppKeys,
  revokeKey,
  revokeKeyById,
  rotateKey,
  setUserTokenRequired,
  UserTokenSecretExists,
} from '../lib/data/api-keys.js';
import { putAdsConfig, putSegments } from '../lib/data/app-config.js';
import {
  type AppSummary,
  addAppsToDirectory,
  createApp,
  getApp,
  listApps,
  RESTORE_POLICIES,
  type RestorePolicy,
  setRestorePolicy,
  setTestStore,
} from '../lib/data/apps.js';
import { rebuildListCounts } from '../lib/data/count-rebuild.js';
import { putEntitlements } from '../lib/data/entitlements.js';
import { getProduct, listProducts, putProducts } from '../lib/data/products.js';
import { getPurchaseOwner, getPurchaseStoreState, getTransactionBinding } from '../lib/data/purchase-ownership.js';
import { putExchangeRates } from '../lib/data/revenue-reads.js';
import {
  appStoreSettingsSchema,
  type ConfigurableStore,
  CredentialsNeedSecretsManager,
  googlePlaySettingsSchema,
  keepTestStorePrivateKey,
  publicKeyOfKeptTestStoreKey,
  putStoreSettings,
  type StoreSettings,
  testStorePrivateKey,
} from '../lib/data/store-settings.js';
import { getSubscription } from '../lib/data/subscription-queries.js';
import { rewriteSubscriptions } from '../lib/data/subscription-rewrite.js';
import { getWebhook, setWebhook } from '../lib/data/webhooks.js';
import { appAccountTokenFor, isUuid } from '../lib/domain/app-account-token.js';
import { addBillingPeriod, addDays } from '../lib/domain/billing.js';
import {
  DEFAULT_RATE_LIMIT_TIER,
  isRateLimitTier,
  RATE_LIMIT_TIERS,
  type RateLimitTier,
} from '../lib/domain/rate-limit.js';
import type { VerifiedTransaction } from '../lib/domain/store-purchase.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../lib/domain/webhook-deliveries.js';
import { type EventFilter, parseEventFilter } from '../lib/domain/webhook-filter.js';
import { isPaused } from '../lib/domain/webhook-scheduling.js';
import { EVENT_KINDS } from '../lib/events/schemas.js';
import { toDetails } from '../lib/http/parse.js';
import { notificationPath } from '../lib/routes.js';
import { adsConfigSchema } from '../lib/schemas/ads.js';
import { appIdSchema, currencySchema, userIdSchema } from '../lib/schemas/common.js';
import { entitlementCatalogueSchema } from '../lib/schemas/entitlement.js';
import { exchangeRatesSchema } from '../lib/schemas/fx.js';
import { productCatalogueSchema } from '../lib/schemas/product.js';
import { segmentCatalogueSchema } from '../lib/schemas/segment.js';
import { listDeliveryPage, redeliver } from '../lib/services/webhook-delivery.js';
import { webhookUrlRefusal } from '../lib/services/webhook-targets.js';
import { mintTestReceipt, type TestTransaction, testStoreVerifier } from '../lib/stores/test-store.js';
import {
  APPLE_TYPE_OF,
  isTestNotificationType,
  latestTestTransaction,
  mintTestNotification,
  TEST_NOTIFICATION_TYPES,
} from '../lib/stores/test-store-notifications.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'USAGE',
  ) {
    super(message);
  }
}

export interface CommandResult {
  text: string;
  json: unknown;
}

type Options = NonNullable<ParseArgsConfig['options']>;

interface Command {
  usage: string;
  options: Options;
  run(values: Record<string, string | boolean | undefined>): Promise<CommandResult>;
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`--${name} is required`);
  return value;
}

async function requireApp(values: Record<string, unknown>): Promise<string> {
  const appId = required(values, 'app');
  if (!appIdSchema.safeParse(appId).success)
    throw new CliError(`--app ${appId} is not an app id (app_ followed by 16 hex digits)`);
  if (!(await getApp(appId))) throw new CliError(`app ${appId} does not exist`, 'NOT_FOUND');
  return appId;
}

function kindOf(values: Record<string, unknown>): ApiKeyKind {
  const kind = required(values, 'kind');
  if (kind !== 'secret' && kind !== 'sdk') throw new CliError('--kind must be secret or sdk');
  return kind;
}

/** `--tier`, when given; the limits per tier come from the configuration (RATE_LIMIT_<TIER>_PER_MINUTE). */
function tierOf(values: Record<string, unknown>): RateLimitTier | undefined {
  const tier = values.tier;
  if (tier === undefined) return undefined;
  if (!isRateLimitTier(tier)) throw new CliError(`--tier must be one of ${RATE_LIMIT_TIERS.join(', ')}`);
  return tier;
}

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

const describeTier = (tier: RateLimitTier) => `${tier} tier, ${config.rateLimits[tier]} requests/minute`;

const COMMANDS: Record<string, Command> = {
  'apps create': {
    usage: `apps create --name N [--test-store] [--currency USD] [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: {
      name: { type: 'string' },
      'test-store': { type: 'boolean', default: false },
      currency: { type: 'string', default: 'USD' },
      tier: { type: 'string' },
    },
    async run(values) {
      const name = required(values, 'name');
      if (name.length > 200) throw new CliError('--name must be at most 200 characters');
      const currency = currencySchema.safeParse(values.currency);
      if (!currency.success) throw new CliError('--currency must be a 3-letter ISO 4217 code');
      const tier = tierOf(values) ?? DEFAULT_RATE_LIMIT_TIER;
      const { app, secretKey, sdkKey } = await createApp({
        name,
        reportingCurrency: currency.data,
        testStore: values['test-store'] === true,
        tier,
        keepTestStoreKey: keepTestStorePrivateKey,
      });
      return {
        json: { app_id: app.app_id, secret_key: secretKey.key, sdk_key: sdkKey.key },
        text: [
          `Created app ${app.app_id} "${app.name}" (reporting currency ${app.reporting_currency}${app.test_store ? ', test store on' : ''}).`,
          `secret_key  ${secretKey.key}   (Authorization: Bearer ..., subscription API)`,
          `sdk_key     ${sdkKey.key}   (X-API-KEY, mobile API)`,
          `Both keys: ${describeTier(tier)}.`,
          'The keys are shown only now: the service stores only their SHA-256 hashes.',
        ].join('\n'),
      };
    },
  },
  'apps list': {
    usage: 'apps list [--scan]',
    options: { scan: { type: 'boolean', default: false } },
    async run(values) {
      // After an upgrade from a version without the directory: find the older apps first.
      const added =
        values.scan === true
          ? await addAppsToDirectory({
              onPage: ({ scanned, apps }) => console.error(`scanned ${scanned} item(s), ${apps} app(s) found`),
            })
          : undefined;
      const apps = await listApps();
      const line = (app: AppSummary) =>
        [
          app.app_id,
          JSON.stringify(app.name),
          app.reporting_currency,
          app.test_store ? 'test store on' : 'test store off',
          `restore ${app.restore_policy}`,
          app.require_user_token ? 'user tokens required' : 'no user tokens',
          `created ${app.created_at}`,
        ].join('  ');
      return {
        json: { apps },
        text: [
          ...(added ? [`Scanned ${added.scanned} item(s): ${added.apps} app(s) in the directory.`] : []),
          apps.length === 0 ? 'No apps yet: npm run --silent admin -- apps create --name N' : `${apps.length} app(s):`,
          ...apps.map(line),
        ].join('\n'),
      };
    },
  },
  'apps update': {
    usage: 'apps update --app A [--restore-policy block|transfer] [--require-user-token on|off] [--test-store on|off]',
    options: {
      app: { type: 'string' },
      'restore-policy': { type: 'string' },
      'require-user-token': { type: 'string' },
      'test-store': { type: 'string' },
    },
    async run(values) {
      const policy = values['restore-policy'];
      const userToken = values['require-user-token'];
      const testStore = values['test-store'];
      if (policy === undefined && userToken === undefined && testStore === undefined)
        throw new CliError('give --restore-policy, --require-user-token and/or --test-store');
      if (testStore !== undefined && testStore !== 'on' && testStore !== 'off')
        throw new CliError('--test-store must be on or off');
      if (policy !== undefined && !(RESTORE_POLICIES as readonly string[]).includes(policy as string))
        throw new CliError(`--restore-policy must be one of ${RESTORE_POLICIES.join(', ')}`);
      if (userToken !== undefined && userToken !== 'on' && userToken !== 'off')
        throw new CliError('--require-user-token must be on or off');
      const appId = await requireApp(values);
      const json: Record<string, unknown> = { app_id: appId };
      const text: string[] = [];
      if (policy !== undefined) {
        await setRestorePolicy(appId, policy as RestorePolicy);
        json.restore_policy = policy;
        text.push(
          policy === 'transfer'
            ? `${appId}: restoring a purchase owned by another user moves it to the restoring user.`
            : `${appId}: restoring a purchase owned by another user is refused (RECEIPT_ALREADY_USED).`,
        );
      }
      if (userToken !== undefined) {
        const setting = await setUserTokenRequired(appId, userToken === 'on');
        json.require_user_token = setting.require_user_token;
        if (setting.issued_secret) json.user_token_secret = setting.issued_secret;
        text.push(
          setting.require_user_token
            ? `${appId}: mobile requests acting on a user now need X-USER-TOKEN signed with the app's user-token secret.`
            : `${appId}: mobile requests no longer need X-USER-TOKEN (the secret is kept for turning it on again).`,
          ...(setting.issued_secret
            ? [`User-token secret (for the app's server; shown only now): ${setting.issued_secret}`]
            : []),
        );
      }
      if (testStore !== undefined) {
        const setting = await setTestStore(appId, testStore === 'on', {
          keepTestStoreKey: keepTestStorePrivateKey,
          publicKeyOfKept: publicKeyOfKeptTestStoreKey,
        });
        json.test_store = setting.test_store;
        text.push(
          setting.test_store
            ? `${appId}: the test store is on: \`receipts mint --app ${appId} ...\` mints receipts that POST /v1/subscriptions/verify accepts${setting.generated_key ? ' (a new signing key was generated)' : ''}.`
            : `${appId}: the test store is off: receipts it minted are refused (its signing key is kept for turning it on again).`,
        );
      }
      return { json, text: text.join('\n') };
    },
  },
  'apps user-token-secret': {
    usage: 'apps user-token-secret --app A [--rotate]',
    options: { app: { type: 'string' }, rotate: { type: 'boolean', default: false } },
    async run(values) {
      const appId = await requireApp(values);
      const setting = await issueUserTokenSecret(appId, values.rotate === true).catch((error: unknown) => {
        if (!(error instanceof UserTokenSecretExists)) throw error;
        throw new CliError(
          `${error.message}; --rotate replaces it (tokens signed with the old one are refused at once)`,
          'SECRET_EXISTS',
        );
      });
      return {
        json: { app_id: appId, secret: setting.issued_secret, require_user_token: setting.require_user_token },
        text: [
          `User-token secret of ${appId} (for the app's server; shown only now): ${setting.issued_secret}`,
          setting.require_user_token
            ? 'User tokens are required: tokens signed with any earlier secret are refused from now on.'
            : 'User tokens are not required yet: `apps update --app A --require-user-token on` turns that on.',
        ].join('\n'),
      };
    },
  },
  'keys create': {
    usage: `keys create --app A --kind secret|sdk [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: { app: { type: 'string' }, kind: { type: 'string' }, tier: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const kind = kindOf(values);
      const issued = await issueKey(appId, kind, tierOf(values));
      return {
        json: { app_id: appId, kind, key: issued.key, key_id: issued.key_id, tier: issued.tier },
        text: [
          `New ${kind} key for ${appId}: ${issued.key}`,
          `(key id ${issued.key_id}, ${describeTier(issued.tier)}; shown only now)`,
        ].join('\n'),
      };
    },
  },
  'keys rotate': {
    usage: `keys rotate --app A --kind secret|sdk [--keep-old] [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: {
      app: { type: 'string' },
      kind: { type: 'string' },
      'keep-old': { type: 'boolean', default: false },
      tier: { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const kind = kindOf(values);
      const { issued, revoked } = await rotateKey(appId, kind, values['keep-old'] === true, tierOf(values));
      return {
        json: {
          app_id: appId,
          kind,
          key: issued.key,
          key_id: issued.key_id,
          tier: issued.tier,
          revoked_key_ids: revoked,
        },
        text: [
          `New ${kind} key for ${appId}: ${issued.key}`,
          `(key id ${issued.key_id}, ${describeTier(issued.tier)}; shown only now)`,
          revoked.length > 0 ? `Revoked: ${revoked.join(', ')}` : 'No key was revoked.',
        ].join('\n'),
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke --key K   |   keys revoke --app A --key-id ID',
    options: { key: { type: 'string' }, app: { type: 'string' }, 'key-id': { type: 'string' } },
    async run(values) {
      const byId = typeof values['key-id'] === 'string';
      const record = byId
        ? await revokeKeyById(await requireApp(values), required(values, 'key-id'))
        : await revokeKey(required(values, 'key'));
      if (!record) throw new CliError('no such key', 'NOT_FOUND');
      return {
        json: {
          app_id: record.app_id,
          key_id: record.key_id,
          kind: record.kind,
          status: record.status,
          revoked_at: record.revoked_at,
        },
        text: `Revoked ${record.kind} key ${record.key_id} of ${record.app_id}.`,
      };
    },
  },
  'keys list': {
    usage: 'keys list --app A',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const listed = (await listAppKeys(appId)).map(({ key_id, kind, status, tier, created_at, revoked_at }) => ({
        key_id,
        kind,
        status,
        tier: tier ?? DEFAULT_RATE_LIMIT_TIER,
        created_at,
        revoked_at,
      }));
      return {
        json: { app_id: appId, keys: listed },
        text: listed
          .map(
            (k) =>
              `${k.key_id}  ${k.kind.padEnd(6)}  ${k.status.padEnd(7)}  ${k.tier.padEnd(8)}  created ${k.created_at}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`,
          )
          .join('\n'),
      };
    },
  },
  'products put': {
    usage: 'products put --app A --file F   (F: JSON array of Product objects)',
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const products = await readValidatedFile(required(values, 'file'), productCatalogueSchema, 'product list');
      await putProducts(appId, products);
      return {
        json: { app_id: appId, products: products.map((p) => p.id) },
        text: `Stored ${products.length} product(s) for ${appId}: ${products.map((p) => p.id).join(', ')}`,
      };
    },
  },
  'entitlements put': {
    usage:
      "entitlements put --app A --file F   (F: JSON array of {id, name, products}; replaces the app's entitlements)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const entitlements = await readValidatedFile(
        required(values, 'file'),
        entitlementCatalogueSchema,
        'entitlement list',
        (raw) => unknownProducts(appId, raw),
      );
      await putEntitlements(appId, entitlements);
      const ids = entitlements.map((entitlement) => entitlement.id);
      return {
        json: { app_id: appId, entitlements: ids },
        text: `Stored ${ids.length} entitlement(s) for ${appId}: ${ids.join(', ')}`,
      };
    },
  },
  'segments put': {
    usage: "segments put --app A --file F   (F: JSON array of segments; replaces the app's rule segments)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const segments = await readValidatedFile(required(values, 'file'), segmentCatalogueSchema, 'segment list');
      await putSegments(appId, segments);
      return {
        json: { app_id: appId, segments: segments.map((s) => s.id) },
        text: `Stored ${segments.length} segment(s) for ${appId}: ${segments.map((s) => s.id).join(', ') || '(none)'}`,
      };
    },
  },
  'ads put': {
    usage:
      'ads put --app A --file F   (F: {"ios": {"networks": [...]}, "android": {...}}; public: any sdk key holder reads them)',
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const config = await readValidatedFile(required(values, 'file'), adsConfigSchema, 'ad configuration');
      await putAdsConfig(appId, config);
      const count = (config.ios?.networks.length ?? 0) + (config.android?.networks.length ?? 0);
      return {
        json: { app_id: appId, platforms: Object.keys(config), networks: count },
        text: `Stored the ad configuration of ${appId} (${count} network entries).`,
      };
    },
  },
  'fx put': {
    usage: 'fx put --file F   (F: JSON array of {"date":"YYYY-MM-DD","from":"EUR","to":"USD","rate":1.08})',
    options: { file: { type: 'string' } },
    async run(values) {
      const rates = await readValidatedFile(required(values, 'file'), exchangeRatesSchema, 'list of exchange rates');
      await putExchangeRates(rates);
      return { json: { rates: rates.length }, text: `Stored ${rates.length} exchange rate(s).` };
    },
  },
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
  'stores apple set': {
    usage:
      'stores apple set --app A --bundle-id B --environment Sandbox|Production [--app-apple-id N] [--issuer-id I --key-id K --key-file F.p8]',
    options: {
      app: { type: 'string' },
      'bundle-id': { type: 'string' },
      environment: { type: 'string' },
      'app-apple-id': { type: 'string' },
      'issuer-id': { type: 'string' },
      'key-id': { type: 'string' },
      'key-file': { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const apiOptions = ['issuer-id', 'key-id', 'key-file'].filter((name) => values[name] !== undefined);
      if (apiOptions.length > 0 && apiOptions.length < 3)
        throw new CliError('--issuer-id, --key-id and --key-file go together (App Store Server API key)');
      let serverApi: Record<string, string> | undefined;
      if (apiOptions.length === 3) {
        const keyFile = required(values, 'key-file');
        let privateKey: string;
        try {
          privateKey = await readFile(keyFile, 'utf8');
        } catch (error) {
          throw new CliError(`cannot read ${keyFile}: ${(error as Error).message}`, 'INVALID_FILE');
        }
        serverApi = {
          issuer_id: required(values, 'issuer-id'),
          key_id: required(values, 'key-id'),
          private_key: privateKey,
        };
      }
      const settings = parsedSettings('app_store', {
        bundle_id: required(values, 'bundle-id'),
        environment: required(values, 'environment'),
        ...(values['app-apple-id'] !== undefined ? { app_apple_id: Number(values['app-apple-id']) } : {}),
        ...(serverApi ? { server_api: serverApi } : {}),
      });
      const { location } = await putStoreSettings(appId, 'app_store', settings);
      return {
        json: {
          app_id: appId,
          store: 'app_store',
          bundle_id: settings.bundle_id,
          environment: settings.environment,
          server_api: settings.server_api !== undefined,
          stored_in: location,
        },
        text: `App Store settings of ${appId} stored in ${location}: ${settings.bundle_id} (${settings.environment})${settings.server_api ? ', with an App Store Server API key' : ''}.`,
      };
    },
  },
  'stores google set': {
    usage:
      'stores google set --app A --package-name P --service-account-file F.json [--push-audience URL --push-service-account EMAIL]',
    options: {
      app: { type: 'string' },
      'package-name': { type: 'string' },
      'service-account-file': { type: 'string' },
      'push-audience': { type: 'string' },
      'push-service-account': { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const file = required(values, 'service-account-file');
      if ((values['push-service-account'] === undefined) !== (values['push-audience'] === undefined))
        throw new CliError(
          '--push-audience and --push-service-account go together (the push subscription authenticates with both; the audience alone proves nothing)',
        );
      let serviceAccount: unknown;
      try {
        serviceAccount = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`, 'INVALID_FILE');
      }
      const settings = parsedSettings('google_play', {
        package_name: required(values, 'package-name'),
        service_account: serviceAccount,
        ...(values['push-audience'] !== undefined ? { push_audience: values['push-audience'] } : {}),
        ...(values['push-service-account'] !== undefined
          ? { push_service_account: values['push-service-account'] }
          : {}),
      });
      const { location } = await putStoreSettings(appId, 'google_play', settings);
      // The private key is never printed back.
      return {
        json: {
          app_id: appId,
          store: 'google_play',
          package_name: settings.package_name,
          client_email: settings.service_account.client_email,
          push_audience: settings.push_audience ?? null,
          push_service_account: settings.push_service_account ?? null,
          stored_in: location,
        },
        text: [
          `Google Play settings of ${appId} stored in ${location}: ${settings.package_name} as ${settings.service_account.client_email}.`,
          settings.push_audience
            ? `Real-time developer notifications accepted for audience ${settings.push_audience}${settings.push_service_account ? ` signed as ${settings.push_service_account}` : ''}.`
            : 'No --push-audience: real-time developer notifications are refused.',
        ].join('\n'),
      };
    },
  },
  'webhooks set': {
    usage:
      'webhooks set --app A --url U [--events KIND,KIND...|all] [--allow-private-url]   (https, or http on localhost; a public address unless --allow-private-url)',
    options: {
      app: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      'allow-private-url': { type: 'boolean', default: false },
    },
    async run(values) {
      const allowPrivate = values['allow-private-url'] === true;
      const url = await webhookUrl(required(values, 'url'), allowPrivate);
      const events = eventFilterOption(values);
      const appId = await requireApp(values);
      const endpoint = await setWebhook(appId, url, events);
      return {
        json: { app_id: appId, url, events, secret: endpoint.secret },
        text: [
          `Webhook endpoint of ${appId}: ${url}`,
          `Receives: ${describeFilter(events)}`,
          `Signing secret (Standard Webhooks; shown only now): ${endpoint.secret}`,
          ...(allowPrivate
            ? [
                '--allow-private-url: delivered only where WEBHOOK_ALLOW_PRIVATE_TARGETS=1 (npm start sets it; AWS never).',
              ]
            : []),
        ].join('\n'),
      };
    },
  },
  'webhooks show': {
    usage: 'webhooks show --app A',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const endpoint = await getWebhook(appId);
      if (!endpoint)
        throw new CliError(
          `app ${appId} has no webhook endpoint (\`webhooks set --app ${appId} --url U\`)`,
          'NOT_FOUND',
        );
      // Never the secret: it is shown once, by `webhooks set`.
      const { url, enabled, disabled_reason, events, updated_at, breaker } = endpoint;
      const paused_until = isPaused(breaker, new Date()) ? breaker.paused_until : null;
      return {
        json: { app_id: appId, url, enabled, disabled_reason, events, updated_at, paused_until },
        text: [
          `Webhook endpoint of ${appId}: ${url}`,
          enabled
            ? 'Enabled.'
            : `Disabled: ${disabled_reason ?? 'no reason recorded'} (\`webhooks set\` enables it again).`,
          ...(paused_until
            ? [
                `Paused until ${paused_until}: its last ${breaker.consecutive_timeouts} attempts timed out (its deliveries wait for the pause to end).`,
              ]
            : []),
          `Receives: ${describeFilter(events)}`,
          `Set ${updated_at}.`,
        ].join('\n'),
      };
    },
  },
  'webhooks deliveries': {
    usage: `webhooks deliveries --app A [--limit 50] [--status ${DELIVERY_STATUSES.join('|')}]`,
    options: { app: { type: 'string' }, limit: { type: 'string', default: '50' }, status: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError('--limit must be 1..1000');
      const status = values.status as DeliveryStatus | undefined;
      if (status !== undefined && !DELIVERY_STATUSES.includes(status))
        throw new CliError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      const { data: deliveries } = await listDeliveryPage(appId, { limit, status });
      return {
        json: { app_id: appId, deliveries },
        text:
          deliveries.length === 0
            ? `No deliveries for ${appId}.`
            : deliveries
                .map(
                  (d) =>
                    `${d.event_id}  ${d.status.padEnd(17)} attempts ${String(d.attempts).padStart(2)}  ${d.change.padEnd(28)} ${d.next_attempt_at ? `next ${d.next_attempt_at}` : ''}${d.last_error ? `  (${d.last_error})` : d.last_status_code ? `  (HTTP ${d.last_status_code})` : ''}`,
                )
                .join('\n'),
      };
    },
  },
  'counts rebuild': {
    usage: 'counts rebuild [--app ID]',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = values.app === undefined ? undefined : await requireApp(values);
      // One line per app on stderr while it runs: a whole table takes a while.
      const apps = await rebuildListCounts(appId, (app) =>
        console.error(`${app.app_id}: ${app.subscriptions} subscription(s), ${app.corrected} count(s) corrected`),
      );
      return {
        json: { apps },
        text:
          apps.length === 0
            ? 'No subscriptions: nothing to count.'
            : `Recounted ${apps.length} app(s): ${apps.reduce((sum, a) => sum + a.corrected, 0)} count(s) corrected.`,
      };
    },
  },
  'subscriptions rewrite': {
    usage: 'subscriptions rewrite',
    options: {},
    async run() {
      const { examined, rewritten, purchases_moved } = await rewriteSubscriptions();
      return {
        json: { examined, rewritten, purchases_moved },
        text: `Read ${examined} subscription item(s); rewrote ${rewritten} in the current shape; moved ${purchases_moved} purchase owner(s) onto their original transactions.`,
      };
    },
  },
  'webhooks redeliver': {
    usage: 'webhooks redeliver --event ID',
    options: { event: { type: 'string' } },
    async run(values) {
      const eventId = required(values, 'event');
      const delivery = await redeliver(eventId).catch((error: unknown) => {
        if (error instanceof AppError && error.kind === 'EVENT_OF_ERASED_USER')
          throw new CliError(`event ${eventId} names a user who has been erased: it is not sent again`, error.kind);
        throw error;
      });
      if (!delivery) throw new CliError(`no delivery of event ${eventId}`, 'NOT_FOUND');
      const last = delivery.attempt_log.at(-1);
      return {
        json: {
          event_id: eventId,
          status: delivery.status,
          attempts: delivery.attempts,
          next_attempt_at: delivery.next_attempt_at,
          last_status_code: last?.status_code ?? null,
          last_error: last?.error ?? null,
        },
        text: `Event ${eventId}: ${delivery.status} after ${delivery.attempts} attempt(s)${last?.status_code ? ` (HTTP ${last.status_code})` : last?.error ? ` (${last.error})` : ''}`,
      };
    },
  },
};

/** Reads a JSON file and validates it, listing every problem as [index.field] message. */
/** A problem a file has beyond its schema: the path is its place in the file, as `[0.products.1]`. */
interface FileProblem {
  path: (string | number)[];
  message: string;
}

/**
 * The file, parsed and valid; else every problem of it in one error (the schema's and those
 * `check` finds in the raw JSON), and nothing is written.
 */
async function readValidatedFile<T>(
  file: string,
  schema: z.ZodMiniType<T>,
  what: string,
  check?: (raw: unknown) => Promise<FileProblem[]>,
): Promise<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`, 'INVALID_FILE');
  }
  const parsed = schema.safeParse(raw);
  const problems = parsed.success
    ? []
    : toDetails('body', parsed.error).map(
        (d) => `${d.path.replace(/^body\.?/, '[')}${d.path === 'body' ? '' : ']'} ${d.message}`,
      );
  for (const problem of (await check?.(raw)) ?? []) problems.push(`[${problem.path.join('.')}] ${problem.message}`);
  if (!parsed.success || problems.length > 0) {
    throw new CliError(`${file} is not a valid ${what}:\n  ${problems.join('\n  ')}`, 'INVALID_FILE');
  }
  return parsed.data;
}

/** Product ids an entitlement file names that the app's catalogue does not have. */
async function unknownProducts(appId: string, raw: unknown): Promise<FileProblem[]> {
  if (!Array.isArray(raw)) return [];
  const catalogue = new Set((await listProducts(appId)).map((product) => product.id));
  return raw.flatMap((entry: unknown, index) => {
    const products = (entry as { products?: unknown } | null)?.products;
    if (!Array.isArray(products)) return [];
    return products.flatMap((product: unknown, at) =>
      typeof product === 'string' && !catalogue.has(product)
        ? [{ path: [index, 'products', at], message: `product ${product} is not in the catalogue of ${appId}` }]
        : [],
    );
  });
}

function parsedSettings<S extends ConfigurableStore>(store: S, raw: unknown): StoreSettings[S] {
  const schema = store === 'app_store' ? appStoreSettingsSchema : googlePlaySettingsSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // Paths and messages only: never echo the values (they may hold a private key).
    throw new CliError(
      `invalid ${store} settings: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'} ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data as StoreSettings[S];
}

/** `--events`: the kinds an endpoint receives; absent or `all` is every kind, later ones included. */
function eventFilterOption(values: Record<string, unknown>): EventFilter {
  const list = values.events;
  if (list === undefined) return null;
  const parsed = parseEventFilter(String(list), EVENT_KINDS);
  if (!parsed.ok) throw new CliError(`--events ${parsed.problem}; the kinds are: all, ${EVENT_KINDS.join(', ')}`);
  return parsed.filter;
}

const describeFilter = (events: EventFilter) =>
  events === null ? 'every event kind (kinds added later too)' : events.join(', ');

/** Webhook URLs must be https; plain http only to this machine (local development). */
async function webhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url ${raw} is not a URL`);
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new CliError('--url must be https (http only for localhost)');
  // The deliverer refuses these at every connection too; refused here so the mistake shows now.
  const refusal = await webhookUrlRefusal(url, allowPrivate);
  if (refusal)
    throw new CliError(
      `--url must lead to a public address: ${refusal} (for a receiver on your own machine, add --allow-private-url: npm start delivers there)`,
    );
  return url.toString();
}

function helpText(commands: Command[] = Object.values(COMMANDS)): string {
  return [
    'Usage: npm run --silent admin -- <command> [--json] [--aws]',
    '',
    ...commands.map((c) => `  ${c.usage}`),
  ].join('\n');
}

/** The commands whose names begin with these words (`apps` names every apps command). */
function commandsUnder(words: readonly string[]): Command[] {
  return Object.entries(COMMANDS)
    .filter(([name]) => words.every((word, i) => name.split(' ')[i] === word))
    .map(([, command]) => command);
}

/** The command the leading words name (names have two or three words: `apps create`, `stores apple set`). */
function commandNamed(args: readonly string[]): string | undefined {
  return Object.keys(COMMANDS)
    .filter((name) => name.split(' ').every((word, i) => args[i] === word))
    .sort((a, b) => b.length - a.length)[0];
}

/**
 * A negative number after an option that takes a value is that value (`--expires-in -60`), not
 * an option of its own: parseArgs would call it ambiguous, so it is joined as `--expires-in=-60`.
 */
function withNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = args[i]!.startsWith('--') ? options[args[i]!.slice(2)] : undefined;
    const next = args[i + 1];
    if (option?.type === 'string' && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else {
      joined.push(args[i]!);
    }
  }
  return joined;
}

export async function runCommand(args: string[]): Promise<CommandResult> {
  // The words before the first option: a command's name, or the start of one.
  const firstOption = args.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? args : args.slice(0, firstOption);
  const name = commandNamed(args);
  const command = name === undefined ? undefined : COMMANDS[name];
  // `--help` after a command or a group of them (`apps --help`) shows their usage only; as the value
  // of an option (`--name --help`) it is that value.
  const takesValue = (arg: string | undefined) =>
    arg?.startsWith('--') === true && command?.options[arg.slice(2)]?.type === 'string';
  const help = args.some((arg, i) => arg === '--help' && !takesValue(args[i - 1]));
  if (args.length === 0 || args[0] === 'help' || help) {
    const asked = words[0] === 'help' ? words.slice(1) : words;
    const commands = commandsUnder(asked);
    if (commands.length > 0) return { text: helpText(commands), json: { commands: commands.map((c) => c.usage) } };
  }
  if (!name || !command) {
    // A group's first word alone (`apps`) lists that group; anything else lists every command.
    const group = commandsUnder(words.slice(0, 1));
    throw new CliError(
      `unknown command "${words.slice(0, 3).join(' ')}"\n${helpText(group.length > 0 ? group : undefined)}`,
    );
  }
  let values: ReturnType<typeof parseArgs>['values'];
  try {
    ({ values } = parseArgs({
      args: withNegativeValues(args.slice(name.split(' ').length), command.options),
      options: command.options,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: ${command.usage}`);
  }
  // No option is declared `multiple`, so no value is an array.
  return command.run(values as Record<string, string | boolean | undefined>).catch((error: unknown) => {
    if (error instanceof CredentialsNeedSecretsManager) throw new CliError(error.message, 'NO_SECRETS_PREFIX');
    throw error;
  });
}
