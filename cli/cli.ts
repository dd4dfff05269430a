/**
 * The operator CLI: `npm run --silent admin -- <group> <command> [options]`. Talks to DYNAMODB_ENDPOINT
 * (default: the DynamoDB Local of `npm start`) or, with --aws, to the deployed table (TABLE_NAME),
 * keeping private keys in Secrets Manager under STORE_SECRETS_PREFIX (else read from the
 * StoreSecretsPrefix output of the stack STACK_NAME, SubscriptionBackend by default).
 * With --json every command prints exactly one JSON document on stdout (errors too, as {"error": ...}).
 */
import { DEFAULT_DYNAMODB_PORT, DEFAULT_STACK_NAME } from '../lib/core/defaults.js';
import { STORE_SECRETS_PREFIX_OUTPUT } from '../lib/domain/credential-placement.js';
import { CliError } from './command.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const aws = argv.includes('--aws');
/** Use DYNAMODB_ENDPOINT even though the npm start of this directory uses another DynamoDB. */
const otherDynamoDb = argv.includes('--other-dynamodb');
/** Why the stack's outputs gave no STORE_SECRETS_PREFIX, if they were read and did not. */
let prefixLookupProblem: string | undefined;
/**
 * Asked for help: no words, `help ...` or `--help`. After an option (`--name --help`) it may be that
 * option's value, which only the command's options tell: such a command line goes the usual way.
 */
const asksForHelp =
  argv.length === 0 || argv[0] === 'help' || argv.some((arg, i) => arg === '--help' && !argv[i - 1]?.startsWith('--'));

// Help needs no table, and no store secret prefix: the help text is all that runs.
if (!asksForHelp) {
  if (aws) await useAwsTable();
  else await useLocalServer();
}

/** The deployed table (TABLE_NAME), and Secrets Manager under the stack's prefix for private keys. */
async function useAwsTable(): Promise<void> {
  if (!process.env.TABLE_NAME) {
    const message = '--aws needs TABLE_NAME (the TableName output of the deployed stack)';
    if (json) console.log(JSON.stringify({ error: { code: 'USAGE', message } }));
    else console.error(message);
    process.exit(2);
  }
  delete process.env.DYNAMODB_ENDPOINT;
  if (process.env.STORE_SECRETS_PREFIX) return;
  // Private keys go to Secrets Manager under the stack's prefix: read it from the stack's outputs.
  const stackName = process.env.STACK_NAME || DEFAULT_STACK_NAME;
  const { stackOutput } = await import('./stack-outputs.js');
  try {
    const prefix = await stackOutput(stackName, STORE_SECRETS_PREFIX_OUTPUT);
    if (prefix) process.env.STORE_SECRETS_PREFIX = prefix;
    else prefixLookupProblem = `stack ${stackName} has no ${STORE_SECRETS_PREFIX_OUTPUT} output`;
  } catch (error) {
    prefixLookupProblem = `reading stack ${stackName} (STACK_NAME): ${(error as Error).message}`;
  }
}

function refuse(code: string, message: string): never {
  if (json) console.log(JSON.stringify({ error: { code, message } }));
  else console.error(`error: ${message}`);
  process.exit(1);
}

/**
 * The DynamoDB of the `npm start` running from this directory (DATA_DIR's server.json), checked by
 * its marker before any command runs. DYNAMODB_ENDPOINT or DYNAMODB_PORT naming another DynamoDB
 * is refused while that server runs, unless --other-dynamodb says so; with no server running they
 * are used as set.
 */
