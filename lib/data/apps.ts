/** Apps: their records, their directory and their settings; their keys are lib/data/api-keys.ts's. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newAppId } from '../core/ids.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';
import { newTestStoreKeys } from '../stores/test-store.js';
import { type IssuedKey, keyItems, putNew } from './api-keys.js';
import { batchGetConsistent, batchWriteAll, putRequest } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { queryAll, scanPages } from './query.js';
import { APP_DIRECTORY_PK } from './table-keys.js';
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
   * in AWS the name of the secret holding it (lib/data/store-settings.ts).
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
  /** Where the customer center sends a user who asks for help (`GET /v1/customercenter/...`): public. */
  support_email?: string;
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

/** Sets the app's support email, or removes it (undefined). */
export async function setSupportEmail(appId: string, email: string | undefined): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.app(appId),
      ConditionExpression: 'attribute_exists(pk)',
      ...(email === undefined
        ? { UpdateExpression: 'REMOVE support_email' }
        : { UpdateExpression: 'SET support_email = :email', ExpressionAttributeValues: { ':email': email } }),
    }),
  );
}

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
  support_email: string | null;
  created_at: string;
}

const summaryOf = (app: AppRecord): AppSummary => ({
  app_id: app.app_id,
  name: app.name,
  reporting_currency: app.reporting_currency,
  test_store: app.test_store,
  restore_policy: app.restore_policy ?? 'block',
  require_user_token: app.require_user_token ?? false,
  support_email: app.support_email ?? null,
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
