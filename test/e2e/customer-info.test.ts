/**
 * Issue #16: entitlements and customer info, as an app developer drives them. The operator defines
 * entitlements with `admin entitlements put` (a process); purchases go through the test store;
 * store events are `admin notifications mint` bodies POSTed to the notification route; customer
 * info is read over HTTP through the local gateway from both APIs, with ETag / If-None-Match.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { type HttpResult, useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { admin, mintNotification } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';
import { waitUntil } from '../support/webhook-receiver.js';

const { request } = useGateway();

const ENTITLEMENTS = [
  { id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] },
  { id: 'sync', name: 'Sync', products: ['pro_yearly'] },
];

const NEVER = {
  active: false,
  product_id: null,
  expires_at: null,
  will_renew: false,
  period_type: null,
  store: null,
  environment: null,
  billing_issue_detected_at: null,
  grace_period_expires_at: null,
};

let app: TestApp;

const server = (user: string, headers: Record<string, string> = {}) =>
  request('GET', `${CUSTOMERS_BASE}/${encodeURIComponent(user)}`, { bearer: app.secretKey, headers });
const mobile = (user: string, headers: Record<string, string> = {}, version = '') =>
  request('GET', `${version}/users/customer_info`, { headers: { ...mobileHeaders(app, user), ...headers } });

/** Customer info from both APIs: the same `data`, which is returned. */
async function both(user: string): Promise<any> {
  const [fromServer, fromMobile] = await Promise.all([server(user), mobile(user)]);
  expect(fromServer.status, JSON.stringify(fromServer.body)).toBe(200);
  expect(fromMobile.status, JSON.stringify(fromMobile.body)).toBe(200);
  expect(fromMobile.body).toEqual({ status: 'success', message: 'Customer info', data: fromServer.body.data });
  return fromServer.body.data;
}

async function verify(user: string, receipt_data: string): Promise<string> {
  const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
    bearer: app.secretKey,
    body: { platform: 'ios', receipt_data, user_id: user },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.subscription_id as string;
}

/** `admin notifications mint` as a process, its body POSTed to its path as the store would. */
async function notify(transaction: string, type: string): Promise<void> {
  const { path, body } = await mintNotification(app.appId, transaction, type);
  const res = await request('POST', path, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.outcome).toBe('applied');
}

const future = (iso: string | null) => iso !== null && Date.parse(iso) > Date.now();

