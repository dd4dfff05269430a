/**
 * The reference receiver (docs/examples/webhook-receiver.mjs), run as a user runs it (node, its
 * environment variables), fed deliveries signed as the service signs them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../lib/core/ids.js';
import { signWebhook } from '../../lib/events/signing.js';
import { statusChange } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { REPO_ROOT } from '../support/processes.js';
import { waitUntil } from '../support/webhook-receiver.js';

describe('docs/examples/webhook-receiver.mjs', () => {
  const secret = newWebhookSecret();
  let receiver: ChildProcess;
  let output = '';
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    receiver = spawn(process.execPath, ['docs/examples/webhook-receiver.mjs'], {
      cwd: REPO_ROOT,
      env: { ...process.env, WEBHOOK_SECRET: secret, WEBHOOK_RECEIVER_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    receiver.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await waitUntil(() => output.includes('webhook receiver on'), 10_000, `the receiver to listen:\n${output}`);
  });
  afterAll(() => {
    receiver.kill();
  });

  const post = (request: { headers: Record<string, string>; body: string }) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.body,
    });
  const actedOn = (eventId: string) =>
    output.split('\n').filter((line) => line.startsWith(`webhook ${eventId} (signature verified)`));

  it('acts once on an event delivered twice (a retry, a redelivery days later): both answered 2xx', async () => {
    const { event_id, payload } = statusChange('app_example');
    const first = await post(signWebhook(secret, event_id, payload, new Date()));
    // A redelivery: same webhook-id, its own timestamp and signature.
    const again = await post(signWebhook(secret, event_id, payload, new Date(Date.now() + 2000)));
    expect([first.status, again.status]).toEqual([204, 204]);
    await waitUntil(() => output.includes(`webhook ${event_id} already handled`), 5_000, `the duplicate:\n${output}`);
    expect(actedOn(event_id)).toHaveLength(1);
  });

  it('a forged request cannot mark an id as handled: the genuine event is still acted on', async () => {
    const { event_id, payload } = statusChange('app_example');
    const forged = signWebhook(newWebhookSecret(), event_id, payload, new Date());
    expect((await post(forged)).status).toBe(400);
    expect((await post(signWebhook(secret, event_id, payload, new Date()))).status).toBe(204);
    await waitUntil(() => actedOn(event_id).length === 1, 5_000, `the event:\n${output}`);
  });
});
