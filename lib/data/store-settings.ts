/**
 * Per-app store settings and credentials (`admin stores apple set`, `admin stores google set`).
 * What identifies the app at its store (bundle id, environment, package name) is not secret and
 * lives in the table, next to the app; the credentials (the App Store Server API key, the Google
 * service account) live, in AWS, in Secrets Manager, one secret per app and store under
 * STORE_SECRETS_PREFIX (functions may only read them), and only in a local table in the item too:
 * against the deployed table without the prefix, a write with credentials is refused
 * (lib/domain/credential-placement.ts).
 * So verifying a StoreKit 2 transaction, which needs no credential, reads the settings with the
 * app in one request and never calls Secrets Manager. Credentials are never logged, never
 * returned by an API.
 */

import { createHash, createPublicKey } from 'node:crypto';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { config } from '../core/config.js';
import { readThroughCache } from '../core/read-through-cache.js';
import { credentialPlacement } from '../domain/credential-placement.js';
import { define } from '../schemas/define.js';
import { APP_STORE_ENVIRONMENTS, acceptsEnvironment } from '../stores/app-store.js';
import { secretNameOf, TEST_STORE_KEY_SECRET } from '../stores/secret-names.js';
import { getSecretString } from '../stores/secrets.js';
import type { AppRecord } from './apps.js';
import { batchGetAll, batchGetConsistent } from './batch.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { type StoredGoogleKeys, storedGoogleKeysOf } from './google-oidc-keys.js';
import type { TableKey } from './table-keys.js';

export const appStoreSettingsSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      bundle_id: z.string().check(z.minLength(1), z.maxLength(255)),
      environment: z.enum(APP_STORE_ENVIRONMENTS),
      /** Apple requires it to verify Production transactions. */
      app_apple_id: z.optional(z.number().check(z.int(), z.positive())),
      /** App Store Server API key (App Store Connect > Users and Access > Integrations): legacy receipts only. */
      server_api: z.optional(
        z.strictObject({
          issuer_id: z.string().check(z.minLength(1)),
          key_id: z.string().check(z.minLength(1)),
          private_key: z.string().check(z.includes('PRIVATE KEY', { message: 'must be the .p8 key (PEM)' })),
        }),
      ),
    })
    .check(
      z.refine((s) => s.environment !== 'Production' || s.app_apple_id !== undefined, {
        path: ['app_apple_id'],
        message: 'Production needs the app Apple id',
      }),
    ),
);
export type AppStoreSettings = z.infer<typeof appStoreSettingsSchema>;

export const googlePlaySettingsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    package_name: z
      .string()
      .check(z.regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'must be an Android package name')),
    /** The service account's key file (JSON): client_email, private_key, token_uri. */
    service_account: z.looseObject({
      client_email: z.string().check(z.email()),
      private_key: z.string().check(z.includes('PRIVATE KEY', { message: 'must be a PEM private key' })),
      token_uri: z.optional(z.url()),
    }),
    /**
     * Real-time developer notifications: the audience the Pub/Sub push subscription puts in its
     * OIDC token (the push is refused without it), and optionally the service account it signs as.
     * Identifiers, not credentials: kept in the table, read with the app.
     */
    push_audience: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
    push_service_account: z.optional(z.string().check(z.email())),
  }),
);
export type GooglePlaySettings = z.infer<typeof googlePlaySettingsSchema>;

/**
 * A Google Play app's settings as a Pub/Sub push meets them: the identifiers from the table at
 * once (enough to authenticate the push), the service account only on demand, once the push is
 * known to be Google's, so a forged push never reaches Secrets Manager.
 */
export interface GooglePlayPushSettings extends Omit<GooglePlaySettings, 'service_account'> {
  /** The complete settings, with the service account (from Secrets Manager in AWS). */
  withCredentials(): Promise<GooglePlaySettings>;
}

export interface StoreSettings {
  app_store: AppStoreSettings;
  google_play: GooglePlaySettings;
}
export type ConfigurableStore = keyof StoreSettings;

const schemas: { [S in ConfigurableStore]: z.ZodMiniType<StoreSettings[S]> } = {
  app_store: appStoreSettingsSchema,
  google_play: googlePlaySettingsSchema,
};

/** The credential fields of each store's settings: in AWS they are kept in Secrets Manager. */
const CREDENTIALS: { [S in ConfigurableStore]: readonly (keyof StoreSettings[S])[] } = {
  app_store: ['server_api'],
  google_play: ['service_account'],
};

/** A credential would have gone into the deployed table: nothing was written. */
export class CredentialsNeedSecretsManager extends Error {
  override readonly name = 'CredentialsNeedSecretsManager';
}

