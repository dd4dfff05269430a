/** Apps and their API keys. An API key maps to exactly one app and one kind. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyId, newApiKey, newAppId, newUserTokenSecret, sha256Hex } from '../core/ids.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';
import { newTestStoreKeys } from '../stores/test-store.js';
import { batchGetConsistent, batchWriteAll, putRequest } from './batch.js';
import { ddb, isConditionFailure, type TransactItem, tableName } from './client.js';
import { APP_DIRECTORY_PK, type ApiKeyKind, keys } from './keys.js';
import { queryAll, scanPages } from './query.js';
import { cancellationReasonsOf } from './unavailable.js';
import { updateExpression } from './update-expression.js';

export interface AppRecord {
  app_id: string;
  name: string;
  /** Currency revenue is reported in. */
  reporting_currency: string;
  /** Accepts receipts minted by `admin receipts mint`. */
  test_store: boolean;
  /**
   * The test store's ES256 key pair (PEM), never returned by any API: the private key locally, or
   * in AWS the name of the secret holding it (lib/stores/settings.ts).
   */
  test_store_private_key?: string;
  test_store_private_key_secret?: string;
  test_store_public_key?: string;
  /** What restoring a purchase owned by another user does: refuse it, or move it to the restoring user. */
  restore_policy?: RestorePolicy;
  /**
   * Whether mobile requests acting on a user need an X-USER-TOKEN signed with user_token_secret
   * (lib/domain/user-token.ts). While on, every active sdk key's lookup item carries a copy of
   * the secret, so the write that authenticates a request returns it (no extra read).
   */
  require_user_token?: boolean;
  /** The app server's HMAC secret for user tokens (`ust_...`); kept when the requirement is turned off. */
  user_token_secret?: string;
  /** Bumped by every change to the app's keys or user-token setting (see underKeysVersion). */
  keys_version?: number;
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
  /** Only on the lookup item of an sdk key of an app that requires user tokens: the app's secret. */
  user_token_secret?: string;
}

export interface IssuedKey {
  key: string;
  key_id: string;
  kind: ApiKeyKind;
  tier: RateLimitTier;
}

/** What the lookup item of a key of this kind carries of the app's user-token setting. */
function userTokenCopy(app: AppRecord | undefined, kind: ApiKeyKind): { user_token_secret?: string } {
  return kind === 'sdk' && app?.require_user_token && app.user_token_secret
    ? { user_token_secret: app.user_token_secret }
    : {};
}