async function useLocalServer(): Promise<void> {
  const { DEFAULT_DATA_DIR, holdsServerMarker, runningServer, serverFilePath } = await import(
    '../local/server-file.js'
  );
  const dataDir = process.env.DATA_DIR || DEFAULT_DATA_DIR;
  const serverFile = serverFilePath(dataDir);
  const explicit =
    process.env.DYNAMODB_ENDPOINT ||
    (process.env.DYNAMODB_PORT ? `http://127.0.0.1:${process.env.DYNAMODB_PORT}` : undefined);
  const server = runningServer(dataDir);
  if (!server) {
    if (explicit) {
      process.env.DYNAMODB_ENDPOINT = explicit;
      return;
    }
    refuse(
      'NO_SERVER',
      `no npm start is running from this directory (${serverFile} names none): start it here, or set DATA_DIR to the one it uses, or DYNAMODB_ENDPOINT to use another DynamoDB (port ${DEFAULT_DYNAMODB_PORT} is not assumed)`,
    );
  }
  if (explicit && explicit !== server.dynamodb_endpoint) {
    if (otherDynamoDb) {
      process.env.DYNAMODB_ENDPOINT = explicit;
      return;
    }
    refuse(
      'OTHER_DYNAMODB',
      `${process.env.DYNAMODB_ENDPOINT ? `DYNAMODB_ENDPOINT=${explicit}` : `DYNAMODB_PORT=${process.env.DYNAMODB_PORT}`} is not the DynamoDB of the npm start running from this directory (${server.dynamodb_endpoint}, ${serverFile}): unset it to use that server's, or add --other-dynamodb to use ${explicit} anyway`,
    );
  }
  process.env.DYNAMODB_ENDPOINT = server.dynamodb_endpoint;
  process.env.TABLE_NAME ||= server.table_name;
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({
    endpoint: server.dynamodb_endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const holdsMarker = await holdsServerMarker(client, server).catch((error: unknown) =>
      refuse('FAILED', `cannot reach DynamoDB at ${server.dynamodb_endpoint}: ${(error as Error).message}`),
    );
    if (!holdsMarker) {
      refuse(
        'NOT_THIS_SERVER',
        `the DynamoDB at ${server.dynamodb_endpoint} is not the one of the npm start running from this directory (pid ${server.pid}, ${serverFile}): its table ${server.table_name} lacks that server's marker, so another DynamoDB listens there; nothing was written`,
      );
    }
  } finally {
    client.destroy();
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Where a connection failed: the errors Node gives (one, or an AggregateError of one per address). */
function failedAddresses(error: unknown): { code: string; host: string; port?: number }[] {
  const errors = (error as Error).name === 'AggregateError' ? (error as AggregateError).errors : [error];
  return errors.flatMap((e: NodeJS.ErrnoException & { hostname?: string; address?: string; port?: number }) => {
    const host = e?.hostname ?? e?.address;
    return e?.code && host ? [{ code: e.code, host, ...(e.port ? { port: e.port } : {}) }] : [];
  });
}

function isConnectionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && CONNECTION_ERROR_CODES.has(code)) || (error as Error).name === 'AggregateError';
}

/** The services the CLI calls with --aws: their names, AWS_ENDPOINT_URL_<ID> and endpoint prefix. */
const AWS_SERVICES = [
  { name: 'DynamoDB', id: 'DYNAMODB', prefix: 'dynamodb' },
  { name: 'Secrets Manager', id: 'SECRETS_MANAGER', prefix: 'secretsmanager' },
  { name: 'CloudFormation', id: 'CLOUDFORMATION', prefix: 'cloudformation' },
];

/** Which AWS service could not be reached, at which endpoint, named from the address that failed. */
function unreachableAwsMessage(error: unknown): string {
  const region = process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;
  const [failed] = failedAddresses(error);
  for (const service of AWS_SERVICES) {
    const endpoint =
      process.env[`AWS_ENDPOINT_URL_${service.id}`] ||
      process.env.AWS_ENDPOINT_URL ||
      `https://${service.prefix}.${region ?? '<region>'}.amazonaws.com`;
    const url = new URL(endpoint);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (failed && failed.host === url.hostname && (failed.port === undefined || failed.port === port)) {
      return `cannot reach ${service.name} at ${endpoint} (${failed.code}): check the network, AWS_REGION${region ? ` (${region})` : ''} and any AWS_ENDPOINT_URL_${service.id}`;
    }
  }
  const where = failed ? ` (${failed.code} ${failed.host}${failed.port ? `:${failed.port}` : ''})` : '';
  return `cannot reach AWS${where}: check the network and AWS_REGION`;
}

// Imported after the environment is settled: the data layer reads it once.
const { runCommand } = await import('./registry.js');
try {
  const result = await runCommand(
    argv.filter((arg) => arg !== '--json' && arg !== '--aws' && arg !== '--other-dynamodb'),
  );
  if (json) console.log(JSON.stringify(result.json, null, 2));
  else console.log(result.text);
} catch (error) {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  let message = (error as Error).message;
  if (isConnectionError(error)) {
    message = aws
      ? unreachableAwsMessage(error)
      : `cannot reach DynamoDB at ${endpoint}: is \`npm start\` running? (or set DYNAMODB_ENDPOINT, or use --aws)`;
  } else if ((error as Error).name === 'ResourceNotFoundException') {
    message = `table ${process.env.TABLE_NAME ?? 'subscriptions'} does not exist${endpoint ? ` at ${endpoint}: start the service once with \`npm start\`` : ''}`;
  }
  // Exit 2: the command line is wrong; 1: a well-formed command failed (NOT_FOUND, NOT_TEST_STORE...).
  const errorCode = error instanceof CliError ? error.code : 'FAILED';
  if (errorCode === 'NO_SECRETS_PREFIX' && prefixLookupProblem) message += ` (${prefixLookupProblem})`;
  if (json) console.log(JSON.stringify({ error: { code: errorCode, message } }));
  else console.error(`error: ${message}`);
  process.exit(errorCode === 'USAGE' ? 2 : 1);
}
