/**
 * For test files that read the table's stream: their own table in the shared DynamoDB Local, so
 * their stream carries only their events: set TABLE_NAME in vi.hoisted (before lib/ reads it), then call createOwnTable.
 */
import { ensureTable, localClient } from '../../local/dynamodb.js';

export async function createOwnTable(): Promise<void> {
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  await ensureTable(client, process.env.TABLE_NAME!);
  client.destroy();
}
