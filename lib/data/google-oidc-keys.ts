/**
 * Google's published OIDC keys (the JWKS that signs Pub/Sub push tokens), kept in the table as a
 * function last fetched them: a cold Google Play notification function reads them in the same
 * BatchGetItem as the app's settings instead of asking Google (docs/decisions/notification-cold-start.md).
 * They are Google's public keys, written only after a fetch from the configured URL.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionFailure, tableName } from './client.js';
import { keys } from './keys.js';

export interface StoredGoogleKeys {
  /** The JWKs as Google published them (the usable ones). */
  keys: Record<string, unknown>[];
  /** When they were fetched, ms since the epoch. */
  fetched_at: number;
}

/** The stored key set in an item read at keys.googleOidcKeys, or undefined when it holds none. */
export function storedGoogleKeysOf(item: Record<string, unknown> | undefined): StoredGoogleKeys | undefined {
  if (!item || !Array.isArray(item.keys) || typeof item.fetched_at !== 'number') return undefined;
  return { keys: item.keys as Record<string, unknown>[], fetched_at: item.fetched_at };
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
