/**
 * Files the profiles written before the customers index existed (`admin customers reindex`): each
 * profile without the index's key gets it, on the condition that it still exists and has none (an
 * erasure or a live write in between wins). Subscriptions carry theirs already: DynamoDB files
 * them when it builds the index. Safe to run again; it changes nothing the second time.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionFailure, tableName } from './client.js';
import { profileCustomerAttributes } from './customer-index.js';
import * as keys from './entity-keys.js';
import { scanPages } from './query.js';
import { TABLE } from './table.js';
import { updateExpression } from './update-expression.js';

export interface ReindexResult {
  /** Profiles read. */
  examined: number;
  /** Profiles given the index's keys. */
  indexed: number;
}

/** The attribute a profile in the customers index has (the index's sort key). */
const INDEXED = TABLE.indexes.customersOfApp.sortKey;

export async function reindexCustomers(onProgress?: (result: ReindexResult) => void): Promise<ReindexResult> {
  const result: ReindexResult = { examined: 0, indexed: 0 };
  for await (const page of scanPages({
    FilterExpression: 'begins_with(pk, :user) AND sk = :profile AND attribute_not_exists(#indexed)',
    ExpressionAttributeNames: { '#indexed': INDEXED },
    ExpressionAttributeValues: { ':user': 'USER#', ':profile': keys.userProfile('', '').sk },
    ProjectionExpression: 'pk, sk, app_id, user_id',
  })) {
    for (const item of page.Items ?? []) {
      result.examined += 1;
      if (await indexProfile(profileOwner(item))) result.indexed += 1;
    }
    onProgress?.(result);
  }
  return result;
}

/** Whose profile it is: its fields, or its key (`USER#<app>#<user>`; an app id holds no '#'). */
function profileOwner(item: Record<string, unknown>): { appId: string; userId: string } {
  const [, appId = '', ...rest] = String(item.pk).split('#');
  return {
    appId: typeof item.app_id === 'string' ? item.app_id : appId,
    userId: typeof item.user_id === 'string' ? item.user_id : rest.join('#'),
  };
}

async function indexProfile({ appId, userId }: { appId: string; userId: string }): Promise<boolean> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.userProfile(appId, userId),
        ...updateExpression({
          // The oldest profiles held their app in their key alone: the index is keyed by app_id too.
          set: { app_id: appId, ...profileCustomerAttributes(appId, userId) },
          condition: {
            expression: 'attribute_exists(pk) AND attribute_not_exists(#indexed)',
            names: { '#indexed': INDEXED },
          },
        }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
