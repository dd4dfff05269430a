/**
 * `admin --aws` as an operator runs it after a deploy, as a process: the deployed table (here
 * DynamoDB Local through AWS_ENDPOINT_URL_DYNAMODB, as the SDK takes it) and Secrets Manager (the
 * stand-in, which checks the SDK's signatures). Every command that handles a private key either
 * puts it in Secrets Manager under STORE_SECRETS_PREFIX or, without the prefix, refuses and writes
 * nothing; then a scan of the whole table proves no private key of these commands is in it.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import { type CloudFormationStandIn, startCloudFormationStandIn } from '../support/cloudformation-standin.js';
import { PREMIUM_MONTHLY } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { runTs } from '../support/processes.js';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../support/secrets-manager-standin.js';

const PREFIX = 'subscription-backend/OperatorTest/';
/** Marks the private keys of this file, so the scan finds them wherever they went. */
const RUN = Date.now().toString(36);
const MARKER = `keymaterial${RUN}`;
/** The names of this file's apps start with it: their items are checked for any private key. */
const MARKER_APP = `aws-secrets-${RUN}`;
const pem = (name: string) => `-----BEGIN PRIVATE KEY-----\n${MARKER}${name}\n-----END PRIVATE KEY-----\n`;

let standIn: SecretsManagerStandIn;
let cloudFormation: CloudFormationStandIn;
/** A stack the CloudFormation stand-in knows, with the prefix as its StoreSecretsPrefix output. */
const DEPLOYED_STACK = 'OperatorTest';
let files: { p8: string; serviceAccount: string; products: string };

/**
 * The CLI with --aws against the deployed table; `prefix` is STORE_SECRETS_PREFIX, if any, and the
 * stack it reads outputs from is one CloudFormation does not know, unless `stack` names another.
 */
async function adminAws(prefix: string | undefined, ...args: string[]) {
  return adminAwsOf('NoSuchStack', prefix, ...args);
}
/** The environment of the CLI with --aws against the deployed table and the stand-ins. */
const awsEnv = (prefix: string | undefined, stack = 'NoSuchStack') => ({
  DYNAMODB_ENDPOINT: undefined,
  AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn.url,
  AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
  STACK_NAME: stack,
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  TABLE_NAME: tableName,
  STORE_SECRETS_PREFIX: prefix,
});
async function adminAwsOf(stack: string, prefix: string | undefined, ...args: string[]) {
  const result = await runTs('cli/cli.ts', ['--aws', ...args, '--json'], awsEnv(prefix, stack));
  return { code: result.code, json: JSON.parse(result.stdout) as Record<string, any>, stderr: result.stderr };
}

