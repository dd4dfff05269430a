/**
 * What an sdk key holder can make us spend at Google (docs/security.md#outbound-store-calls), over
 * HTTP against the Google Play stand-in, counting the subscriptionsv2.get requests it serves: made-up
 * tokens are bounded by the app's budget (STORE_CALL_BURST, STORE_CALLS_PER_MINUTE), a token Google
 * does not know is asked once, Google's 429 holds budgeted calls back for its Retry-After, and
 * purchases the table knows verify whatever the spam did.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalGateway } from '../../local/gateway.js';
import { signedAppReceipt } from '../support/app-receipts.js';
import { type AppStoreStandIn, appStoreTransaction, startAppStoreStandIn } from '../support/app-store-standin.js';
import type { TestApp } from '../support/fixtures.js';
import {
  PUSH_SERVICE_ACCOUNT,
  pushBody,
  type StandIn,
  startGooglePlayStandIn,
  subscriptionPurchase,
} from '../support/google-play-standin.js';
import { mobileHeaders } from '../support/mobile.js';

// Legacy receipts of the stand-in's receipt chain: this process trusts its roots in place of Apple's.
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

const PACKAGE = 'com.example.budget';
const BUNDLE = 'com.example.budget.ios';
const BURST = 5;

let contractFetch: typeof import('../support/contract.js').contractFetch;

let standIn: StandIn;
let apple: AppStoreStandIn;
let gateway: LocalGateway;
beforeAll(async () => {
  standIn = await startGooglePlayStandIn(PACKAGE);
  apple = await startAppStoreStandIn(BUNDLE);
  // Configuration read once at start-up: lib/ is imported after it is set, as a deployment sets it.
  process.env.GOOGLE_OAUTH_TOKEN_URL = standIn.tokenUrl;
  process.env.GOOGLE_PLAY_API_BASE_URL = standIn.url;
  process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
  process.env.APP_STORE_SERVER_API_BASE_URL = apple.url;
  process.env.STORE_CALL_BURST = String(BURST);
  process.env.STORE_CALLS_PER_MINUTE = '1';
  ({ contractFetch } = await import('../support/contract.js'));
  gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await standIn?.close();
  await apple?.close();
});

const first = async (app: TestApp, user: string, receipt: string, platform: 'Android' | 'iOS' = 'Android') => {
  const response = await contractFetch(`${gateway.url}/receipt/verify/first`, {
    method: 'POST',
    headers: { ...mobileHeaders(app, user, { 'x-platform': platform }), 'content-type': 'application/json' },
    body: JSON.stringify({ receipt, productId: 'premium_monthly' }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  };
};

describe('the store call budget of an app at Google Play (STORE_CALL_BURST=5, STORE_CALLS_PER_MINUTE=1)', () => {
  async function googleApp(): Promise<TestApp> {
    const app = await (await import('../support/fixtures.js')).createTestApp();
    await (await import('../../lib/data/store-settings.js')).putStoreSettings(app.appId, 'google_play', {
      package_name: PACKAGE,
      service_account: standIn.serviceAccount,
      push_audience: `https://push.example/${app.appId}`,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    });
    return app;
  }
  const madeUp = () => `forged-${randomBytes(12).toString('hex')}`;
  const realPurchase = () => {
    const token = `real-${randomBytes(12).toString('hex')}`;
    standIn.purchases.set(token, subscriptionPurchase('premium_monthly', 30 * 86_400_000));
    return token;
  };

  it('100 made-up tokens cost at most the burst of Google calls; the rest are refused retryable, with Retry-After', async () => {
    const app = await googleApp();
    const before = standIn.purchaseReads;
    const answers = [];
    for (let i = 0; i < 100; i++) answers.push(await first(app, `spammer-${i}`, madeUp()));
    // One refill a minute: a slow machine may see one more.
    expect(standIn.purchaseReads - before).toBeGreaterThanOrEqual(BURST);
    expect(standIn.purchaseReads - before).toBeLessThanOrEqual(BURST + 1);
    expect(answers.filter((a) => a.body.code === 'INVALID_RECEIPT').length).toBe(standIn.purchaseReads - before);
    const refused = answers.filter((a) => a.body.code === 'VERIFICATION_FAILED');
    expect(refused.length).toBe(100 - (standIn.purchaseReads - before));
    expect(refused[0]).toMatchObject({ status: 400, body: { status: 'error', retryable: true } });
    expect(Number(refused[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.body.message).toContain("this app's store call budget is spent");
  });

  it('the same unknown token 20 times costs one Google call', async () => {
    const app = await googleApp();
    const token = madeUp();
    const before = standIn.purchaseReads;
    for (let i = 0; i < 20; i++) {
      const answer = await first(app, `repeater-${i}`, token);
      expect(answer.body.code).toBe('INVALID_RECEIPT');
    }
    expect(standIn.purchaseReads - before).toBe(1);
  });

  it('purchases the table knows verify while the budget is spent', async () => {
    const app = await googleApp();
    const token = realPurchase();
    expect((await first(app, 'buyer', token)).status).toBe(200);
    for (let i = 0; i < BURST + 2; i++) await first(app, `spammer-${i}`, madeUp());
    expect((await first(app, 'spammer-x', madeUp())).body.code).toBe('VERIFICATION_FAILED');
    const before = standIn.purchaseReads;
    const again = await first(app, 'buyer', token);
    expect(again.status).toBe(200);
    expect(standIn.purchaseReads - before).toBe(1);
  });

  it('store notifications are not budgeted: a push is read from Google while verify spam has spent the budget', async () => {
    const app = await googleApp();
    for (let i = 0; i <= BURST; i++) await first(app, `spammer-${i}`, madeUp());
    expect((await first(app, 'spammer-x', madeUp())).body.code).toBe('VERIFICATION_FAILED');
    const token = realPurchase();
    const before = standIn.purchaseReads;
    const notification = {
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token },
    };
    const response = await contractFetch(`${gateway.url}/notifications/google-play/${app.appId}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${standIn.pushToken({ audience: `https://push.example/${app.appId}` })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(pushBody(notification, `budget-${randomBytes(6).toString('hex')}`)),
    });
    expect(response.status).toBe(200);
    expect(standIn.purchaseReads - before).toBe(1);
  });

  it("Google's 429 holds budgeted calls back until its Retry-After has passed; known purchases are still asked", async () => {
    const app = await googleApp();
    const known = realPurchase();
    expect((await first(app, 'buyer', known)).status).toBe(200);
    standIn.answerNext(
      '/subscriptionsv2/',
      429,
      { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
      { 'retry-after': '2' },
    );
    const throttled = await first(app, 'someone', realPurchase());
    expect(throttled).toMatchObject({
      status: 400,
      retryAfter: '2',
      body: { code: 'VERIFICATION_FAILED', retryable: true },
    });
    const before = standIn.purchaseReads;
    const held = await first(app, 'someone', realPurchase());
    expect(held).toMatchObject({ body: { code: 'VERIFICATION_FAILED', retryable: true } });
    expect(held.body.message).toContain('asked us to slow down');
    expect(Number(held.retryAfter)).toBeLessThanOrEqual(2);
    expect(standIn.purchaseReads).toBe(before);
    expect((await first(app, 'buyer', known)).status).toBe(200);
    expect(standIn.purchaseReads).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await first(app, 'someone', realPurchase())).status).toBe(200);
    expect(standIn.purchaseReads).toBe(before + 2);
  });
});

describe('the store call budget of an app at the App Store, for legacy receipts (the same settings)', () => {
  async function appleApp(): Promise<TestApp> {
    const app = await (await import('../support/fixtures.js')).createTestApp();
    await (await import('../../lib/data/store-settings.js')).putStoreSettings(app.appId, 'app_store', {
      bundle_id: BUNDLE,
      environment: 'Sandbox',
      server_api: apple.credentials,
    });
    return app;
  }
  /** A genuine receipt (Apple-signed) naming a transaction the App Store may or may not know. */
  const receiptFor = (transactionId: string) =>
    signedAppReceipt({ bundleId: BUNDLE, purchases: [{ transactionId, productId: 'premium_monthly' }] });
  const known = () => {
    const transaction = appStoreTransaction(BUNDLE);
    apple.transactions.set(String(transaction.transactionId), transaction);
    return receiptFor(String(transaction.transactionId));
  };
  const unknown = () => receiptFor(String(Math.floor(Math.random() * 1e15)));

  it('the same receipt the App Store does not know, 20 times, asks it once', async () => {
    const app = await appleApp();
    const receipt = unknown();
    const before = apple.requests.length;
    for (let i = 0; i < 20; i++) expect((await first(app, `u${i}`, receipt, 'iOS')).body.code).toBe('INVALID_RECEIPT');
    expect(apple.requests.length - before).toBe(1);
  });

  it('receipts are bounded by the burst; a 429 holds them back for its Retry-After', async () => {
    const app = await appleApp();
    const before = apple.requests.length;
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await first(app, `u${i}`, unknown(), 'iOS'));
    expect(answers.filter((a) => a.body.code === 'INVALID_RECEIPT').length).toBeLessThanOrEqual(BURST + 1);
    expect(apple.requests.length - before).toBeLessThanOrEqual(BURST + 1);
    expect(answers.at(-1)).toMatchObject({ body: { code: 'VERIFICATION_FAILED', retryable: true } });

    const other = await appleApp();
    apple.answerNext('/inApps/v1/transactions/', 429, { errorCode: 4290000 }, { 'retry-after': '30' });
    expect(await first(other, 'buyer', known(), 'iOS')).toMatchObject({
      retryAfter: '30',
      body: { code: 'VERIFICATION_FAILED', retryable: true },
    });
    const asked = apple.requests.length;
    const held = await first(other, 'buyer', known(), 'iOS');
    expect(held.body.message).toContain('asked us to slow down');
    expect(apple.requests.length).toBe(asked);
  });
});
