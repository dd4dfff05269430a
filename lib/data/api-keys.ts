/**
 * API keys (secret and sdk), found by the hash of the raw key, and the app's user-token setting,
 * which every active sdk key's lookup item carries a copy of.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type ApiKeyKind, apiKeyId, newApiKey, newUserTokenSecret, sha256Hex } from '../core/ids.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';
import type { AppRecord } from './apps.js';
import { ddb, type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { queryAll } from './query.js';
import { cancellationReasonsOf } from './unavailable.js';
import { updateExpression } from './update-expression.js';

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

export function keyItems(
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

export const putNew = (item: Record<string, unknown>) => ({
  Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
});

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

async function readAppConsistently(appId: string): Promise<AppRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.app(appId), ConsistentRead: true }));
  return Item as AppRecord | undefined;
}

/**
 * Reads the app (and whatever `build` reads, consistently), writes what `build` returns in one
 * transaction with the keys_version bump, and starts over when another change came first.
 */
async function underKeysVersion<T>(
  appId: string,
  build: (app: AppRecord | undefined) => Promise<{ items: TransactItem[]; result: T; appChange?: AppChange }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const app = await readAppConsistently(appId);
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