/** Every item of the whole table whose text holds one of this file's private keys. */
async function itemsHoldingPrivateKeys(): Promise<unknown[]> {
  const found: unknown[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
    for (const item of page.Items ?? []) {
      const text = JSON.stringify(item);
      if (text.includes(MARKER) || (text.includes(MARKER_APP) && text.includes('BEGIN PRIVATE KEY'))) found.push(item);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}

const expectRefused = (result: Awaited<ReturnType<typeof adminAws>>) => {
  expect(result.code).toBe(1);
  expect(result.json.error.code).toBe('NO_SECRETS_PREFIX');
  expect(result.json.error.message).toContain('STORE_SECRETS_PREFIX');
  expect(result.json.error.message).toContain("OutputKey=='StoreSecretsPrefix'");
  // Why the stack's outputs gave none, in CloudFormation's words.
  expect(result.json.error.message).toContain('reading stack NoSuchStack (STACK_NAME)');
  expect(result.json.error.message).toContain('Stack with id NoSuchStack does not exist');
};

describe('admin --aws keeps private keys in Secrets Manager or nowhere, never in the table', () => {
  beforeAll(async () => {
    standIn = await startSecretsManagerStandIn({ accessKeyId: 'local', secretAccessKey: 'local' }, 'us-east-1');
    cloudFormation = await startCloudFormationStandIn({ accessKeyId: 'local', secretAccessKey: 'local' }, 'us-east-1');
    cloudFormation.stacks.set(DEPLOYED_STACK, { TableName: 'subscriptions', StoreSecretsPrefix: PREFIX });
    const dir = await mkdtemp(join(tmpdir(), 'operator-secrets-'));
    files = {
      p8: join(dir, 'AuthKey.p8'),
      serviceAccount: join(dir, 'service-account.json'),
      products: join(dir, 'products.json'),
    };
    await writeFile(files.products, JSON.stringify([PREMIUM_MONTHLY]));
    await writeFile(files.p8, pem('apple'));
    await writeFile(
      files.serviceAccount,
      JSON.stringify({ client_email: 'play@project.iam.gserviceaccount.com', private_key: pem('google') }),
    );
  });
  afterAll(async () => {
    await standIn?.close();
    await cloudFormation?.close();
  });

  const appleArgs = (appId: string) => [
    ...['stores', 'apple', 'set', '--app', appId, '--bundle-id', 'com.example', '--environment', 'Sandbox'],
    ...['--issuer-id', 'issuer', '--key-id', 'KEY123', '--key-file', files.p8],
  ];
  const googleArgs = (appId: string) => [
    ...['stores', 'google', 'set', '--app', appId, '--package-name', 'com.example.app'],
    ...['--service-account-file', files.serviceAccount],
  ];

  // Each command is a process (about 2-3 s here).
  it('without STORE_SECRETS_PREFIX: every command with a private key refuses, naming the stack output; the rest work', {
    timeout: 90_000,
  }, async () => {
    // A test-store app's signing key: refused before the app exists.
    const refusedCreate = await adminAws(undefined, 'apps', 'create', '--name', `${MARKER_APP}-a`, '--test-store');
    expectRefused(refusedCreate);

    // An app without a test store holds no private key: created as usual.
    const created = await adminAws(undefined, 'apps', 'create', '--name', `${MARKER_APP}-b`);
    expect(created.code).toBe(0);
    const appId = created.json.app_id as string;

    expectRefused(await adminAws(undefined, ...appleArgs(appId)));
    expectRefused(await adminAws(undefined, ...googleArgs(appId)));
    expectRefused(await adminAws(undefined, 'apps', 'update', '--app', appId, '--test-store', 'on'));

    // App Store identifiers without the API key are no secret: stored.
    const identifiersOnly = await adminAws(
      undefined,
      ...['stores', 'apple', 'set', '--app', appId, '--bundle-id', 'com.example', '--environment', 'Sandbox'],
    );
    expect(identifiersOnly.code).toBe(0);
    expect(identifiersOnly.json.server_api).toBe(false);
    expect(standIn.writes).toEqual([]);
  });

  it('with STORE_SECRETS_PREFIX: each private key goes to its secret under the prefix, and receipts mint reads it back', {
    timeout: 90_000,
  }, async () => {
    const created = await adminAws(PREFIX, 'apps', 'create', '--name', `${MARKER_APP}-c`, '--test-store');
    expect(created.code).toBe(0);
    const appId = created.json.app_id as string;
    expect(standIn.secrets.get(`${PREFIX}${appId}/test_store`)).toContain('PRIVATE KEY');

    const apple = await adminAws(PREFIX, ...appleArgs(appId));
    expect(apple.code).toBe(0);
    expect(apple.json.stored_in).toContain(`Secrets Manager secret ${PREFIX}${appId}/app_store`);
    expect(standIn.secrets.get(`${PREFIX}${appId}/app_store`)).toContain(`${MARKER}apple`);

    const google = await adminAws(PREFIX, ...googleArgs(appId));
    expect(google.code).toBe(0);
    expect(standIn.secrets.get(`${PREFIX}${appId}/google_play`)).toContain(`${MARKER}google`);

    // stores show reads the key ids from the secrets and names them, never the keys.
    const shown = await runTs('cli/cli.ts', ['--aws', 'stores', 'show', '--app', appId, '--json'], awsEnv(PREFIX));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain(MARKER);
    expect(shown.stdout).not.toContain('PRIVATE KEY');
    expect(JSON.parse(shown.stdout)).toMatchObject({
      app_store: {
        server_api: { issuer_id: 'issuer', key_id: 'KEY123' },
        stored_in: `table ${tableName}, credentials in Secrets Manager secret ${PREFIX}${appId}/app_store`,
      },
      google_play: {
        client_email: 'play@project.iam.gserviceaccount.com',
        stored_in: `table ${tableName}, credentials in Secrets Manager secret ${PREFIX}${appId}/google_play`,
      },
      test_store: { enabled: true, stored_in: `Secrets Manager secret ${PREFIX}${appId}/test_store` },
    });

    // An app that turns the test store on later: its key goes to a secret too.
    const later = await adminAws(PREFIX, 'apps', 'create', '--name', `${MARKER_APP}-d`);
    const laterId = later.json.app_id as string;
    const turnedOn = await adminAws(PREFIX, 'apps', 'update', '--app', laterId, '--test-store', 'on');
    expect(turnedOn.code).toBe(0);
    expect(standIn.secrets.get(`${PREFIX}${laterId}/test_store`)).toContain('PRIVATE KEY');

    expect((await adminAws(PREFIX, 'products', 'put', '--app', appId, '--file', files.products)).code).toBe(0);
    const minted = await adminAws(
      PREFIX,
      ...['receipts', 'mint', '--app', appId, '--platform', 'ios', '--product', PREMIUM_MONTHLY.id],
    );
    expect(minted.code).toBe(0);
    expect(minted.json.receipt_data).toEqual(expect.any(String));
  });

  it("without STORE_SECRETS_PREFIX: the prefix comes from the deployed stack's StoreSecretsPrefix output", {
    timeout: 60_000,
  }, async () => {
    const created = await adminAwsOf(
      DEPLOYED_STACK,
      undefined,
      'apps',
      'create',
      '--name',
      `${MARKER_APP}-e`,
      '--test-store',
    );
    expect(created.code).toBe(0);
    const appId = created.json.app_id as string;
    expect(standIn.secrets.get(`${PREFIX}${appId}/test_store`)).toContain('PRIVATE KEY');
    const google = await adminAwsOf(DEPLOYED_STACK, undefined, ...googleArgs(appId));
    expect(google.code).toBe(0);
    expect(google.json.stored_in).toContain(`Secrets Manager secret ${PREFIX}${appId}/google_play`);
    expect(cloudFormation.requests).toContain(DEPLOYED_STACK);
  });

  it('an unreachable service is named with its endpoint, Secrets Manager or DynamoDB, never `npm start`', {
    timeout: 60_000,
  }, async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const create = ['--aws', 'apps', 'create', '--name', `${MARKER_APP}-u`, '--test-store', '--json'];
    const noSecrets = await runTs('cli/cli.ts', create, {
      ...awsEnv(PREFIX),
      AWS_ENDPOINT_URL_SECRETS_MANAGER: closed,
    });
    expect(noSecrets.code).toBe(1);
    const secretsError = JSON.parse(noSecrets.stdout).error;
    expect(secretsError.message).toMatch(new RegExp(`^cannot reach Secrets Manager at ${closed} \\(ECONNREFUSED\\)`));
    expect(secretsError.message).not.toMatch(/npm start|undefined/);

    const noTable = await runTs('cli/cli.ts', ['--aws', 'apps', 'list', '--json'], {
      ...awsEnv(PREFIX),
      AWS_ENDPOINT_URL_DYNAMODB: closed,
    });
    expect(noTable.code).toBe(1);
    const tableError = JSON.parse(noTable.stdout).error;
    expect(tableError.message).toMatch(new RegExp(`^cannot reach DynamoDB at ${closed} \\(ECONNREFUSED\\)`));
    expect(tableError.message).not.toMatch(/npm start|undefined/);
  });

  it('afterwards, no item of the whole table holds any of these private keys', async () => {
    expect(await itemsHoldingPrivateKeys()).toEqual([]);
  });
});
