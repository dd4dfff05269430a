/**
 * Issue #36: after `200 erased`, the whole table read back (a Scan of the file's own table) holds
 * the user's id, and the app account token derived from it, nowhere. The user had everything: a
 * profile with attributes and custom properties, sessions, events, an order, a conversion, a typed
 * report, a grant, a verified purchase made for their account and renewed, a purchase transferred
 * to another user on restore, and webhooks delivered for all of it (gateway -> table -> stream ->
 * bus -> deliverer -> receiver). docs/api.md#deletion-erasure says what stays.
 */
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `erasure-scan-${process.pid}`;
  // The webhook receiver listens on loopback: opted in, as for local development.
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
});

import { setRestorePolicy } from '../../lib/data/apps.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { scanPages } from '../../lib/data/query.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable, emptyOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { mintReceipt } from '../support/receipts.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

const USER = 'leaving-user-5e1f';
const OTHER = 'staying-user-9c2d';

/** Every item's attributes as text, a stored receipt (deflated) as the text it holds. */
async function tableAsText(): Promise<{ key: string; text: string }[]> {
  const items: { key: string; text: string }[] = [];
  for await (const page of scanPages({ ConsistentRead: true }))
    for (const item of page.Items ?? []) {
      const text = JSON.stringify(item, (name, value) =>
        name === 'receipt' && value instanceof Uint8Array
          ? inflateRawSync(value).toString('utf8')
          : value instanceof Set
            ? [...value]
            : value,
      );
      items.push({ key: `${item.pk} | ${item.sk}`, text });
    }
  return items;
}

describe('an erased user is nowhere in the table (Scan after 200 erased)', () => {
  let runtime: LocalRuntime;
  let receiver: WebhookReceiver;
  let app: TestApp;
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await contractFetch(`${runtime.gateway.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const result = { status: response.status, body: (await response.json()) as any };
    expect(result.status, `${method} ${path}: ${JSON.stringify(result.body)}`).toBeLessThan(300);
    return result;
  };
  const sdk = (path: string, user: string, body: unknown, method = 'POST') =>
    call(method, path, mobileHeaders(app, user), body);
  const server = (method: string, path: string, body?: unknown) =>
    call(method, path, { authorization: `Bearer ${app.secretKey}` }, body);

  beforeAll(async () => {
    await createOwnTable();
    await emptyOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp([PREMIUM_MONTHLY]);
    await setRestorePolicy(app.appId, 'transfer');
    await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    const { secret } = await setWebhook(app.appId, receiver.url);
    receiver.setSecret(secret);
    runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 3600, functionTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await runtime?.stop();
    await receiver?.close();
  });

  it('finds neither the user id nor their app account token in any item', { timeout: 180_000 }, async () => {
    const token = appAccountTokenFor(app.appId, USER);
    await sdk('/users/attribute/update', USER, { email: 'leaving@example.com', language: 'de' }, 'PUT');
    await sdk('/users/custom_properties/set', USER, { properties: { tier: 'gold' } });
    await sdk('/sessions/report', USER, { sessionId: 's-1', startTime: Date.now() - 60_000, duration: 60 });
    await sdk('/users/report/events', USER, {
      events: ['paywall', 'export'].map((screen) => ({ eventName: 'screen_view', properties: { screen } })),
    });
    await sdk('/order/report', USER, {
      orderId: 'GPA.1-2',
      productId: 'premium_monthly',
      price: 9.99,
      currency: 'USD',
    });
    await sdk('/conversion/report', USER, { conversionType: 'trial_started', value: 1 });
    await sdk('/report/device_info', USER, { model: 'iPhone16,1' });
    await server('POST', `${CUSTOMERS_BASE}/${USER}/entitlements/pro/grant`, { duration: 'P1M' });
    // A purchase made for the user's account, then renewed: two transactions bound to it.
    const bought = await mintReceipt(app, { product: PREMIUM_MONTHLY, appAccountToken: token });
    await sdk('/receipt/verify/first', USER, { receipt: bought.receipt_data, productId: 'premium_monthly' });
    const renewal = await mintReceipt(app, {
      product: PREMIUM_MONTHLY,
      renews: bought.transaction_id,
      appAccountToken: token,
    });
    await server('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      platform: 'ios',
      receipt_data: renewal.receipt_data,
      user_id: USER,
    });
    // A purchase of the user's that another user restores (transfer policy): a transfer from the user.
    const shared = await mintReceipt(app, { product: PREMIUM_MONTHLY });
    await sdk('/receipt/verify/first', USER, { receipt: shared.receipt_data, productId: 'premium_monthly' });
    await sdk('/receipt/verify/recover', OTHER, { receipt: shared.receipt_data });
    await waitForIdlePipeline({ appId: app.appId });
    const delivered = receiver.accepted().filter((webhook) => JSON.stringify(webhook.payload).includes(USER));
    expect(delivered.map((webhook) => webhook.payload.event)).toEqual(
      expect.arrayContaining(['entitlement.granted', 'subscription.status_changed', 'subscription.transferred']),
    );
    const before = (await tableAsText()).filter(({ text }) => text.includes(USER) || text.includes(token));
    expect(before.length).toBeGreaterThan(20);

    const erased = await server('DELETE', `${CUSTOMERS_BASE}/${USER}`);
    expect(erased.status).toBe(200);
    expect(erased.body.data.status).toBe('erased');
    // What the stream makes of the detach (each subscription's history entry) is written too.
    const detachedHistory = async () =>
      (await tableAsText()).filter(({ key, text }) => key.startsWith('HISTORY#') && text.includes('"action":"erase"'));
    await waitUntil(async () => (await detachedHistory()).length === 2, 30_000, 'the history of both detaches');

    const left = (await tableAsText()).filter(({ text }) => text.includes(USER) || text.includes(token));
    expect(left.map(({ key }) => key)).toEqual([]);
    // The other user's side of the transfer is theirs still.
    const kept = await tableAsText();
    expect(kept.some(({ text }) => text.includes(OTHER))).toBe(true);
  });
});