/** The Secrets Manager prefix to keep credentials under, or undefined where they stay in a local table. */
function credentialsPrefix(): string | undefined {
  const placement = credentialPlacement({
    storeSecretsPrefix: config.storeSecretsPrefix,
    localTable: config.dynamodbEndpoint !== undefined,
  });
  if (placement.kind === 'refused') throw new CredentialsNeedSecretsManager(placement.reason);
  return placement.kind === 'secrets_manager' ? placement.prefix : undefined;
}

// Writing secrets is the operator CLI's; functions read them with lib/stores/secrets.ts, so that
// the SDK client stays out of their bundles.
let secretsClient: SecretsManagerClient | undefined;
const secretsManager = () => (secretsClient ??= new SecretsManagerClient({ region: config.region }));

/** Creates the secret or stores a new version of it. */
async function putSecret(name: string, SecretString: string, Description: string): Promise<void> {
  try {
    await secretsManager().send(new PutSecretValueCommand({ SecretId: name, SecretString }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await secretsManager().send(new CreateSecretCommand({ Name: name, SecretString, Description }));
  }
  readSecret.forget(name);
}

/** Settings change rarely: a warm function reads each app's credentials once per this many ms. */
const CACHE_MS = 5 * 60_000;
const readSecret = readThroughCache(
  async (name): Promise<Record<string, unknown> | undefined> => {
    const secret = await getSecretString(name);
    return secret ? (JSON.parse(secret) as Record<string, unknown>) : undefined;
  },
  () => (config.inLambda ? CACHE_MS : 0),
);

/**
 * The settings of the table item, with their credentials when asked (from Secrets Manager when
 * the item names a secret). Without credentials, the credential fields are absent. Read as
 * stored, like every item: putStoreSettings (`admin stores apple set`, `google set`) validated them when it wrote
 * them, and parsing them again would put their schemas' formats (URL, email, ...) in every
 * verifying function, 6.6 KB of its bundle (docs/decisions/bundling.md).
 */
async function settingsOf<S extends ConfigurableStore>(
  appId: string,
  store: S,
  item: Record<string, unknown> | undefined,
  withCredentials: boolean,
): Promise<StoreSettings[S] | undefined> {
  // Only App Store settings are complete without their credentials (the API key is optional).
  if (!withCredentials && store !== 'app_store') throw new Error(`${store} settings are read with their credentials`);
  let raw = item?.settings as Record<string, unknown> | undefined;
  if (!item && config.storeSecretsPrefix) {
    // Settings stored before identifiers and credentials were kept apart: all of them in the secret
    // (read even when the credentials are not needed, or such an app could not verify at all).
    raw = await readSecret(secretNameOf(config.storeSecretsPrefix, appId, store));
  }
  if (!raw) return undefined;
  const credentials =
    withCredentials && typeof item?.credentials_secret === 'string'
      ? await readSecret(item.credentials_secret)
      : undefined;
  const merged: Record<string, unknown> = { ...raw, ...credentials };
  if (!withCredentials) for (const field of CREDENTIALS[store]) delete merged[field as string];
  return merged as unknown as StoreSettings[S];
}

/**
 * The app and its settings at one store, in one request (what verifying a purchase starts from),
 * with any other items the caller wants read in the same request (`alsoRead`, in their order).
 */
export async function getAppWithStoreSettings<S extends ConfigurableStore>(
  appId: string,
  store: S | undefined,
  options: { withCredentials: boolean; alsoRead?: TableKey[] },
): Promise<{
  app: AppRecord | undefined;
  settings: StoreSettings[S] | undefined;
  alsoRead: (Record<string, unknown> | undefined)[];
}> {
  const alsoRead = options.alsoRead ?? [];
  const [app, ...rest] = await batchGetConsistent([
    keys.app(appId),
    ...alsoRead,
    ...(store ? [keys.storeSettings(appId, store)] : []),
  ]);
  return {
    app: app as AppRecord | undefined,
    settings: store ? await settingsOf(appId, store, rest[alsoRead.length], options.withCredentials) : undefined,
    alsoRead: rest.slice(0, alsoRead.length),
  };
}

/**
 * The app and its Google Play settings for receiving a push, in one table request and without
 * Secrets Manager: see GooglePlayPushSettings. Settings stored whole in a secret by an earlier
 * version hold no push audience (it came later, and `stores google set` moves settings to the
 * table), so such an app has none here: it accepts no pushes until it is set again. The same
 * request reads Google's OIDC keys as kept for `jwksUrl` (lib/data/google-oidc-keys.ts), and the
 * items of `alsoRead`.
 */
/** Eventually consistent items by key, a key given twice answered twice (BatchGetItem refuses a repeated key). */
async function batchGetDistinct(wanted: TableKey[]): Promise<(Record<string, unknown> | undefined)[]> {
  const id = (key: TableKey) => `${key.pk}\n${key.sk}`;
  const distinct = [...new Map(wanted.map((key) => [id(key), key])).values()];
  const position = new Map(distinct.map((key, i) => [id(key), i]));
  const items = await batchGetAll(distinct);
  return wanted.map((key) => items[position.get(id(key))!]);
}

export async function getAppWithGooglePlayPushSettings(
  appId: string,
  jwksUrl: string = config.googleOidcJwksUrl,
  alsoRead: TableKey[] = [],
  /**
   * `googleKeys: false`: the process holds Google's keys and checked the push's token already, so
   * the read is strongly consistent and leaves the keys out. By default (a cold process) the keys
   * are read with the rest, eventually consistent: nothing is read consistently before the token
   * is Google's (docs/security.md#outbound-store-calls).
   */
  options: { googleKeys: boolean } = { googleKeys: true },
): Promise<{
  app: AppRecord | undefined;
  settings: GooglePlayPushSettings | undefined;
  googleKeys: StoredGoogleKeys | undefined;
  /** The items of `alsoRead`, in its order. */
  alsoRead: (Record<string, unknown> | undefined)[];
}> {
  const [app, item, keptKeys, ...also] = options.googleKeys
    ? await batchGetDistinct([
        keys.app(appId),
        keys.storeSettings(appId, 'google_play'),
        keys.googleOidcKeys(jwksUrl),
        ...alsoRead,
      ])
    : await batchGetConsistent([keys.app(appId), keys.storeSettings(appId, 'google_play'), ...alsoRead]).then(
        ([app, settings, ...rest]) => [app, settings, undefined, ...rest],
      );
  const googleKeys = storedGoogleKeysOf(keptKeys);
  const identifiers = item?.settings as Record<string, unknown> | undefined;
  const record = app as AppRecord | undefined;
  if (!record || !item || !identifiers) return { app: record, settings: undefined, googleKeys, alsoRead: also };
  const text = (field: string) => (typeof identifiers[field] === 'string' ? (identifiers[field] as string) : undefined);
  const pushAudience = text('push_audience');
  const pushServiceAccount = text('push_service_account');
  let complete: Promise<GooglePlaySettings> | undefined;
  return {
    app: record,
    googleKeys,
    alsoRead: also,
    settings: {
      package_name: text('package_name') ?? '',
      ...(pushAudience ? { push_audience: pushAudience } : {}),
      ...(pushServiceAccount ? { push_service_account: pushServiceAccount } : {}),
      withCredentials: () => {
        complete ??= settingsOf(appId, 'google_play', item, true).then((settings) => settings!);
        return complete;
      },
    },
  };
}

/** Where the settings of a table item are kept, as `stores ... set` and `stores show` print it. */
const locationOf = (credentialsSecret: string | undefined) =>
  credentialsSecret
    ? `table ${tableName}, credentials in Secrets Manager secret ${credentialsSecret}`
    : `table ${tableName}`;

/** What `admin stores show` prints of an app's App Store settings: never the private key. */
export interface AppStoreSettingsShown {
  bundle_id: string;
  environment: AppStoreSettings['environment'];
  /** The environments whose transactions the app takes (Production takes Sandbox too: App Review). */
  accepts_environments: AppStoreSettings['environment'][];
  app_apple_id: number | null;
  /** The App Store Server API key's ids (legacy receipts, the sweeper's status reads), or null. */
  server_api: { issuer_id: string; key_id: string } | null;
  stored_in: string;
  updated_at: string | null;
}

/** What `admin stores show` prints of an app's Google Play settings: never the private key. */
export interface GooglePlaySettingsShown {
  package_name: string;
  client_email: string;
  push_audience: string | null;
  push_service_account: string | null;
  stored_in: string;
  updated_at: string | null;
}

export interface StoreSettingsShown {
  app_store: AppStoreSettingsShown | null;
  google_play: GooglePlaySettingsShown | null;
}

/**
 * An app's settings at both stores, read whole (credentials from Secrets Manager where they are
 * kept there) and shown without any private key: identifiers, key ids, where the credentials are kept.
 */
export async function showStoreSettings(appId: string): Promise<StoreSettingsShown> {
  const [appleItem, googleItem] = await batchGetConsistent([
    keys.storeSettings(appId, 'app_store'),
    keys.storeSettings(appId, 'google_play'),
  ]);
  const placeOf = (store: ConfigurableStore, item: Record<string, unknown> | undefined) =>
    item
      ? {
          stored_in: locationOf(typeof item.credentials_secret === 'string' ? item.credentials_secret : undefined),
          updated_at: typeof item.updated_at === 'string' ? item.updated_at : null,
        }
      : // Stored whole in a secret by an earlier version (settingsOf reads it then).
        {
          stored_in: `Secrets Manager secret ${secretNameOf(config.storeSecretsPrefix ?? '', appId, store)}`,
          updated_at: null,
        };
  const apple = await settingsOf(appId, 'app_store', appleItem, true);
  const google = await settingsOf(appId, 'google_play', googleItem, true);
  return {
    app_store: apple
      ? {
          bundle_id: apple.bundle_id,
          environment: apple.environment,
          accepts_environments: APP_STORE_ENVIRONMENTS.filter((stated) =>
            acceptsEnvironment(apple.environment, stated),
          ),
          app_apple_id: apple.app_apple_id ?? null,
          server_api: apple.server_api
            ? { issuer_id: apple.server_api.issuer_id, key_id: apple.server_api.key_id }
            : null,
          ...placeOf('app_store', appleItem),
        }
      : null,
    google_play: google
      ? {
          package_name: google.package_name,
          client_email: google.service_account.client_email,
          push_audience: google.push_audience ?? null,
          push_service_account: google.push_service_account ?? null,
          ...placeOf('google_play', googleItem),
        }
      : null,
  };
}

/**
 * The stores each app has settings for (`admin apps list`), from the table alone: settings kept
 * whole in a secret by an earlier version are not seen here (`stores show` reads them).
 */
export async function configuredStoresOf(appIds: string[]): Promise<Map<string, ConfigurableStore[]>> {
  const stores = Object.keys(schemas) as ConfigurableStore[];
  const items = await batchGetConsistent(
    appIds.flatMap((appId) => stores.map((store) => keys.storeSettings(appId, store))),
  );
  return new Map(
    appIds.map((appId, i) => [appId, stores.filter((_, j) => items[i * stores.length + j] !== undefined)]),
  );
}

/** The SHA-256 of a public key (its DER SubjectPublicKeyInfo), as colon-separated hex: safe to print. */
export const publicKeyFingerprint = (publicKeyPem: string) =>
  createHash('sha256')
    .update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:');

export async function putStoreSettings<S extends ConfigurableStore>(
  appId: string,
  store: S,
  settings: StoreSettings[S],
): Promise<{ location: string }> {
  const value = schemas[store].parse(settings) as Record<string, unknown>;
  const credentials = Object.fromEntries(
    CREDENTIALS[store]
      .filter((field) => value[field as string] !== undefined)
      .map((field) => [field, value[field as string]]),
  );
  const identifiers = Object.fromEntries(Object.entries(value).filter(([field]) => !(field in credentials)));
  const hasCredentials = Object.keys(credentials).length > 0;
  // Decided before anything is written: refused, nothing changes.
  const prefix = hasCredentials ? credentialsPrefix() : config.storeSecretsPrefix;
  let credentialsSecret: string | undefined;
  if (prefix && hasCredentials) {
    credentialsSecret = secretNameOf(prefix, appId, store);
    await putSecret(credentialsSecret, JSON.stringify(credentials), `${store} credentials of ${appId}`);
  }
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.storeSettings(appId, store),
        type: 'store_settings',
        // In a local table without Secrets Manager the credentials stay in the item.
        settings: prefix ? identifiers : value,
        ...(credentialsSecret ? { credentials_secret: credentialsSecret } : {}),
        updated_at: new Date().toISOString(),
      },
    }),
  );
  return { location: locationOf(credentialsSecret) };
}

