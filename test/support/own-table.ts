/**
 * For test files that read the table's stream, or the whole table: their own table in the shared
 * DynamoDB Local, so their stream and their scans carry only their items: set TABLE_NAME in
 * vi.hoisted (before lib/ reads it), then call createOwnTable.
 */
import { batchWriteAll } from '../../lib/data/batch.js';
import { scanPages } from '../../lib/data/query.js';
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
  for await (const page of scanPages({ ConsistentRead: true, ProjectionExpression: 'pk, sk' })) {
    await batchWriteAll((page.Items ?? []).map((Key) => ({ DeleteRequest: { Key } })));
  }
}