describe('customer info (GET /v1/customers/{user_id}, GET [/v2]/users/customer_info)', () => {
  beforeAll(async () => {
    app = await createTestApp([PREMIUM_MONTHLY, PRO_YEARLY]);
    const file = join(await mkdtemp(join(tmpdir(), 'entitlements-')), 'entitlements.json');
    await writeFile(file, JSON.stringify(ENTITLEMENTS));
    const put = await admin('entitlements', 'put', '--app', app.appId, '--file', file, '--json');
    expect(put.code, put.stdout + put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toEqual({ app_id: app.appId, entitlements: ['pro', 'sync'] });
  });

  it('a purchase through the test store unlocks the entitlements of its product, the same on both APIs', async () => {
    const { receipt_data } = await mintReceipt(app, { product: PREMIUM_MONTHLY });
    const id = await verify('buyer', receipt_data);
    const data = await both('buyer');
    expect(data).toMatchObject({
      user_id: 'buyer',
      entitlements: {
        pro: {
          active: true,
          product_id: 'premium_monthly',
          will_renew: true,
          period_type: 'normal',
          store: 'test_store',
          environment: 'test',
          billing_issue_detected_at: null,
          grace_period_expires_at: null,
        },
        sync: NEVER,
      },
      subscriptions: [{ id, user_id: 'buyer', product_id: 'premium_monthly', status: 'active' }],
    });
    expect(future(data.entitlements.pro.expires_at)).toBe(true);
    // Never reported through the mobile API: first seen when the subscription was made, never seen since.
    expect(data.first_seen_at).toBe(data.subscriptions[0].created_at);
    expect(data.last_seen_at).toBeNull();
    expect((await mobile('buyer', {}, '/v2')).body.data).toEqual(data);
  });

  it('one product unlocks several entitlements', async () => {
    await verify('yearly-buyer', (await mintReceipt(app, { product: PRO_YEARLY })).receipt_data);
    const { entitlements } = await both('yearly-buyer');
    expect(entitlements.pro).toMatchObject({ active: true, product_id: 'pro_yearly' });
    expect(entitlements.sync).toMatchObject({ active: true, product_id: 'pro_yearly' });
  });

  it('a trial is active, its period_type trial', async () => {
    await verify('trialist', (await mintReceipt(app, { product: PREMIUM_MONTHLY, trial: true })).receipt_data);
    const { entitlements, subscriptions } = await both('trialist');
    expect(entitlements.pro).toMatchObject({ active: true, period_type: 'trial', product_id: 'premium_monthly' });
    expect(subscriptions[0].trial_period).toBe(true);
  });

  it('at the end of its period an entitlement is inactive, before any sweeper runs', async () => {
    await verify('short-lived', (await mintReceipt(app, { product: PREMIUM_MONTHLY, expiresIn: 3 })).receipt_data);
    const before = await both('short-lived');
    expect(before.entitlements.pro.active).toBe(true);
    await waitUntil(() => Date.parse(before.entitlements.pro.expires_at) < Date.now(), 10_000, 'the period end');
    const after = await both('short-lived');
    expect(after.entitlements.pro).toEqual({ ...before.entitlements.pro, active: false, will_renew: false });
    expect(after.subscriptions).toEqual(before.subscriptions); // the stored status is the sweeper's to change
  });

  it('a refund ends the entitlement at once', async () => {
    const { receipt_data, transaction_id } = await mintReceipt(app, { product: PREMIUM_MONTHLY });
    await verify('refunded', receipt_data);
    expect((await both('refunded')).entitlements.pro.active).toBe(true);
    await notify(transaction_id, 'refunded');
    const { entitlements, subscriptions } = await both('refunded');
    expect(entitlements.pro).toMatchObject({ active: false, will_renew: false, product_id: 'premium_monthly' });
    expect(subscriptions[0].status).toBe('cancelled');
  });

  it("a billing issue keeps the entitlement through the store's grace period, and says so", async () => {
    const { receipt_data, transaction_id } = await mintReceipt(app, { product: PREMIUM_MONTHLY });
    await verify('late-payer', receipt_data);
    await notify(transaction_id, 'billing_issue');
    const { pro } = (await both('late-payer')).entitlements;
    expect(pro.active).toBe(true);
    expect(pro.billing_issue_detected_at).not.toBeNull();
    expect(future(pro.grace_period_expires_at)).toBe(true);
    await notify(transaction_id, 'grace_period_expired');
    expect((await both('late-payer')).entitlements.pro).toMatchObject({ active: false });
  });

  it('a user the mobile API has seen but who bought nothing has every entitlement, inactive', async () => {
    const seen = await request('POST', '/sessions/report', {
      headers: mobileHeaders(app, 'browser'),
      body: { sessionId: 's-1', startTime: Date.now() - 60_000, duration: 60 },
    });
    expect(seen.status).toBe(200);
    const data = await both('browser');
    expect(data).toEqual({
      user_id: 'browser',
      entitlements: { pro: NEVER, sync: NEVER },
      subscriptions: [],
      first_seen_at: expect.any(String),
      last_seen_at: expect.any(String),
    });
  });

  it('answers an ETag; If-None-Match with it is a 304 without a body, until the answer changes', async () => {
    await verify('cached', (await mintReceipt(app, { product: PREMIUM_MONTHLY })).receipt_data);
    for (const get of [
      (headers: Record<string, string> = {}) => server('cached', headers),
      (headers: Record<string, string> = {}) => mobile('cached', headers),
      (headers: Record<string, string> = {}) => mobile('cached', headers, '/v2'),
    ]) {
      const first: HttpResult = await get();
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get({ 'if-none-match': ifNoneMatch });
        expect({ status: again.status, body: again.body, etag: again.headers.get('etag') }).toEqual({
          status: 304,
          body: undefined,
          etag,
        });
      }
      const stale = await get({ 'if-none-match': '"not-this-one"' });
      expect(stale.status).toBe(200);
      expect(stale.body).toEqual(first.body);
    }
    // The user is seen by the mobile API: last_seen_at changes, so does the answer.
    const { etag } = { etag: (await server('cached')).headers.get('etag')! };
    await request('POST', '/sessions/report', {
      headers: mobileHeaders(app, 'cached'),
      body: { sessionId: 's-2', startTime: Date.now() - 60_000, duration: 60 },
    });
    const changed = await server('cached', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.data.last_seen_at).not.toBeNull();
  });

  it('a user never seen is a 404 on each API; a user id over 256 characters a 400', async () => {
    const unknownServer = await server('nobody');
    expect({ status: unknownServer.status, code: unknownServer.body.error.code }).toEqual({
      status: 404,
      code: 'CUSTOMER_NOT_FOUND',
    });
    for (const version of ['', '/v2']) {
      const unknownMobile = await mobile('nobody', {}, version);
      expect({ status: unknownMobile.status, code: unknownMobile.body.code }).toEqual({
        status: 404,
        code: 'USER_NOT_FOUND',
      });
    }
    const long = 'u'.repeat(257);
    const longServer = await server(long);
    expect({ status: longServer.status, code: longServer.body.error.code }).toEqual({
      status: 400,
      code: 'INVALID_PARAMETER',
    });
    expect(longServer.body.error.details).toEqual([
      { path: 'params.user_id', message: 'must be at most 256 characters' },
    ]);
    const longMobile = await mobile(long);
    expect({ status: longMobile.status, code: longMobile.body.code }).toEqual({
      status: 400,
      code: 'INVALID_PARAMETER',
    });
    // 256 is within the bound: a user never seen.
    expect((await server('u'.repeat(256))).status).toBe(404);
  });
});
