/**
 * The webhook SSRF guard at connect time and at set time, as a deployed stack runs it: without
 * WEBHOOK_ALLOW_PRIVATE_TARGETS. The receiver listens on loopback, so a delivery to it is refused.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Read once by lib/core/config.ts: this file is about the default, where the opt-in is off.
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
});

import type { LookupAddress } from 'node:dns';
import { request } from 'node:http';
import { webhookConfig } from '../../lib/core/config.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';
import { guardedLookup, type Resolve, webhookUrlRefusal } from '../../lib/services/webhook-targets.js';
import { createTestApp, statusChange } from '../support/fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** A resolver that answers these names only, counting its calls. */
function fakeDns(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve: Resolve = async (hostname) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe('webhook targets without the local-development opt-in', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('is off by default', () => {
    expect(webhookConfig.webhookAllowPrivateTargets).toBe(false);
  });

  it.each([
    ['a loopback address', (port: number) => `http://127.0.0.1:${port}/webhooks`],
    ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/webhooks`],
    ['an IPv4-mapped loopback address', (port: number) => `http://[::ffff:127.0.0.1]:${port}/webhooks`],
  ])('a delivery to %s is refused before it connects, recorded as refused_target', async (_what, url) => {
    const { appId } = await createTestApp([]);
    const port = Number(new URL(receiver.url).port);
    await setWebhook(appId, url(port)); // as stored before set time checked, or by a rebinding name
    const detail = statusChange(appId);
    const delivery = await deliverStatusChange(detail);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery.attempt_log[0]).toMatchObject({ status_code: null, error: 'refused_target' });
    expect(receiver.received.filter((r) => r.id === detail.event_id)).toEqual([]);
  });

  it('connects to the very address its one lookup checked: a name is resolved once per connection', async () => {
    const dns = fakeDns({ 'hooks.rebind.test': ['127.0.0.1'] });
    const port = Number(new URL(receiver.url).port);
    const post = (allowPrivate: boolean) =>
      new Promise<number | string>((resolve) => {
        const sent = request(
          {
            host: 'hooks.rebind.test',
            port,
            path: '/webhooks',
            method: 'POST',
            lookup: guardedLookup(allowPrivate, dns.resolve),
          },
          (response) => resolve(response.statusCode ?? 0),
        );
        sent.on('error', (error) => resolve((error as { code?: string }).code ?? error.message));
        sent.end('{}');
      });
    // Refused: the name points at loopback.
    expect(await post(false)).toBe('ERR_REFUSED_TARGET');
    // Opted in, the request reaches the receiver at the address the lookup gave (the system's DNS knows no such name).
    expect(await post(true)).toBe(204);
    expect(dns.calls).toEqual(['hooks.rebind.test', 'hooks.rebind.test']);
  });

  it('refuses a name with any private address among its addresses', async () => {
    const dns = fakeDns({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] });
    const refused = await new Promise<unknown>((resolve) =>
      guardedLookup(false, dns.resolve)('mixed.test', { all: true }, (error) => resolve(error)),
    );
    expect(refused).toMatchObject({
      code: 'ERR_REFUSED_TARGET',
      message: 'mixed.test resolves to 10.0.0.5, a private address',
    });
  });

  const dns = fakeDns({
    'metadata.test': ['169.254.169.254'],
    'intranet.test': ['192.168.10.4'],
    'hooks.example.test': ['93.184.216.34', '2606:2800:220:1::1'],
  });
  it.each([
    ['https://hooks.example.test/in', null],
    ['https://93.184.216.34/in', null],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is a unique-local address'],
    ['https://10.1.2.3/', '10.1.2.3 is a private address'],
    ['https://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
    ['https://0.0.0.0/', '0.0.0.0 is an unspecified address'],
    ['https://2130706433/', '127.0.0.1 is a loopback address'], // the URL parser's reading of a decimal host
    ['https://metadata.test/', 'metadata.test resolves to 169.254.169.254, a link-local address'],
    ['https://intranet.test/', 'intranet.test resolves to 192.168.10.4, a private address'],
    // Not resolvable now: accepted, the deliverer checks at every connection.
    ['https://not-yet.test/', null],
  ])('at set time %s: %s', async (url, refusal) => {
    expect(await webhookUrlRefusal(new URL(url), false, dns.resolve)).toBe(refusal);
    expect(await webhookUrlRefusal(new URL(url), true, dns.resolve)).toBeNull();
  });
});
