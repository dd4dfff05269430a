/** Apps and their API keys. An API key maps to exactly one app and one kind. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyId, newApiKey, newAppId, sha256Hex } from '../ids.js';
import { newTestStoreKeys } from '../stores/test-store.js';
import { ddb, tableName } from './client.js';
import { keys, type ApiKeyKind } from './keys.js';
import { queryPrefix } from './query.js';

export interface AppRecord {
  app_id: string;
  name: string;
  /** Currency revenue is reported in. */
  reporting_currency: string;
  /** Accepts receipts minted by `admin receipts mint`. */
  test_store: boolean;
  /** The test store's ES256 key pair (PEM) when test_store is on; never returned by any API. */
  test_store_private_key?: string;
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
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedKey {
  key: string;
  key_id: string;
  kind: ApiKeyKind;
}

function keyItems(appId: string, kind: ApiKeyKind, now: string): { issued: IssuedKey; items: Record<string, unknown>[] } {
  const key = newApiKey(kind);
  const hash = sha256Hex(key);
  const record: ApiKeyRecord = { app_id: appId, kind, key_id: apiKeyId(kind, hash), status: 'active', created_at: now, revoked_at: null };
  return {
    issued: { key, key_id: record.key_id, kind },
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
}): Promise<{ app: AppRecord; secretKey: IssuedKey; sdkKey: IssuedKey }> {
  const now = new Date().toISOString();
  const testStoreKeys = input.testStore ? newTestStoreKeys() : undefined;
  const app: AppRecord = {
    app_id: newAppId(),
    name: input.name,
    reporting_currency: input.reportingCurrency,
    test_store: input.testStore,
    ...(testStoreKeys ? { test_store_private_key: testStoreKeys.privateKeyPem, test_store_public_key: testStoreKeys.publicKeyPem } : {}),
    created_at: now,
  };
  const secret = keyItems(app.app_id, 'secret', now);
  const sdk = keyItems(app.app_id, 'sdk', now);
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

/**
 * Issues a new key of this kind. Unless keepOld is set, the app's other active keys of the same
 * kind are revoked in the same transaction (set keepOld to roll clients over, then revoke).
 */
export async function rotateKey(appId: string, kind: ApiKeyKind, keepOld: boolean): Promise<{ issued: IssuedKey; revoked: string[] }> {
  const now = new Date().toISOString();
  const fresh = keyItems(appId, kind, now);
  const previous = keepOld ? [] : (await listAppKeys(appId, kind)).filter((k) => k.status === 'active');
  await ddb.send(
    new TransactWriteCommand({
      TransactItems: [
        // The app must exist: a rotation for a typo'd app id fails instead of minting an orphan key.
        { ConditionCheck: { TableName: tableName, Key: keys.app(appId), ConditionExpression: 'attribute_exists(pk)' } },
        ...fresh.items.map(putNew),
        ...previous.flatMap((k) => revokeItems(appId, kind, k.hash, now)),
      ],
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

