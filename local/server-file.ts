/**
 * How the operator CLI finds the `npm start` of its directory and knows the DynamoDB it reaches is
 * that server's: `npm start` writes `server.json` under DATA_DIR (where it listens, its table, pid
 * and a random instance id) and a marker item holding the instance id into its table.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../lib/data/table.js';

export const DEFAULT_DATA_DIR = '.data';
export const SERVER_FILE = 'server.json';

export interface LocalServer {
  gateway_url: string;
  dynamodb_endpoint: string;
  table_name: string;
  pid: number;
  instance_id: string;
}

export const serverFilePath = (dataDir: string) => resolve(dataDir, SERVER_FILE);

const markerKey = (instanceId: string) => ({
  [TABLE.partitionKey]: 'LOCAL_SERVER',
  [TABLE.sortKey]: `INSTANCE#${instanceId}`,
});

export function writeServerFile(dataDir: string, server: LocalServer): void {
  writeFileSync(join(dataDir, SERVER_FILE), `${JSON.stringify(server, null, 2)}\n`);
}

/** Removes the file if it is still this instance's (a later `npm start` may have replaced it). */
export function removeServerFile(dataDir: string, instanceId: string): void {
  if (readServerFile(dataDir)?.instance_id === instanceId) rmSync(serverFilePath(dataDir), { force: true });
}

function readServerFile(dataDir: string): LocalServer | undefined {
  try {
    return JSON.parse(readFileSync(serverFilePath(dataDir), 'utf8')) as LocalServer;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The `npm start` running from DATA_DIR, if its file is there and its process alive. */
export function runningServer(dataDir: string): LocalServer | undefined {
  const server = readServerFile(dataDir);
  return server && Number.isInteger(server.pid) && isRunning(server.pid) ? server : undefined;
}

export async function putServerMarker(client: DynamoDBClient, server: LocalServer): Promise<void> {
  await DynamoDBDocumentClient.from(client).send(
    new PutCommand({
      TableName: server.table_name,
      Item: { ...markerKey(server.instance_id), gateway_url: server.gateway_url, pid: server.pid },
    }),
  );
}

export async function deleteServerMarker(client: DynamoDBClient, server: LocalServer): Promise<void> {
  await DynamoDBDocumentClient.from(client).send(
    new DeleteCommand({ TableName: server.table_name, Key: markerKey(server.instance_id) }),
  );
}

/** Whether the DynamoDB this client reaches holds the server's marker (false: another DynamoDB, or no such table). */
export async function holdsServerMarker(client: DynamoDBClient, server: LocalServer): Promise<boolean> {
  try {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: server.table_name,
        Key: {
          [TABLE.partitionKey]: { S: 'LOCAL_SERVER' },
          [TABLE.sortKey]: { S: `INSTANCE#${server.instance_id}` },
        },
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}
