/**
 * `npm start`: the whole API on this machine. Starts DynamoDB Local (unless DYNAMODB_ENDPOINT
 * names one), creates the table, serves every route of lib/routes.ts through the local gateway,
 * and prints the base URLs. Ctrl-C stops the gateway and DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DYNAMODB_PORT, DEFAULT_PORT, DEFAULT_TABLE_NAME } from '../lib/core/defaults.js';
import { DYNAMODB_LOCAL_HOST, ensureTable, type LocalDynamoDb, localClient, startDynamoDbLocal } from './dynamodb.js';
import { PAYWALLS_PATH, paywallsDir } from './paywall-files.js';
import {
  DEFAULT_DATA_DIR,
  deleteServerMarker,
  type LocalServer,
  putServerMarker,
  removeServerFile,
  serverFilePath,
  writeServerFile,
} from './server-file.js';

const { values: flags } = parseArgs({ options: { 'in-memory': { type: 'boolean', default: false } } });

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const port = raw ? Number(raw) : fallback;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number, got "${raw}"`);
    process.exit(2);
  }
  return port;
}

const port = portFromEnv('PORT', DEFAULT_PORT);
const dynamodbPort = portFromEnv('DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT);
const dataDir = process.env.DATA_DIR || DEFAULT_DATA_DIR;
process.env.TABLE_NAME ||= DEFAULT_TABLE_NAME;
// Locally a revoked key stops working at once; in AWS warm functions cache keys for 30 s.
process.env.KEY_CACHE_TTL_SECONDS ??= '0';
// Likewise `admin entitlements put` shows in customer info at once, and `offerings put` and
// `switches put` in offerings; in AWS within 60 s.
process.env.ENTITLEMENTS_CACHE_TTL_SECONDS ??= '0';
process.env.OFFERINGS_CACHE_TTL_SECONDS ??= '0';
// A development server: webhooks may reach a receiver on this machine (the quick start's), each URL
// still stored only with `webhooks set --allow-private-url`; deployed functions never allow it.
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ??= '1';

let dynamo: LocalDynamoDb | undefined;
if (!process.env.DYNAMODB_ENDPOINT) {
  const started = Date.now();
  console.log(
    `Starting DynamoDB Local on port ${dynamodbPort} (${flags['in-memory'] ? 'in memory' : `data in ${dataDir}`})...`,
  );
  try {
    dynamo = await startDynamoDbLocal({ port: dynamodbPort, dataDir: flags['in-memory'] ? undefined : dataDir });
  } catch (error) {
    console.error(`Could not start DynamoDB Local: ${(error as Error).message}`);
    process.exit(1);
  }
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  console.log(`DynamoDB Local ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(
    `DynamoDB Local on ${DYNAMODB_LOCAL_HOST}:${dynamodbPort} only (no authentication: not reachable from other machines)`,
  );
}

const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = localClient(endpoint);
const tableState = await ensureTable(client, process.env.TABLE_NAME);

const sweepIntervalSeconds = Number(process.env.SWEEP_INTERVAL_SECONDS || 60);
if (!(sweepIntervalSeconds > 0)) {
  console.error(`SWEEP_INTERVAL_SECONDS must be a positive number, got "${process.env.SWEEP_INTERVAL_SECONDS}"`);
  process.exit(2);
}

// Imported only now: handler modules read their configuration from the environment set above.
const { startLocalRuntime } = await import('./runtime.js');
const { SUBSCRIPTIONS_BASE } = await import('../lib/routes.js');
const { webhookConfig } = await import('../lib/core/config.js');
let runtime: Awaited<ReturnType<typeof startLocalRuntime>>;
try {
  runtime = await startLocalRuntime({
    port,
    host: process.env.HOST || '127.0.0.1',
    sweepIntervalSeconds,
    apiReference: true,
    console: true,
    paywallsDir: paywallsDir(),
  });
} catch (error) {
  console.error(
    `Could not start: ${(error as Error).message}${(error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? ' (set PORT to use another port)' : ''}`,
  );
  await dynamo?.stop();
  process.exit(1);
}
const { gateway } = runtime;
// What launches answer as a bundle's download URL: this server's own /paywalls (known once it listens).
process.env.PAYWALLS_BASE_URL ||= `${gateway.url}${PAYWALLS_PATH}`;

// Where this server listens, for the operator CLI run from the same directory; the marker in its
// table lets the CLI tell this server's DynamoDB from another listening at the same address.
const server: LocalServer = {
  gateway_url: gateway.url,
  dynamodb_endpoint: endpoint,
  table_name: process.env.TABLE_NAME,
  pid: process.pid,
  instance_id: randomUUID(),
};
await putServerMarker(client, server);
mkdirSync(dataDir, { recursive: true });
writeServerFile(dataDir, server);
// The operator CLI finds this server by DATA_DIR (relative to the directory it runs in).
const adminEnvironment = dataDir === DEFAULT_DATA_DIR ? '' : `DATA_DIR=${resolve(dataDir)} `;

console.log(`DynamoDB          ${endpoint} (table "${process.env.TABLE_NAME}" ${tableState})`);
console.log(`Subscription API  ${gateway.url}${SUBSCRIPTIONS_BASE}`);
console.log(`Mobile API        ${gateway.url}/`);
console.log(`API reference     ${gateway.url}/docs (OpenAPI document: ${gateway.url}/openapi.json)`);
console.log(`Console           ${gateway.url}/console (sign in with an app's secret key)`);
console.log(
  `Paywalls          ${process.env.PAYWALLS_BASE_URL}/ (bundles of \`admin paywalls upload\`, from ${paywallsDir()})`,
);
console.log(
  `Jobs              expiry sweeper and webhook retries every ${sweepIntervalSeconds} s; outbox stream -> webhooks`,
);
console.log(
  webhookConfig.webhookAllowPrivateTargets
    ? 'Webhooks          may go to loopback and private addresses (local development; WEBHOOK_ALLOW_PRIVATE_TARGETS=0 refuses them, as AWS does)'
    : 'Webhooks          to public addresses only (WEBHOOK_ALLOW_PRIVATE_TARGETS=1 allows a receiver on this machine)',
);
console.log(`Server file       ${serverFilePath(dataDir)} (the operator CLI finds this server by it)`);
console.log(
  `Create an app:    ${adminEnvironment}npm run --silent admin -- apps create --name demo --test-store   (README: Quick start)`,
);
console.log('Press Ctrl-C to stop.');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping...`);
  await runtime.stop();
  removeServerFile(dataDir, server.instance_id);
  await deleteServerMarker(client, server).catch(() => undefined);
  client.destroy();
  await dynamo?.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
