/** Per-app configuration documents an operator sets with the CLI: rule segments and ad configuration. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AdsConfig } from '../schemas/ads.js';
import type { Segment } from '../schemas/segment.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';

export async function putSegments(appId: string, segments: Segment[]): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.segments(appId), type: 'segments', segments, updated_at: new Date().toISOString() },
    }),
  );
}

export async function getSegments(appId: string): Promise<Segment[]> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.segments(appId) }));
  return (Item?.segments as Segment[] | undefined) ?? [];
}

export async function putAdsConfig(appId: string, config: AdsConfig): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.adsConfig(appId), type: 'ads_config', config, updated_at: new Date().toISOString() },
    }),
  );
}

export async function getAdsConfig(appId: string): Promise<AdsConfig | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.adsConfig(appId) }));
  return Item?.config as AdsConfig | undefined;
}
