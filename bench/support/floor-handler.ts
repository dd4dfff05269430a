/**
 * The cold-start floor: the least any function of this service does, one DynamoDBDocumentClient
 * and one GetItem (the same read authentication makes). Bundled with the functions' own esbuild
 * settings, it is what every function bundle and cold start is compared with.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

// DYNAMODB_ENDPOINT is set for DynamoDB Local only, as in lib/core/config.ts.
const ddb = DynamoDBDocumentClient.from(
  new DynamoDBClient(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}),
);

export const handler = async (event: { pk: string; sk: string }) => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  return { found: Item !== undefined };
};
