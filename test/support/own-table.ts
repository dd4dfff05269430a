/**
 * For test files that read the table's stream, or the whole table: their own table in the shared
 * DynamoDB Local, so their stream and their scans carry only their items: set TABLE_NAME in
 * vi.hoisted (before lib/ reads it), then call createOwnTable.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { ensureTable, localClient } from '../../local/dynamodb.js';

export async function createOwnTable(): Promise<void> {
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  await ensureTable(client, process.env.TABLE_NAME!);
  client.destroy();
}

/**
 * Deletes every item of the file's own table: a mutation run reruns a file in one process against
 * the same table, and what an earlier run wrote must not stand in for what this one failed to write.
 */
export async function emptyOwnTable(): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new ScanCommand({
        TableName: tableName,
        ConsistentRead: true,
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: startKey,
      }),
    );
    await batchWriteAll((page.Items ?? []).map((Key) => ({ DeleteRequest: { Key } })));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
