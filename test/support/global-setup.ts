/** Starts one in-memory DynamoDB Local for the whole test run and creates the table in it. */
import type { TestProject } from 'vitest/node';
import { ensureTable, localClient, startDynamoDbLocal } from '../../local/dynamodb.js';
import { freePort } from './ports.js';

export const TEST_TABLE = 'subscriptions-test';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.TEST_DYNAMODB_ENDPOINT;
  const dynamo = external ? undefined : await startDynamoDbLocal({ port: await freePort() });
  const endpoint = external ?? dynamo!.endpoint;
  const client = localClient(endpoint);
  await ensureTable(client, TEST_TABLE);
  client.destroy();
  project.provide('dynamodbEndpoint', endpoint);
  project.provide('tableName', TEST_TABLE);
  return async () => {
    await dynamo?.stop();
  };
}