function keyItems(
  appId: string,
  kind: ApiKeyKind,
  tier: RateLimitTier,
  now: string,
  userToken: { user_token_secret?: string } = {},
): { issued: IssuedKey; items: Record<string, unknown>[] } {
  const key = newApiKey(kind);
  const hash = sha256Hex(key);
  const record: ApiKeyRecord = {
    app_id: appId,
    kind,
    key_id: apiKeyId(kind, hash),
    status: 'active',
    tier,
    created_at: now,
    revoked_at: null,
  };
  return {
    issued: { key, key_id: record.key_id, kind, tier },
    items: [
      { ...keys.apiKey(hash), type: 'api_key', ...record, ...userToken },
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
  const keySecret =
    testStoreKeys && input.keepTestStoreKey
      ? await input.keepTestStoreKey(appId, testStoreKeys.privateKeyPem)
      : undefined;
  const app: AppRecord = {
    app_id: appId,
    name: input.name,
    reporting_currency: input.reportingCurrency,
    test_store: input.testStore,
    ...(testStoreKeys
      ? {
          ...(keySecret
            ? { test_store_private_key_secret: keySecret }
            : { test_store_private_key: testStoreKeys.privateKeyPem }),
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
      TransactItems: [
        { ...keys.app(app.app_id), type: 'app', ...app },
        directoryEntry(app),
        ...secret.items,
        ...sdk.items,
      ].map(putNew),
    }),
  );
  return { app, secretKey: secret.issued, sdkKey: sdk.issued };
}

/**
 * Turns the test store on or off for an existing app. Turning it on gives the app a key pair the
 * first time (kept like createApp's; off keeps it, so receipts minted earlier verify again once it
 * is back on). The key pair is written on condition that the app has none: of two commands racing
 * to turn it on, one key pair wins. Where the private key is kept apart (a secret, in AWS), the
 * loser's key may have replaced the winner's there, so the loser reads the kept key back and sets
 * the public key to match it (`publicKeyOfKept`).
 */
export async function setTestStore(
  appId: string,
  on: boolean,
  keep: {
    keepTestStoreKey?: (appId: string, privateKeyPem: string) => Promise<string | undefined>;
    publicKeyOfKept?: (secretName: string) => Promise<string>;
  } = {},
): Promise<{ test_store: boolean; generated_key: boolean }> {
  const setFlag = () =>
    ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.app(appId),
        UpdateExpression: 'SET test_store = :on',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':on': on },
      }),
    );
  const app = await getApp(appId, true);
  if (!app) throw new Error(`app ${appId} does not exist`);
  if (!on || app.test_store_public_key) {
    await setFlag();
    return { test_store: on, generated_key: false };
  }
  const pair = newTestStoreKeys();
  const keySecret = keep.keepTestStoreKey ? await keep.keepTestStoreKey(appId, pair.privateKeyPem) : undefined;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.app(appId),
        ...updateExpression({
          set: {
            test_store: true,
            test_store_public_key: pair.publicKeyPem,
            ...(keySecret
              ? { test_store_private_key_secret: keySecret }
              : { test_store_private_key: pair.privateKeyPem }),
          },
          condition: { expression: 'attribute_exists(pk) AND attribute_not_exists(test_store_public_key)' },
        }),
      }),
    );
    return { test_store: true, generated_key: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  // Another command gave the app its key pair first.
  if (keySecret && keep.publicKeyOfKept) {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.app(appId),
        UpdateExpression: 'SET test_store = :on, test_store_public_key = :public',
        ExpressionAttributeValues: { ':on': true, ':public': await keep.publicKeyOfKept(keySecret) },
      }),
    );
  } else {
    await setFlag();
  }
  return { test_store: true, generated_key: false };
}

/** An app's entry in the directory: its id, and its name and creation time, which never change. */
const directoryEntry = (app: Pick<AppRecord, 'app_id' | 'name' | 'created_at'>) => ({
  ...keys.appDirectory(app.app_id),
  type: 'app_directory',
  app_id: app.app_id,
  name: app.name,
  created_at: app.created_at,
});

/** What `admin apps list` shows of an app: its settings, never its secrets or keys. */
export interface AppSummary {
  app_id: string;
  name: string;
  reporting_currency: string;
  test_store: boolean;
  restore_policy: RestorePolicy;
  require_user_token: boolean;
  created_at: string;
}

const summaryOf = (app: AppRecord): AppSummary => ({
  app_id: app.app_id,
  name: app.name,
  reporting_currency: app.reporting_currency,
  test_store: app.test_store,
  restore_policy: app.restore_policy ?? 'block',
  require_user_token: app.require_user_token ?? false,
  created_at: app.created_at,
});

/**
 * Every app of the service, oldest first: the directory's entries (one Query of its partition), then
 * the apps themselves (consistent BatchGetItem) for their current settings.
 */
export async function listApps(): Promise<AppSummary[]> {
  const entries = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': APP_DIRECTORY_PK },
    ConsistentRead: true,
  });
  const apps = await batchGetConsistent(entries.map((entry) => keys.app(String(entry.app_id))));
  return apps
    .filter((app): app is Record<string, unknown> => app !== undefined)
    .map((app) => summaryOf(app as unknown as AppRecord))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.app_id.localeCompare(b.app_id));
}

/**
 * Adds to the directory the apps created before it existed: a whole-table Scan for app items (an
 * operator command after an upgrade, never a request), writing an entry for each, which is
 * idempotent. `onPage` hears of every page scanned (a large table takes a while); `pageSize`
 * caps the items a page examines (DynamoDB's own cap, 1 MB, without it).
 */
