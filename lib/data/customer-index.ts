/**
 * The customers index (customersOfApp): an app's users in id order, by the `app_id` and `user_pk`
 * (`<app>#<user>`) of their subscriptions and profiles. A user with several has several entries.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { type IndexName, TABLE } from './table.js';

// Built in a call marked pure: a top-level property read is kept by esbuild in every bundle importing this module.
const index = /* @__PURE__ */ (() => TABLE.indexes.customersOfApp)();

/**
 * What files a profile in the index, beside its app_id: the user index's key, as the user's
 * subscriptions carry it (without their listing key, so the profile is in no subscription index).
 */
export const profileCustomerAttributes = (appId: string, userId: string): Record<string, string> => ({
  [index.sortKey]: keys.userSubscriptions(appId, userId),
});

export interface CustomerEntries {
  /** The entries' user ids, in order; a user with several entries is there as often. */
  userIds: string[];
  /** The app's partition holds entries after these. */
  more: boolean;
}

/**
 * Up to `limit` entries: from the first whose user id starts with `prefix`, or, given `after`,
 * from the first after that user id (then on past the prefix: the caller stops there).
 */
export async function readCustomerEntries(
  appId: string,
  from: { prefix: string; after: string | undefined },
  limit: number,
): Promise<CustomerEntries> {
  const range =
    from.after !== undefined
      ? { condition: '#sk > :from', value: keys.userSubscriptions(appId, from.after) }
      : { condition: 'begins_with(#sk, :from)', value: keys.userSubscriptions(appId, from.prefix) };
  const { Items = [], LastEvaluatedKey } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'customersOfApp' satisfies IndexName,
      KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
      ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
      ExpressionAttributeValues: { ':pk': appId, ':from': range.value },
      Limit: limit,
    }),
  );
  const appPrefix = keys.userSubscriptions(appId, '');
  return {
    userIds: Items.map((item) => (item[index.sortKey] as string).slice(appPrefix.length)),
    more: LastEvaluatedKey !== undefined,
  };
}