/**
 * Where a new test-store app keeps its signing key: in AWS a secret that only the operator CLI
 * reads (no function is granted it: they verify with the public key), so the app's table item,
 * which every verification reads, never holds it. Undefined in a local table without the prefix:
 * the key stays in the item. Refused against the deployed table without the prefix.
 */
export async function keepTestStorePrivateKey(appId: string, privateKeyPem: string): Promise<string | undefined> {
  const prefix = credentialsPrefix();
  if (!prefix) return undefined;
  const name = secretNameOf(prefix, appId, TEST_STORE_KEY_SECRET);
  await putSecret(name, privateKeyPem, `test-store signing key of ${appId}`);
  return name;
}

/** The public key of a kept test-store signing key, read back from where it is kept. */
export async function publicKeyOfKeptTestStoreKey(secretName: string): Promise<string> {
  const privateKeyPem = await getSecretString(secretName);
  if (!privateKeyPem) throw new Error(`secret ${secretName} does not exist`);
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
}

/** The test store's signing key of an app (`receipts mint`), wherever it is kept. */
export async function testStorePrivateKey(app: AppRecord): Promise<string | undefined> {
  if (app.test_store_private_key) return app.test_store_private_key;
  return app.test_store_private_key_secret ? getSecretString(app.test_store_private_key_secret) : undefined;
}
