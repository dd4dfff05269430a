/**
 * `admin --aws paywalls upload` as an operator runs it after a deploy, as a process: the zip goes
 * to the stack's bucket (the S3 stand-in, which checks the SigV4 signature and payload hash S3
 * checks) under `paywalls/`, the bucket named by PAYWALLS_BUCKET or else read from the stack's
 * PaywallsBucketName output (the CloudFormation stand-in); the version is recorded in the deployed
 * table (DynamoDB Local through AWS_ENDPOINT_URL_DYNAMODB). An upload S3 refuses records nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '../../lib/data/client.js';
import { readPaywalls } from '../../lib/data/paywalls.js';
import { PAYWALLS_BUCKET_OUTPUT } from '../../lib/schemas/paywall.js';
import { type CloudFormationStandIn, startCloudFormationStandIn } from '../support/cloudformation-standin.js';
import { createTestApp } from '../support/fixtures.js';
import { runTs } from '../support/processes.js';
import { type S3StandIn, startS3StandIn } from '../support/s3-standin.js';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const BUCKET = 'subscriptionbackend-paywallsfiles-1a2b3c';
let s3: S3StandIn;
let cloudFormation: CloudFormationStandIn;
let zip: { file: string; bytes: Uint8Array };

const uploadAws = async (env: Record<string, string | undefined>, ...args: string[]) => {
  const result = await runTs('cli/cli.ts', ['--aws', 'paywalls', 'upload', ...args, '--json'], {
    DYNAMODB_ENDPOINT: undefined,
    AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT,
    AWS_ENDPOINT_URL_S3: s3.url,
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    TABLE_NAME: tableName,
    STORE_SECRETS_PREFIX: 'subscription-backend/PaywallsTest/',
    PAYWALLS_BUCKET: undefined,
    STACK_NAME: 'PaywallsTest',
    ...env,
  });
  return { ...result, json: JSON.parse(result.stdout) as Record<string, any> };
};

describe('admin --aws paywalls upload', () => {
  beforeAll(async () => {
    s3 = await startS3StandIn(CREDENTIALS, 'us-east-1', [BUCKET]);
    cloudFormation = await startCloudFormationStandIn(CREDENTIALS, 'us-east-1');
    cloudFormation.stacks.set('PaywallsTest', { [PAYWALLS_BUCKET_OUTPUT]: BUCKET });
    const bytes = zipSync({ 'index.html': new TextEncoder().encode('<h1>Go premium</h1>') });
    const file = join(await mkdtemp(join(tmpdir(), 'bundle-')), 'bundle.zip');
    await writeFile(file, bytes);
    zip = { file, bytes };
  });
  afterAll(async () => {
    await s3?.close();
    await cloudFormation?.close();
  });

  it("puts the zip in the stack output's bucket under paywalls/, named by its hash, then records version 1", {
    timeout: 60_000,
  }, async () => {
    const app = await createTestApp();
    const result = await uploadAws({}, '--app', app.appId, '--id', 'main', '--file', zip.file);
    expect(result.code, result.stderr).toBe(0);
    const sha256 = createHash('sha256').update(zip.bytes).digest('hex');
    const key = `paywalls/${app.appId}/main/${sha256}.zip`;
    expect(result.json.stored_at).toBe(`s3://${BUCKET}/${key}`);
    const stored = s3.objects.get(`${BUCKET}/${key}`);
    expect(stored?.body.equals(Buffer.from(zip.bytes))).toBe(true);
    expect(stored).toMatchObject({
      contentType: 'application/zip',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    expect((await readPaywalls(app.appId)).paywalls).toEqual([
      expect.objectContaining({ id: 'main', version: 1, sha256 }),
    ]);
  });

  it('uses PAYWALLS_BUCKET when set, and records nothing when S3 refuses the upload', { timeout: 60_000 }, async () => {
    const app = await createTestApp();
    const unknown = await uploadAws(
      { PAYWALLS_BUCKET: 'no-such-bucket' },
      '--app',
      app.appId,
      '--id',
      'main',
      '--file',
      zip.file,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.message).toContain('S3 PutObject of s3://no-such-bucket/paywalls/');
    expect(unknown.json.error.message).toContain('404: The specified bucket does not exist');
    const forged = await uploadAws(
      { AWS_SECRET_ACCESS_KEY: 'not-the-key' },
      '--app',
      app.appId,
      '--id',
      'main',
      '--file',
      zip.file,
    );
    expect(forged.code).toBe(1);
    expect(forged.json.error.message).toContain('403: The request signature we calculated does not match');
    expect((await readPaywalls(app.appId)).paywalls).toEqual([]);
    const named = await uploadAws(
      { PAYWALLS_BUCKET: BUCKET, STACK_NAME: 'NoSuchStack' },
      '--app',
      app.appId,
      '--id',
      'main',
      '--file',
      zip.file,
    );
    expect(named.code, named.stderr).toBe(0);
    expect(named.json.paywall.version).toBe(1);
  });
});
