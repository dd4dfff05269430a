/** Apps and their API keys. An API key maps to exactly one app and one kind. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyId, newApiKey, newAppId, sha256Hex } from '../ids.js';
import { newTestStoreKeys } from '../stores/test-store.js';
import { ddb, tableName } from './client.js';
import { keys, type ApiKeyKind } from './keys.js';
import { queryPrefix } from './query.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';

export interface AppRecord {
  app_id: string;
  name: string;
  /** Currency revenue is reported in. */
  reporting_currency: string;
  /** Accepts receipts minted by `admin receipts mint`. */
  test_store: boolean;
  /** The test store's ES256 key pair (PEM) when test_store is on; never returned by any API. */
  /** The test store's signing key (PKCS#8 PEM), locally; in AWS the secret holding it (lib/stores/settings.ts). */
  test_store_private_key?: string;
  test_store_private_key_secret?: string;
  test_store_public_key?: string;
  /** What restoring a purchase owned by another user does: refuse it, or move it to the restoring user. */
  restore_policy?: RestorePolicy;
  created_at: string;
}

export const RESTORE_POLICIES = ['block', 'transfer'] as const;
export type RestorePolicy = (typeof RESTORE_POLICIES)[number];

export async function setRestorePolicy(appId: string, policy: RestorePolicy): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.app(appId),
      UpdateExpression: 'SET restore_policy = :policy',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':policy': policy },
    }),
  );
}

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  app_id: string;
  kind: ApiKeyKind;
  key_id: string;
  status: ApiKeyStatus;
  /** Rate-limit tier; keys issued before tiers existed have none and count as standard. */
  tier?: RateLimitTier;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedKey {
  key: string;
  key_id: string;
  kind: ApiKeyKind;
  tier: RateLimitTier;
}

function keyItems(appId: string, kind: ApiKeyKind, tier: RateLimitTier, now: string): { issued: IssuedKey; items: Record<string, unknown>[] } {
  const key = newApiKey(kind);
  const hash = sha256Hex(key);
  const record: ApiKeyRecord = { app_id: appId, kind, key_id: apiKeyId(kind, hash), status: 'active', tier, created_at: now, revoked_at: null };
  return {
    issued: { key, key_id: record.key_id, kind, tier },
    items: [
      { ...keys.apiKey(hash), type: 'api_key', ...record },
      { ...keys.appKey(appId, kind, hash), type: 'app_key', hash, ...record },
    ],
  };
}

const putNew = (item: Record<string, unknown>) => ({
  Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
});

export async function createApp(input: {
  name: string;
  reportingCurrency: string;
  testStore: boolean;
  /** Rate-limit tier of both keys (default standard). */
  tier?: RateLimitTier;
  /** Keeps the test store's signing key elsewhere (a secret, in AWS) and names where; by default it stays in the item. */
  keepTestStoreKey?: (appId: string, privateKeyPem: string) => Promise<string | undefined>;
}): Promise<{ app: AppRecord; secretKey: IssuedKey; sdkKey: IssuedKey }> {
  const now = new Date().toISOString();
  const appId = newAppId();
  const testStoreKeys = input.testStore ? newTestStoreKeys() : undefined;
  // Kept before the app exists, so that no app ever names a key that is not there.
  const keySecret = testStoreKeys && input.keepTestStoreKey ? await input.keepTestStoreKey(appId, testStoreKeys.privateKeyPem) : undefined;
  const app: AppRecord = {
    app_id: appId,
    name: input.name,
    reporting_currency: input.reportingCurrency,
    test_store: input.testStore,
    ...(testStoreKeys
      ? {
          ...(keySecret ? { test_store_private_key_secret: keySecret } : { test_store_private_key: testStoreKeys.privateKeyPem }),
          test_store_public_key: testStoreKeys.publicKeyPem,
        }
      : {}),
    created_at: now,
  };
  const tier = input.tier ?? DEFAULT_RATE_LIMIT_TIER;
  const secret = keyItems(app.app_id, 'secret', tier, now);
  const sdk = keyItems(app.app_id, 'sdk', tier, now);
  await ddb.send(
    new TransactWriteCommand({
      TransactItems: [{ ...keys.app(app.app_id), type: 'app', ...app }, ...secret.items, ...sdk.items].map(putNew),
    }),
  );
  return { app, secretKey: secret.issued, sdkKey: sdk.issued };
}

