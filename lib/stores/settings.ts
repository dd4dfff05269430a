/**
 * Per-app store settings and credentials (`admin stores apple set`, `admin stores google set`).
 * In AWS they live in Secrets Manager, one secret per app and store under STORE_SECRETS_PREFIX
 * (functions may only read them); locally, in the table. Never logged, never returned by an API.
 */
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { ddb, tableName } from '../data/client.js';
import { keys } from '../data/keys.js';
import * as z from 'zod/mini';
import { define } from '../schemas/define.js';
import { APP_STORE_ENVIRONMENTS } from './app-store.js';

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
    package_name: z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'must be an Android package name')),
    /** The service account's key file (JSON): client_email, private_key, token_uri. */
    service_account: z.looseObject({
      client_email: z.string().check(z.email()),
      private_key: z.string().check(z.includes('PRIVATE KEY', { message: 'must be a PEM private key' })),
      token_uri: z.optional(z.url()),
    }),
  }),
);
export type GooglePlaySettings = z.infer<typeof googlePlaySettingsSchema>;

export interface StoreSettings {
  app_store: AppStoreSettings;
  google_play: GooglePlaySettings;
}
export type ConfigurableStore = keyof StoreSettings;

const schemas: { [S in ConfigurableStore]: z.ZodMiniType<StoreSettings[S]> } = {
  app_store: appStoreSettingsSchema,
  google_play: googlePlaySettingsSchema,
};

const secretsManager = new SecretsManagerClient({ region: config.region });
const secretName = (appId: string, store: ConfigurableStore) => `${config.storeSecretsPrefix}${appId}/${store}`;

/** Settings change rarely: a warm function reads each app's settings once per this many ms. */
const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { value: unknown; until: number }>();

async function readRaw(appId: string, store: ConfigurableStore): Promise<unknown> {
  if (config.storeSecretsPrefix) {
    try {
      const { SecretString } = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretName(appId, store) }));
      return SecretString ? JSON.parse(SecretString) : undefined;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.storeSettings(appId, store) }));
  return Item?.settings;
}

export async function getStoreSettings<S extends ConfigurableStore>(appId: string, store: S): Promise<StoreSettings[S] | undefined> {
  const cacheKey = `${appId}/${store}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.value as StoreSettings[S] | undefined;
  const raw = await readRaw(appId, store);
  const value = raw === undefined ? undefined : schemas[store].parse(raw);
  if (config.inLambda) cache.set(cacheKey, { value, until: Date.now() + CACHE_MS });
  return value;
}

export async function putStoreSettings<S extends ConfigurableStore>(appId: string, store: S, settings: StoreSettings[S]): Promise<{ location: string }> {
  const value = schemas[store].parse(settings);
  cache.delete(`${appId}/${store}`);
  if (config.storeSecretsPrefix) {
    const name = secretName(appId, store);
    const SecretString = JSON.stringify(value);
    try {
      await secretsManager.send(new PutSecretValueCommand({ SecretId: name, SecretString }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      await secretsManager.send(new CreateSecretCommand({ Name: name, SecretString, Description: `${store} settings of ${appId}` }));
    }
    return { location: `Secrets Manager secret ${name}` };
  }
  await ddb.send(new PutCommand({ TableName: tableName, Item: { ...keys.storeSettings(appId, store), type: 'store_settings', settings: value, updated_at: new Date().toISOString() } }));
  return { location: `table ${tableName}` };
}
