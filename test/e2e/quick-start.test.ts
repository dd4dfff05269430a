/**
 * The README's quick start, as a new user runs it: `npm start` (through npm, its own DynamoDB
 * Local), then the first-purchase block of the README executed by bash as it stands there (the
 * operator CLI through `npm run`, the example webhook receiver, curl to the running API). Only
 * the ports are changed, to free ones, so the test cannot collide with a running `npm start`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { REPO_ROOT } from '../support/processes.js';
import { waitUntil } from '../support/webhook-receiver.js';

/** The fenced `sh` blocks of the README's Quick start section. */
async function quickStartBlocks(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  // Up to the next heading: the section's own blocks only (the Deploy block after it must not run).
  const end = readme.slice(start + 1).search(/\n#{2,3} /) + start + 1;
  const section = readme.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** A process group of its own, so that stopping it stops what it started (the receiver, DynamoDB Local). */
function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const stopGroup = (child: ChildProcess | undefined, signal: NodeJS.Signals) => {
  try {
    if (child?.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};

/** New or changed files at the top of the clone (where the quick start once wrote products.json); other tests may write deeper. */
const untracked = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line && !line.slice(3).includes('/'));

describe('the README quick start, run as written', () => {
  let service: ReturnType<typeof start> | undefined;
  let block: ReturnType<typeof start> | undefined;
  afterAll(async () => {
    stopGroup(block?.child, 'SIGTERM');
    stopGroup(service?.child, 'SIGINT');
    await service?.exited;
  });

  it('npm start, then the first purchase: test-store app, product, receiver, mint, verify, signed webhook', async () => {
    const blocks = await quickStartBlocks();
    expect(blocks).toHaveLength(2);
    const [startBlock, purchaseBlock] = blocks;
    // The README's set-up is exactly this; npm start delivers to the receiver on 127.0.0.1 by itself.
    expect(startBlock).toContain('npm install && npm start ');
    // The commands a first purchase needs are all in the block that is run below.
    for (const command of [
      'apps create --name demo --test-store',
      'products put --app "$APP_ID" --file docs/examples/products.json',
      'webhooks set --app "$APP_ID" --url http://127.0.0.1:4000/ --allow-private-url',
      'node docs/examples/webhook-receiver.mjs &',
      'receipts mint --app "$APP_ID" --platform ios --product premium_monthly',
      "curl -s -w '\\n' http://127.0.0.1:3000/v1/subscriptions/verify",
    ]) {
      expect(purchaseBlock).toContain(command);
    }
    const before = untracked();

    const [port, dynamodbPort, receiverPort] = [await freePort(), await freePort(), await freePort()];
    // A user's environment: none of the test run's table settings.
    const env: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_PORT: String(dynamodbPort) };
    for (const name of [
      'DYNAMODB_ENDPOINT',
      'TABLE_NAME',
      'POWERTOOLS_LOG_LEVEL',
      'WEBHOOK_RETRY_SCHEDULE_SECONDS',
      'WEBHOOK_TIMEOUT_MS',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    ])
      delete env[name];
    const dataDir = await mkdtemp(join(tmpdir(), 'quick-start-'));
    service = start('npm', ['start'], {
      ...env,
      PORT: String(port),
      DATA_DIR: dataDir,
    });
    await waitUntil(
      () => service!.output().includes('Mobile API'),
      60_000,
      `npm start to print its URLs:\n${service.output()}`,
    );

    const script = purchaseBlock!
      .replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)
      .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`);
    block = start('bash', ['-e', '-c', script], { ...env, WEBHOOK_RECEIVER_PORT: String(receiverPort) });
    const code = await block.exited;
    expect(code, block.output()).toBe(0);

    const output = block.output();
    const verified = JSON.parse(output.split('\n').find((line) => line.includes('"verification_status"'))!);
    expect(verified.data).toMatchObject({
      verification_status: 'valid',
      product_id: 'premium_monthly',
      subscription_id: expect.stringMatching(/^sub_/),
    });
    const listed = JSON.parse(
      output.split('\n').find((line) => line.startsWith('{"data":[') || line.startsWith('{"data": ['))!,
    );
    expect(listed.data.map((s: { id: string }) => s.id)).toContain(verified.data.subscription_id);
    // As the README says: the total may not have counted the purchase yet, but a page never claims fewer items than it shows.
    expect(listed.pagination.total).toBe(1);

    // The receiver (still running in the background) prints the activation's webhook once its signature verified.
    await waitUntil(
      () => block!.output().includes('subscription.status_changed'),
      20_000,
      `the webhook:\n${block.output()}`,
    );
    const line = block
      .output()
      .split('\n')
      .find((l) => l.includes('subscription.status_changed'))!;
    expect(line).toMatch(/^webhook evt_\S+ \(signature verified\): subscription\.status_changed /);
    expect(JSON.parse(line.slice(line.indexOf('{')))).toMatchObject({
      subscription_id: verified.data.subscription_id,
      user_id: 'user_1',
      old_status: 'pending_verification',
      new_status: 'active',
    });

    // It refuses what is not signed with the app's secret.
    const body = JSON.stringify({
      event: 'subscription.status_changed',
      timestamp: new Date().toISOString(),
      data: {},
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const forged = `v1,${createHmac('sha256', Buffer.alloc(32)).update(`evt_x.${timestamp}.${body}`).digest('base64')}`;
    const refused = await fetch(`http://127.0.0.1:${receiverPort}/`, {
      method: 'POST',
      headers: { 'webhook-id': 'evt_x', 'webhook-timestamp': timestamp, 'webhook-signature': forged },
      body,
    });
    expect(refused.status).toBe(400);
    await waitUntil(
      () => block!.output().includes('refused a webhook: signature does not verify'),
      5_000,
      'the refusal',
    );

    // Nothing was written into the clone (the example files are shipped, the data is in DATA_DIR).
    expect(untracked()).toEqual(before);
  }, 180_000);
});
