/**
 * Google's published OIDC keys (the JWKS that signs Pub/Sub push tokens), kept in the table as a
 * function last fetched them: a cold Google Play notification function reads them in the same
 * BatchGetItem as the app's settings instead of asking Google (docs/decisions/notification-cold-start.md).
 * They are Google's public keys, written only after a fetch from the configured URL.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';

export interface StoredGoogleKeys {
  /** The JWKs as Google published them (the usable ones). */
  keys: Record<string, unknown>[];
  /** When they were fetched, ms since the epoch. */
  fetched_at: number;
  /** When a fetch last failed, ms since the epoch: no instance fetches again for a short while. */
  fetch_failed_at?: number;
}

/** The stored key set in an item read at keys.googleOidcKeys (keys may be none, with a failure), or undefined. */
export function storedGoogleKeysOf(item: Record<string, unknown> | undefined): StoredGoogleKeys | undefined {
  if (!item) return undefined;
  const failed = typeof item.fetch_failed_at === 'number' ? { fetch_failed_at: item.fetch_failed_at } : {};
  if (!Array.isArray(item.keys) || typeof item.fetched_at !== 'number')
    return 'fetch_failed_at' in failed ? { keys: [], fetched_at: 0, ...failed } : undefined;
  return { keys: item.keys as Record<string, unknown>[], fetched_at: item.fetched_at, ...failed };
}

/** Keeps the time a fetch failed, beside the keys kept (if any), unless a later failure is kept already. */
export async function saveGoogleOidcKeysFailure(jwksUrl: string, failedAt: number): Promise<void> {
  await ddb
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.googleOidcKeys(jwksUrl),
        UpdateExpression: 'SET #type = :type, fetch_failed_at = :at',
        ConditionExpression: 'attribute_not_exists(fetch_failed_at) OR fetch_failed_at < :at',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': 'google_oidc_keys', ':at': failedAt },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** Keeps a fetched key set, unless a newer one is already kept (two processes fetching at once). */
export async function saveGoogleOidcKeys(jwksUrl: string, stored: StoredGoogleKeys): Promise<void> {
  await ddb
    .send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.googleOidcKeys(jwksUrl), type: 'google_oidc_keys', ...stored },
        ConditionExpression: 'attribute_not_exists(fetched_at) OR fetched_at < :at',
        ExpressionAttributeValues: { ':at': stored.fetched_at },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}
