/** The entitlement definitions of an app (`admin entitlements put`): one item holding the whole set. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Entitlement } from '../schemas/entitlement.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';

/** Replaces the app's entitlements with these, in one write: a reader sees the old set or the new one. */
export async function putEntitlements(appId: string, entitlements: Entitlement[]): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.entitlements(appId), type: 'entitlements', entitlements, updated_at: new Date().toISOString() },
    }),
  );
}

/** The app's entitlements; none when it has defined none. */
export async function getEntitlements(appId: string): Promise<Entitlement[]> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.entitlements(appId) }));
  return (Item?.entitlements as Entitlement[] | undefined) ?? [];
}