export async function getApp(appId: string): Promise<AppRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.app(appId) }));
  return Item as AppRecord | undefined;
}

/** The record behind a raw API key, whatever its status; undefined for an unknown key. */
export async function findApiKey(rawKey: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.apiKey(sha256Hex(rawKey)) }));
  return Item as ApiKeyRecord | undefined;
}

interface AppKeyItem extends ApiKeyRecord {
  hash: string;
}

export async function listAppKeys(appId: string, kind?: ApiKeyKind): Promise<AppKeyItem[]> {
  const { pk, skPrefix } = keys.appKeyPrefix(appId, kind);
  return (await queryPrefix(pk, skPrefix)) as unknown as AppKeyItem[];
}

function revokeItems(appId: string, kind: ApiKeyKind, hash: string, now: string) {
  const update = (key: { pk: string; sk: string }) => ({
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET #status = :revoked, revoked_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now },
    },
  });
  return [update(keys.apiKey(hash)), update(keys.appKey(appId, kind, hash))];
}

/** The app must exist: issuing a key for a typo'd app id fails instead of minting an orphan key. */
const appExists = (appId: string) => ({ ConditionCheck: { TableName: tableName, Key: keys.app(appId), ConditionExpression: 'attribute_exists(pk)' } });

/** Issues one more key of this kind for the app; its other keys keep working. */
export async function issueKey(appId: string, kind: ApiKeyKind, tier: RateLimitTier = DEFAULT_RATE_LIMIT_TIER): Promise<IssuedKey> {
  const fresh = keyItems(appId, kind, tier, new Date().toISOString());
  await ddb.send(new TransactWriteCommand({ TransactItems: [appExists(appId), ...fresh.items.map(putNew)] }));
  return fresh.issued;
}

/**
 * Issues a new key of this kind. Unless keepOld is set, the app's other active keys of the same
 * kind are revoked in the same transaction (set keepOld to roll clients over, then revoke). The
 * new key keeps the tier of the newest active key it replaces unless one is given, so a rotation
 * never silently changes what a client may send.
 */
export async function rotateKey(appId: string, kind: ApiKeyKind, keepOld: boolean, tier?: RateLimitTier): Promise<{ issued: IssuedKey; revoked: string[] }> {
  const now = new Date().toISOString();
  const active = (await listAppKeys(appId, kind)).filter((k) => k.status === 'active').sort((a, b) => b.created_at.localeCompare(a.created_at));
  const fresh = keyItems(appId, kind, tier ?? active[0]?.tier ?? DEFAULT_RATE_LIMIT_TIER, now);
  const previous = keepOld ? [] : active;
  await ddb.send(
    new TransactWriteCommand({
      TransactItems: [appExists(appId), ...fresh.items.map(putNew), ...previous.flatMap((k) => revokeItems(appId, kind, k.hash, now))],
    }),
  );
  return { issued: fresh.issued, revoked: previous.map((k) => k.key_id) };
}

/** Revokes by raw key. Returns the revoked key's record, or undefined when no such key exists. */
export async function revokeKey(rawKey: string): Promise<ApiKeyRecord | undefined> {
  const hash = sha256Hex(rawKey);
  const record = await findApiKey(rawKey);
  if (!record) return undefined;
  const now = new Date().toISOString();
  await ddb.send(new TransactWriteCommand({ TransactItems: revokeItems(record.app_id, record.kind, hash, now) }));
  return { ...record, status: 'revoked', revoked_at: now };
}

/** Revokes by public key id (`sk_id_…` as printed by `keys list`), for keys whose value is lost. */
export async function revokeKeyById(appId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const match = (await listAppKeys(appId)).find((k) => k.key_id === keyId);
  if (!match) return undefined;
  const now = new Date().toISOString();
  await ddb.send(new TransactWriteCommand({ TransactItems: revokeItems(appId, match.kind, match.hash, now) }));
  return { ...match, status: 'revoked', revoked_at: now };
}

