/**
 * A private in-memory DynamoDB Local for one benchmark run. Call before importing lib/ modules:
 * it sets DYNAMODB_ENDPOINT and TABLE_NAME, which the data layer reads once at import.
 */
import { ensureTable, type LocalDynamoDb, localClient, startDynamoDbLocal } from '../../local/dynamodb.js';
import { freePort } from '../../test/support/ports.js';

export async function startBenchDynamoDb(tableName = 'bench'): Promise<LocalDynamoDb> {
  const dynamo = await startDynamoDbLocal({ port: await freePort() });
  const client = localClient(dynamo.endpoint);
  await ensureTable(client, tableName);
  client.destroy();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.KEY_CACHE_TTL_SECONDS ??= '0';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  // Benchmarks drive one API key far beyond any real plan: the per-key rate limiter must count
  // every request (its write is part of what is measured) without ever refusing one.
  process.env.RATE_LIMIT_STANDARD_PER_MINUTE ??= '1000000000';
  process.env.RATE_LIMIT_PREMIUM_PER_MINUTE ??= '1000000000';
  // Likewise the apps' report quotas: counted (their write is measured), never refusing.
  process.env.REPORT_EVENTS_PER_APP_PER_MINUTE ??= '1000000000';
  process.env.REPORT_STORED_BYTES_PER_APP ??= '1000000000000000';
  return dynamo;
}
