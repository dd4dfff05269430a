/**
 * Query helpers: every page of a query (up to a maximum), a partition's items by sort-key prefix,
 * and the pages of a whole-table Scan.
 */
import {
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';

/** Every item the query matches, across DynamoDB's pages, stopping once `max` items are read. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  max = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const remaining = max - items.length;
    const page = await ddb.send(
      new QueryCommand({
        ...input,
        TableName: tableName,
        ExclusiveStartKey: startKey,
        ...(Number.isFinite(remaining) ? { Limit: Math.min(remaining, input.Limit ?? remaining) } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < max);
  return items;
}

export const queryPrefix = (pk: string, skPrefix: string): Promise<Record<string, unknown>[]> =>
  queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
  });

/**
 * Every page of a Scan of the whole table, one request each, as DynamoDB pages it: for operator
 * commands, test and benchmark tools, never for a request.
 */
export async function* scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<ScanCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey }));
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