export async function addAppsToDirectory({
  onPage = () => {},
  pageSize,
}: {
  onPage?: (progress: { scanned: number; apps: number }) => void;
  pageSize?: number;
} = {}): Promise<{ scanned: number; apps: number }> {
  const progress = { scanned: 0, apps: 0 };
  // An app item's key: pk APP#<app>, sk APP.
  const { pk: prefix, sk: appSk } = keys.app('');
  for await (const page of scanPages({
    ConsistentRead: true,
    FilterExpression: 'begins_with(pk, :prefix) AND sk = :app',
    ExpressionAttributeValues: { ':prefix': prefix, ':app': appSk },
    ProjectionExpression: 'pk, #name, created_at',
    ExpressionAttributeNames: { '#name': 'name' },
    ...(pageSize ? { Limit: pageSize } : {}),
  })) {
    // The app's id as its key names it.
    const apps = (page.Items ?? []).map(({ pk, name, created_at }) => ({
      app_id: String(pk).slice(prefix.length),
      name: String(name),
      created_at: String(created_at),
    }));
    await batchWriteAll(apps.map((app) => putRequest(directoryEntry(app))));
    progress.scanned += page.ScannedCount ?? 0;
    progress.apps += apps.length;
    onPage({ ...progress });
  }
  return progress;
}

export async function getApp(appId: string, consistent = false): Promise<AppRecord | undefined> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.app(appId), ...(consistent ? { ConsistentRead: true } : {}) }),
  );
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

/** The app's keys; `consistent` for a listing that must include a key issued a moment ago. */
export async function listAppKeys(appId: string, kind?: ApiKeyKind, consistent = false): Promise<AppKeyItem[]> {
  const { pk, skPrefix } = keys.appKeyPrefix(appId, kind);
  return (await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    ...(consistent ? { ConsistentRead: true } : {}),
  })) as unknown as AppKeyItem[];
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
 * The app item's `keys_version`, bumped on condition that it is still what was read. Every
 * transaction that issues keys or changes the user-token setting carries it, so the two never
 * interleave: a key issued while the setting changes cannot miss the setting (one transaction
 * fails its condition and runs again on a fresh read). The app must exist: issuing a key for a
 * typo'd app id fails instead of minting an orphan key.
 */
function bumpKeysVersion(appId: string, read: AppRecord | undefined, appChange?: AppChange): TransactItem {
  const version = read?.keys_version;
  return {
    Update: {
      TableName: tableName,
      Key: keys.app(appId),
      // One transaction may touch an item once: the app's own change goes into this update.
      ...updateExpression({
        add: { keys_version: 1 },
        set: appChange,
        condition:
          version === undefined
            ? { expression: 'attribute_exists(pk) AND attribute_not_exists(keys_version)' }
            : { expression: 'keys_version = :read', values: { ':read': version } },
      }),
    },
  };
}

/** Fields set on the app item by a change to its keys or user-token setting. */
type AppChange = Partial<AppRecord>;

const cancelledByCondition = (error: unknown): boolean =>
  cancellationReasonsOf(error).includes('ConditionalCheckFailed');

const KEYS_VERSION_ATTEMPTS = 5;

/**
 * Reads the app (and whatever `build` reads, consistently), writes what `build` returns in one
 * transaction with the keys_version bump, and starts over when another change came first.
 */
async function underKeysVersion<T>(
  appId: string,
  build: (app: AppRecord | undefined) => Promise<{ items: TransactItem[]; result: T; appChange?: AppChange }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const app = await getApp(appId, true);
    const { items, result, appChange } = await build(app);
    try {
      await ddb.send(new TransactWriteCommand({ TransactItems: [bumpKeysVersion(appId, app, appChange), ...items] }));
      return result;
    } catch (error) {
      if (!app || attempt >= KEYS_VERSION_ATTEMPTS || !cancelledByCondition(error)) throw error;
    }
  }
}

/** Issues one more key of this kind for the app; its other keys keep working. */
export async function issueKey(
  appId: string,
  kind: ApiKeyKind,
  tier: RateLimitTier = DEFAULT_RATE_LIMIT_TIER,
): Promise<IssuedKey> {
  return underKeysVersion(appId, async (app) => {
    const fresh = keyItems(appId, kind, tier, new Date().toISOString(), userTokenCopy(app, kind));
    return { items: fresh.items.map(putNew), result: fresh.issued };
  });
}

/**
 * Issues a new key of this kind. Unless keepOld is set, the app's other active keys of the same
 * kind are revoked in the same transaction (set keepOld to roll clients over, then revoke). The
 * new key keeps the tier of the newest active key it replaces unless one is given, so a rotation
 * never silently changes what a client may send.
 */
