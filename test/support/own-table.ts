/**
 * For test files that read the table's stream: their own table in the shared DynamoDB Local, so
 * their stream carries only their events. Call `useOwnTable` inside vi.hoisted (before lib/ reads TABLE_NAME).
 */
import { ensureTable, localClient } from '../../lib/local/dynamodb.js';

export async function createOwnTable(): Promise<void> {
  const client = localClient(process.env.DYNAMODB_ENDPOINT!);
  await ensureTable(client, process.env.TABLE_NAME!);
  client.destroy();
}
