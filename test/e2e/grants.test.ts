/**
 * Issue #16, grants: POST /v1/customers/{user_id}/entitlements/{entitlement_id}/grant and /revoke
 * over HTTP through the local runtime (gateway, stream poller, bus, sweeper), with the signed
 * webhooks a receiver gets and customer info read from both APIs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // Its own table: the pipeline's idleness is read from the whole stream.
  process.env.TABLE_NAME = `grants-e2e-${process.pid}`;
});

import { putEntitlements } from '../../lib/data/entitlements.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { mobileHeaders } from '../support/mobile.js';
import { createOwnTable } from '../support/own-table.js';
import { waitForIdlePipeline } from '../support/pipeline.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

const DAY = 86_400_000;

describe('grants of entitlements end to end (grant, extend, revoke, run out; webhooks; customer info)', () => {
  let runtime: LocalRuntime;
  let receiver: WebhookReceiver;
  let app: TestApp;

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const response = await contractFetch(`${runtime.gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${app.secretKey}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }
  const entitlementPath = (user: string, entitlement: string, operation: 'grant' | 'revoke') =>
    `${CUSTOMERS_BASE}/${encodeURIComponent(user)}/entitlements/${encodeURIComponent(entitlement)}/${operation}`;
  const grant = (user: string, body: unknown, entitlement = 'pro') =>
    call('POST', entitlementPath(user, entitlement, 'grant'), { body });
  const revoke = (user: string, entitlement = 'pro') => call('POST', entitlementPath(user, entitlement, 'revoke'));
  const customer = async (user: string) => {
    const res = await call('GET', `${CUSTOMERS_BASE}/${encodeURIComponent(user)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  /** The user's verified webhooks in the order of their changes (deliveries may overtake each other). */
  const webhooksOf = (user: string) =>
    receiver
      .accepted()
      .filter((webhook) => webhook.payload.data.user_id === user)
      .map((webhook) => webhook.payload)
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp));

  beforeAll(async () => {
    await createOwnTable();
    receiver = await startWebhookReceiver();
    app = await createTestApp([PREMIUM_MONTHLY]);
    await putEntitlements(app.appId, [
      { id: 'pro', name: 'Pro', products: ['premium_monthly'] },
      { id: 'sync', name: 'Sync', products: ['premium_monthly'] },
    ]);
    const { secret } = await setWebhook(app.appId, receiver.url);
    receiver.setSecret(secret);
    runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 1, functionTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await runtime?.stop();
    await receiver?.close();
  });

  it('a grant to a user never seen makes them a customer, active at once on both APIs, with a signed entitlement.granted', async () => {
    expect((await call('GET', `${CUSTOMERS_BASE}/newcomer`)).status).toBe(404);
    const before = Date.now();
    const res = await grant('newcomer', { duration: 'P1M' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const granted = res.body.data;
    expect(granted).toEqual({
      user_id: 'newcomer',
      entitlement_id: 'pro',
      active: true,
      granted_at: expect.any(String),
      expires_at: expect.any(String),
      ended_at: null,
      end_reason: null,
    });
    expect(Date.parse(granted.granted_at)).toBeGreaterThanOrEqual(before - 1000);
    const days = (Date.parse(granted.expires_at) - Date.parse(granted.granted_at)) / DAY;
    expect(days).toBeGreaterThanOrEqual(28);
    expect(days).toBeLessThanOrEqual(31);

    const data = await customer('newcomer');
    expect(data).toEqual({
      user_id: 'newcomer',
      entitlements: {
        pro: {
          active: true,
          product_id: null,
          expires_at: granted.expires_at,
          will_renew: false,
          period_type: 'grant',
          store: null,
          environment: null,
          billing_issue_detected_at: null,
          grace_period_expires_at: null,
        },
        sync: expect.objectContaining({ active: false, period_type: null }),
      },
      subscriptions: [],
      first_seen_at: granted.granted_at,
      last_seen_at: null,
    });
    const mobile = await call('GET', '/v2/users/customer_info', { headers: mobileHeaders(app, 'newcomer') });
    expect(mobile.body.data).toEqual(data);

    await waitUntil(() => webhooksOf('newcomer').length > 0, 15_000, 'the entitlement.granted webhook');
    expect(webhooksOf('newcomer')).toEqual([
      {
        event: 'entitlement.granted',
        timestamp: granted.granted_at,
        data: {
          user_id: 'newcomer',
          entitlement_id: 'pro',
          granted_at: granted.granted_at,
          expires_at: granted.expires_at,
          previous_expires_at: null,
        },
      },
    ]);
  });

  it('granting again while a grant runs extends it by the duration; expires_at sets its end', async () => {
    const first = (await grant('extended', { duration: 'P7D' })).body.data;
    const second = await grant('extended', { duration: 'P7D' });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ granted_at: first.granted_at, active: true });
    expect(Date.parse(second.body.data.expires_at) - Date.parse(first.expires_at)).toBe(7 * DAY);
    const end = new Date(Date.now() + 3 * DAY).toISOString();
    const third = await grant('extended', { expires_at: end });
    expect(third.body.data).toMatchObject({ granted_at: first.granted_at, expires_at: end });
    expect((await customer('extended')).entitlements.pro).toMatchObject({ active: true, expires_at: end });
    await waitForIdlePipeline({ appId: app.appId });
    expect(webhooksOf('extended').map((payload) => payload.data.previous_expires_at)).toEqual([
      null,
      first.expires_at,
      second.body.data.expires_at,
    ]);
  });

  it('a revoke ends the grant now (entitlement.revoked); a second revoke is a 200 that changes nothing', async () => {
    await grant('revoked-user', { duration: 'P1Y' }, 'sync');
    const res = await revoke('revoked-user', 'sync');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      revoked: true,
      grant: { active: false, end_reason: 'revoked', ended_at: expect.any(String) },
    });
    const { ended_at } = res.body.data.grant;
    expect(res.body.data.grant.expires_at).toBe(ended_at);
    expect((await customer('revoked-user')).entitlements.sync).toMatchObject({
      active: false,
      period_type: 'grant',
      expires_at: ended_at,
    });
    const again = await revoke('revoked-user', 'sync');
    expect(again).toEqual({ status: 200, body: { data: { revoked: false, grant: res.body.data.grant } } });
    // Never granted at all: the same 200, no grant.
    expect((await revoke('someone-else', 'sync')).body).toEqual({ data: { revoked: false, grant: null } });
    await waitForIdlePipeline({ appId: app.appId });
    expect(webhooksOf('revoked-user').map((payload) => payload.event)).toEqual([
      'entitlement.granted',
      'entitlement.revoked',
    ]);
    expect(webhooksOf('someone-else')).toEqual([]);
  });

  it('a grant runs out by itself: the sweeper ends it and entitlement.expired arrives once', async () => {
    const res = await grant('short-lived', { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { expires_at } = res.body.data;
    await waitUntil(
      () => webhooksOf('short-lived').some((payload) => payload.event === 'entitlement.expired'),
      20_000,
      'the entitlement.expired webhook',
    );
    await waitForIdlePipeline({ appId: app.appId });
    expect(webhooksOf('short-lived').map((payload) => payload.event)).toEqual([
      'entitlement.granted',
      'entitlement.expired',
    ]);
    expect(webhooksOf('short-lived')[1]!.data).toEqual({
      user_id: 'short-lived',
      entitlement_id: 'pro',
      granted_at: res.body.data.granted_at,
      expires_at,
    });
    expect((await customer('short-lived')).entitlements.pro).toMatchObject({
      active: false,
      period_type: 'grant',
      expires_at,
    });
    const revoked = await revoke('short-lived');
    expect(revoked.body.data).toMatchObject({ revoked: false, grant: { end_reason: 'expired', ended_at: expires_at } });
  });

  it('grants are no revenue: statistics and subscription counts stay at zero', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const revenue = await call('GET', `${SUBSCRIPTIONS_BASE}/revenue?start_date=${today}&end_date=${today}`);
    expect(revenue.body.data).toMatchObject({ total_revenue: 0, products: [] });
    const list = await call('GET', SUBSCRIPTIONS_BASE);
    expect(list.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it.each([
    ['an unknown entitlement', () => grant('u', { duration: 'P1M' }, 'gold'), 404, 'ENTITLEMENT_NOT_FOUND', null],
    ['an unknown entitlement (revoke)', () => revoke('u', 'gold'), 404, 'ENTITLEMENT_NOT_FOUND', null],
    ['a malformed duration', () => grant('u', { duration: '1 month' }), 400, 'INVALID_PARAMETER', 'body.duration'],
    ['a zero duration', () => grant('u', { duration: 'PT0S' }), 400, 'INVALID_PARAMETER', 'body.duration'],
    ['a number as duration', () => grant('u', { duration: 30 }), 400, 'INVALID_PARAMETER', 'body.duration'],
    [
      'expires_at in the past',
      () => grant('u', { expires_at: '2020-01-01T00:00:00Z' }),
      400,
      'INVALID_PARAMETER',
      'body.expires_at',
    ],
    [
      'both fields',
      () => grant('u', { duration: 'P1M', expires_at: '2099-01-01T00:00:00Z' }),
      400,
      'INVALID_PARAMETER',
      'body',
    ],
    ['neither field', () => grant('u', {}), 400, 'INVALID_PARAMETER', 'body'],
    [
      'a user id over 256 characters',
      () => grant('u'.repeat(257), { duration: 'P1M' }),
      400,
      'INVALID_PARAMETER',
      'params.user_id',
    ],
  ] as const)('%s is refused', async (_case, send, status, code, path) => {
    const res = await send();
    expect({ status: res.status, code: res.body.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
    if (path) expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });
});
