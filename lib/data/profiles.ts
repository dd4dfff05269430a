/** User profiles (written by the mobile reporting API); the subscription detail reads usage from them. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { keys } from './keys.js';

export interface UsageStats {
  features_used: number;
  last_activity: string | null;
  total_sessions: number;
}

export async function getUsageStats(appId: string, userId: string): Promise<UsageStats> {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.userProfile(appId, userId),
      ProjectionExpression: 'total_sessions, features, last_seen',
    }),
  );
  const features = Item?.features as Set<string> | string[] | undefined;
  return {
    features_used: features ? (features instanceof Set ? features.size : features.length) : 0,
    last_activity: (Item?.last_seen as string | undefined) ?? null,
    total_sessions: Number(Item?.total_sessions ?? 0),
  };
}
