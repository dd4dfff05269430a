/**
 * A purchase the app made for an account (StoreKit appAccountToken) is that account's user's only:
 * over HTTP, for test-store receipts and for StoreKit 2 transactions. The App Store's are signed by
 * the stand-in certificate chain (test/fixtures/app-store-standin), whose root this file trusts in
 * place of Apple's; everything else of the verification is the real path.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));

import { setRestorePolicy } from '../../lib/data/apps.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { appStoreTransaction, signedByStandIn } from '../support/app-store-standin.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();
const BUNDLE = 'com.example.subs';

describe('purchases made for an account (appAccountToken) belong to its user only', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const verify = (target: TestApp, receipt_data: string, user_id: string) =>
    request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: target.secretKey,
      body: { platform: 'ios', receipt_data, user_id },
    });
  const recover = (target: TestApp, user: string, receipt: string) =>
    request('POST', '/receipt/verify/recover', { headers: mobileHeaders(target, user), body: { receipt } });
  const subscriptionsOf = async (target: TestApp, user_id: string) =>
    (await request('GET', SUBSCRIPTIONS_BASE, { bearer: target.secretKey, query: { user_id } })).body.data as {
      id: string;
    }[];
  const detail = async (target: TestApp, id: string) =>
    (await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: target.secretKey })).body.data;

  it('test store: another user verifying first is RECEIPT_ALREADY_USED and gets nothing; the account’s user then verifies it', async () => {
    const { receipt_data } = await mintReceipt(app, { appAccountToken: appAccountTokenFor(app.appId, 'alice') });
    const stolen = await verify(app, receipt_data, 'mallory');
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toMatchObject({
      code: 'RECEIPT_ALREADY_USED',
      message: expect.stringContaining('app account token'),
    });
    expect(await subscriptionsOf(app, 'mallory')).toEqual([]);
    const own = await verify(app, receipt_data, 'alice');
    expect(own.status).toBe(200);
    expect(await detail(app, own.body.data.subscription_id)).toMatchObject({ user_id: 'alice', status: 'active' });
    expect((await verify(app, receipt_data, 'mallory')).body.error.code).toBe('RECEIPT_ALREADY_USED');
  });

  it('test store: the token is compared as a UUID, whatever its letter case', async () => {
    const { receipt_data } = await mintReceipt(app, {
      appAccountToken: appAccountTokenFor(app.appId, 'ada').toUpperCase(),
    });
    expect((await verify(app, receipt_data, 'ada')).status).toBe(200);
  });

  it('test store: under the transfer policy a restore by another user is still refused, and the owner’s subscription is untouched', async () => {
    const own = await createTestApp();
    await setRestorePolicy(own.appId, 'transfer');
    const first = await mintReceipt(own, {
      appAccountToken: appAccountTokenFor(own.appId, 'alice'),
      expiresIn: 86_400,
    });
    const bought = await request('POST', '/receipt/verify/first', {
      headers: mobileHeaders(own, 'alice'),
      body: { receipt: first.receipt_data, productId: 'premium_monthly' },
    });
    expect(bought.status).toBe(200);
    const before = await detail(own, bought.body.data.subscription_id);

    const taken = await recover(own, 'mallory', first.receipt_data);
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({ status: 'error', code: 'RECEIPT_ALREADY_USED' });
    // A renewal of the purchase carries the token too.
    const renewal = await mintReceipt(own, {
      appAccountToken: appAccountTokenFor(own.appId, 'alice'),
      renews: first.transaction_id,
      expiresIn: 40 * 86_400,
    });
    expect((await recover(own, 'mallory', renewal.receipt_data)).body.code).toBe('RECEIPT_ALREADY_USED');

    expect(await detail(own, bought.body.data.subscription_id)).toEqual(before);
    expect(before).toMatchObject({ user_id: 'alice', status: 'active', transfers: [] });
    expect(await subscriptionsOf(own, 'mallory')).toEqual([]);
    // Alice restoring her own purchase is fine.
    expect((await recover(own, 'alice', renewal.receipt_data)).body.data.subscription_id).toBe(
      bought.body.data.subscription_id,
    );
  });

  it('App Store: a StoreKit 2 transaction carrying appAccountToken is refused to another user, under either policy, and verifies for its user', async () => {
    const apple = await createTestApp();
    await putStoreSettings(apple.appId, 'app_store', { bundle_id: BUNDLE, environment: 'Sandbox' });
    await setRestorePolicy(apple.appId, 'transfer');
    // StoreKit's UUID prints in upper case.
    const jws = signedByStandIn(
      appStoreTransaction(BUNDLE, { appAccountToken: appAccountTokenFor(apple.appId, 'alice').toUpperCase() }),
    );

    const stolen = await verify(apple, jws, 'mallory');
    expect(stolen.status).toBe(400);
    expect(stolen.body.error.code).toBe('RECEIPT_ALREADY_USED');
    const own = await verify(apple, jws, 'alice');
    expect(own.status).toBe(200);
    const before = await detail(apple, own.body.data.subscription_id);
    expect(before).toMatchObject({ user_id: 'alice', status: 'active', payment_info: { payment_method: 'app_store' } });
    expect((await recover(apple, 'mallory', jws)).body.code).toBe('RECEIPT_ALREADY_USED');
    expect(await detail(apple, own.body.data.subscription_id)).toEqual(before);

    // Without a token the same transfer restore moves the purchase: the token is what stops it.
    const untagged = signedByStandIn(appStoreTransaction(BUNDLE));
    expect((await verify(apple, untagged, 'bob')).status).toBe(200);
    expect((await recover(apple, 'mallory', untagged)).status).toBe(200);
  });
});

describe('a restore under the transfer policy takes a purchase only when it can have it', () => {
  it("a transaction paying for a third user's subscription is refused, and the owner's subscription is untouched", async () => {
    const app = await createTestApp();
    await setRestorePolicy(app.appId, 'transfer');
    const first = await mintReceipt(app);
    const renewal = await mintReceipt(app, { renews: first.transaction_id, expiresIn: 40 * 86_400 });
    // Bob's record of the renewal (POST /subscriptions binds the transaction to it, not the purchase).
    const bobs = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: 'bob', product_id: 'premium_monthly', platform: 'ios', transaction_id: renewal.transaction_id },
    });
    expect(bobs.status).toBe(201);
    const alices = await request('POST', '/receipt/verify/first', {
      headers: mobileHeaders(app, 'alice'),
      body: { receipt: first.receipt_data, productId: 'premium_monthly' },
    });
    expect(alices.status).toBe(200);
    const aliceId = alices.body.data.subscription_id as string;
    const before = (await request('GET', `${SUBSCRIPTIONS_BASE}/${aliceId}`, { bearer: app.secretKey })).body.data;

    const taken = await request('POST', '/receipt/verify/recover', {
      headers: mobileHeaders(app, 'mallory'),
      body: { receipt: renewal.receipt_data },
    });
    expect(taken.body).toMatchObject({ status: 'error', code: 'RECEIPT_ALREADY_USED' });
    const after = (await request('GET', `${SUBSCRIPTIONS_BASE}/${aliceId}`, { bearer: app.secretKey })).body.data;
    expect(after).toEqual(before);
    expect(after).toMatchObject({ user_id: 'alice', status: 'active' });
  });
});
