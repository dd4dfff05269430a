/**
 * Legacy (StoreKit 1) app receipts through HTTP: the local gateway, the App Store Server API
 * stand-in, and receipts signed by the stand-in's receipt chain. The gateway runs the handlers in
 * this process, so this file makes the process trust the stand-in's roots in place of Apple's
 * (both embedded root modules are mocked), as a deployment trusts Apple's.
 *
 * The attacks: a PKCS#7 shell carrying only someone else's transaction id, unsigned (anyone who
 * learns a transaction id can make one), must claim nothing: not a purchase nobody has verified yet
 * (front-running its buyer), nor one already verified (a takeover through restore with the
 * `transfer` policy), through either API.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signedAppReceipt, unsignedAppReceipt } from '../support/app-receipts.js';
import { type AppStoreStandIn, appStoreTransaction, startAppStoreStandIn } from '../support/app-store-standin.js';
import type { TestApp } from '../support/fixtures.js';
import { mobileHeaders } from '../support/mobile.js';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));
vi.mock('../../lib/stores/apple-inc-root.js', async () => {
  const { readFileSync } = await import('node:fs');
  return {
    APPLE_INC_ROOT_PEM: readFileSync(
      new URL('../fixtures/app-store-standin/receipt-chain/root.pem', import.meta.url),
      'utf8',
    ),
  };
});

const BUNDLE = 'com.example.subs';

// test/support/contract.ts imports the gateway, hence lib/core/config.ts: imported once the store URLs are set.
let contractFetch: typeof import('../support/contract.js').contractFetch;

describe('legacy app receipts over HTTP (App Store Server API stand-in, receipts of the stand-in chain)', () => {
  let standIn: AppStoreStandIn;
  let gateway: { url: string; close(): Promise<void> };
  let SUBSCRIPTIONS_BASE: string;
  let setRestorePolicy: typeof import('../../lib/data/apps.js').setRestorePolicy;
  beforeAll(async () => {
    standIn = await startAppStoreStandIn(BUNDLE);
    // Store URLs are configuration read once at start-up: lib/ is imported after it points at the stand-in.
    process.env.APP_STORE_SERVER_API_BASE_URL = standIn.url;
    ({ SUBSCRIPTIONS_BASE } = await import('../../lib/routes.js'));
    ({ setRestorePolicy } = await import('../../lib/data/apps.js'));
    ({ contractFetch } = await import('../support/contract.js'));
    gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
    await standIn?.close();
  });

  async function appleApp(): Promise<TestApp> {
    const app = await (await import('../support/fixtures.js')).createTestApp();
    await (await import('../../lib/data/store-settings.js')).putStoreSettings(app.appId, 'app_store', {
      bundle_id: BUNDLE,
      environment: 'Sandbox',
      server_api: standIn.credentials,
    });
    return app;
  }
  /** A purchase the App Store knows, and the genuine receipt its buyer's device holds. */
  function purchase() {
    const transaction = appStoreTransaction(BUNDLE);
    const id = String(transaction.transactionId);
    standIn.transactions.set(id, transaction);
    return {
      id,
      receipt: signedAppReceipt({ bundleId: BUNDLE, purchases: [{ transactionId: id, productId: 'premium_monthly' }] }),
    };
  }
  const request = async (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; bearer?: string; body?: unknown },
  ) => {
    const response = await contractFetch(`${gateway.url}${path}`, {
      method,
      headers: {
        ...options.headers,
        ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const first = (app: TestApp, user: string, receipt: string) =>
    request('POST', '/receipt/verify/first', {
      headers: mobileHeaders(app, user),
      body: { receipt, productId: 'premium_monthly' },
    });
  const recover = (app: TestApp, user: string, receipt: string) =>
    request('POST', '/receipt/verify/recover', { headers: mobileHeaders(app, user), body: { receipt } });
  const detail = (app: TestApp, id: string) => request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey });

  it('a genuine receipt verifies through both APIs and binds the purchase to its buyer', async () => {
    const app = await appleApp();
    const bought = purchase();
    const res = await first(app, 'buyer', bought.receipt);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      verification_status: 'valid',
      product_id: 'premium_monthly',
      original_transaction_id: bought.id,
    });
    expect((await detail(app, res.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'buyer',
      status: 'active',
      platform: 'ios',
    });
    const again = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: bought.receipt, user_id: 'buyer' },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.subscription_id).toBe(res.body.data.subscription_id);
  });

  it("front-running: an unsigned shell naming the victim's transaction claims nothing, and the buyer's genuine receipt then verifies", async () => {
    const app = await appleApp();
    const victim = purchase();
    const attack = await first(app, 'attacker', unsignedAppReceipt(BUNDLE, victim.id));
    expect(attack.status).toBe(400);
    expect(attack.body).toMatchObject({ status: 'error', code: 'INVALID_RECEIPT' });
    const genuine = await first(app, 'buyer', victim.receipt);
    expect(genuine.status).toBe(200);
    expect((await detail(app, genuine.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'buyer',
      status: 'active',
    });
  });

  it('front-running through the management API (POST /v1/subscriptions/verify) is refused the same way', async () => {
    const app = await appleApp();
    const victim = purchase();
    const verify = (user: string, receipt: string) =>
      request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
        bearer: app.secretKey,
        body: { platform: 'ios', receipt_data: receipt, user_id: user, transaction_id: victim.id },
      });
    const attack = await verify('attacker', unsignedAppReceipt(BUNDLE, victim.id));
    expect(attack.status).toBe(400);
    expect(attack.body.error.code).toBe('INVALID_RECEIPT');
    const genuine = await verify('buyer', victim.receipt);
    expect(genuine.status).toBe(200);
    expect((await detail(app, genuine.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'buyer',
      status: 'active',
    });
  });

  it("takeover: under the transfer policy, a restore with an unsigned shell naming the victim's original transaction moves nothing", async () => {
    const app = await appleApp();
    await setRestorePolicy(app.appId, 'transfer');
    const victim = purchase();
    const bought = await first(app, 'victim', victim.receipt);
    expect(bought.status).toBe(200);
    const attack = await recover(app, 'attacker', unsignedAppReceipt(BUNDLE, victim.id));
    expect(attack.status).toBe(400);
    expect(attack.body).toMatchObject({ status: 'error', code: 'INVALID_RECEIPT' });
    expect((await detail(app, bought.body.data.subscription_id)).body.data).toMatchObject({
      user_id: 'victim',
      status: 'active',
    });
    // The genuine receipt still restores, for its owner.
    expect((await recover(app, 'victim', victim.receipt)).body.data.subscription_id).toBe(
      bought.body.data.subscription_id,
    );
  });

  it('a genuine receipt of another app is refused', async () => {
    const app = await appleApp();
    const { id } = purchase();
    const other = signedAppReceipt({ bundleId: 'com.example.other', purchases: [{ transactionId: id }] });
    const res = await first(app, 'someone', other);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_RECEIPT', message: expect.stringContaining('another app') });
  });
});