export async function rotateKey(
  appId: string,
  kind: ApiKeyKind,
  keepOld: boolean,
  tier?: RateLimitTier,
): Promise<{ issued: IssuedKey; revoked: string[] }> {
  return underKeysVersion(appId, async (app) => {
    const now = new Date().toISOString();
    const active = (await listAppKeys(appId, kind, true))
      .filter((k) => k.status === 'active')
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    const fresh = keyItems(
      appId,
      kind,
      tier ?? active[0]?.tier ?? DEFAULT_RATE_LIMIT_TIER,
      now,
      userTokenCopy(app, kind),
    );
    const previous = keepOld ? [] : active;
    return {
      items: [...fresh.items.map(putNew), ...previous.flatMap((k) => revokeItems(appId, kind, k.hash, now))],
      result: { issued: fresh.issued, revoked: previous.map((k) => k.key_id) },
    };
  });
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

export interface UserTokenSetting {
  app_id: string;
  require_user_token: boolean;
  /** Set only when this change issued a new secret (it is shown once, like a key). */
  issued_secret?: string;
}

/** A transaction holds at most 100 items: the app item and one per active sdk key. */
const MAX_SDK_KEYS_FOR_USER_TOKENS = 99;

/**
 * Sets the app's user-token requirement and/or secret and, in the same transaction, the copy on
 * every active sdk key's lookup item (the secret while required, nothing otherwise). The next
 * request with any of those keys sees the change; a rotated secret refuses tokens of the old one.
 */
async function changeUserToken(
  appId: string,
  change: (app: AppRecord) => { required: boolean; newSecret?: string },
): Promise<UserTokenSetting> {
  return underKeysVersion(appId, async (app) => {
    if (!app) throw new Error(`app ${appId} does not exist`);
    const { required, newSecret } = change(app);
    const secret = newSecret ?? app.user_token_secret;
    // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable, both callers give a secret whenever they require one
    if (required && !secret) throw new Error('a required user token needs a secret');
    const active = (await listAppKeys(appId, 'sdk', true)).filter((k) => k.status === 'active');
    if (active.length > MAX_SDK_KEYS_FOR_USER_TOKENS)
      throw new Error(
        `app ${appId} has ${active.length} active sdk keys; revoke some first (at most ${MAX_SDK_KEYS_FOR_USER_TOKENS})`,
      );
    const appChange: AppChange = {
      require_user_token: required,
      ...(newSecret ? { user_token_secret: newSecret } : {}),
    };
    const keyUpdates: TransactItem[] = active.map((k) => ({
      Update: {
        TableName: tableName,
        Key: keys.apiKey(k.hash),
        ...updateExpression({
          ...(required ? { set: { user_token_secret: secret } } : { remove: ['user_token_secret'] }),
          condition: { expression: 'attribute_exists(pk)' },
        }),
      },
    }));
    return {
      appChange,
      items: keyUpdates,
      result: { app_id: appId, require_user_token: required, ...(newSecret ? { issued_secret: newSecret } : {}) },
    };
  });
}

/** Turns the requirement on (issuing a secret if the app has none) or off (the secret is kept for turning it on again). */
export function setUserTokenRequired(appId: string, required: boolean): Promise<UserTokenSetting> {
  return changeUserToken(appId, (app) => ({
    required,
    newSecret: required && !app.user_token_secret ? newUserTokenSecret() : undefined,
  }));
}

export class UserTokenSecretExists extends Error {
  constructor(appId: string) {
    super(`app ${appId} already has a user-token secret`);
    this.name = 'UserTokenSecretExists';
  }
}

/**
 * Issues a new secret; with `replace`, in place of the app's current one (tokens signed with the
 * old one are refused from the next request), else only if it has none (UserTokenSecretExists).
 */
export function issueUserTokenSecret(
  appId: string,
  replace: boolean,
): Promise<UserTokenSetting & { issued_secret: string }> {
  return changeUserToken(appId, (app) => {
    if (app.user_token_secret && !replace) throw new UserTokenSecretExists(appId);
    return { required: app.require_user_token === true, newSecret: newUserTokenSecret() };
  }) as Promise<UserTokenSetting & { issued_secret: string }>;
}
