/**
 * RevenueCat's logIn (`POST /v1/subscribers/identify`) as the SDKs send it:
 * - purchases-ios Sources/Networking/Operations/LogInOperation.swift:67-68 (the request), 91 (201
 *   is `created`), 108-114 (the body's keys), and the request snapshot
 *   Tests/UnitTests/Networking/Backend/__Snapshots__/BackendLoginTests/macOS-testLoginMakesRightCalls.1.json;
 * - purchases-android purchases/src/main/kotlin/com/revenuecat/purchases/common/Backend.kt:498-501
 *   (the body) and 528 (`created` is a 201), common/networking/Endpoint.kt:38 (the path).
 * Every answer is held to the SDKs' decoders by the gateway helper's contract check.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { setUserTokenRequired } from '../../lib/data/api-keys.js';
import { setRestorePolicy } from '../../lib/data/apps.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { signUserToken } from '../../lib/domain/user-token.js';
import { MAX_PURCHASES_MOVED_AT_LOG_IN } from '../../lib/services/revenuecat.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { outboxEventsOf } from '../support/outbox.js';
import { mintReceipt } from '../support/receipts.js';
import {
  androidHeaders,
  androidPath,
  androidPurchase,
  anonymousId,
  iosHeaders,
  iosPath,
  iosPurchase,
  json,
} from '../support/revenuecat-requests.js';

const { send } = useGateway();

const logIn = (headers: Record<string, string>, currentId: string, newId: string) =>
  send('POST', '/v1/subscribers/identify', {
    headers,
    body: JSON.stringify({ app_user_id: currentId, new_app_user_id: newId }),
  });
const postReceipt = (headers: Record<string, string>, body: unknown) =>
  send('POST', '/v1/receipts', { headers, body: JSON.stringify(body) });

const identifiedId = () => `user-${Math.random().toString(36).slice(2)}`;

async function appWithEntitlement(): Promise<TestApp> {
  const app = await createTestApp();
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  return app;
}

/** The subscription API's view: the user's subscriptions, with the secret key. */
async function subscriptionsOf(app: TestApp, userId: string): Promise<Record<string, any>[]> {
  const res = await send('GET', `/v1/subscriptions?user_id=${encodeURIComponent(userId)}&limit=100`, {
    headers: { authorization: `Bearer ${app.secretKey}` },
  });
  expect(res.status, res.text).toBe(200);
  return json(res.text).data;
}

let app: TestApp;
beforeAll(async () => {
  app = await appWithEntitlement();
});

describe('POST /v1/subscribers/identify (logIn)', () => {
  it("iOS: an anonymous buyer logs in as a new user: 201, the purchase is the new user's, as it stood", async () => {
    const anonymous = anonymousId();
    const user = identifiedId();
    const { receipt_data } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(anonymous, receipt_data))).status).toBe(200);
    const [bought] = await subscriptionsOf(app, anonymous);

    const res = await logIn(iosHeaders(app.sdkKey), anonymous, user);
    expect(res.status, res.text).toBe(201);
    const { subscriber } = json(res.text);
    expect(subscriber.original_app_user_id).toBe(user);
    expect(subscriber.entitlements.pro).toMatchObject({ product_identifier: 'premium_monthly' });

    // The same subscription, its id and history kept, is now the user's; the anonymous id has none.
    const [moved] = await subscriptionsOf(app, user);
    expect(moved).toMatchObject({ id: bought!.id, status: 'active', expires_at: bought!.expires_at });
    expect(await subscriptionsOf(app, anonymous)).toEqual([]);
    const anonymousNow = json((await send('GET', iosPath(anonymous), { headers: iosHeaders(app.sdkKey) })).text);
    expect(anonymousNow.subscriber.entitlements).toEqual({});

    const detail = await send('GET', `/v1/subscriptions/${bought!.id}`, {
      headers: { authorization: `Bearer ${app.secretKey}` },
    });
    expect(json(detail.text).data.transfers).toEqual([
      expect.objectContaining({
        from_user_id: anonymous,
        to_user_id: user,
        from_subscription_id: bought!.id,
        to_subscription_id: bought!.id,
      }),
    ]);
    const transferred = (await outboxEventsOf(app.appId, bought!.id)).filter(
      (event) => event.event === 'subscription.transferred',
    );
    expect(transferred.map((event) => event.data)).toEqual([
      expect.objectContaining({ from_user_id: anonymous, to_user_id: user, to_subscription_id: bought!.id }),
    ]);
  });

  it('Android: logging in again is a 200 that moves nothing more; the new user then posts the purchase as their own', async () => {
    const anonymous = anonymousId();
    const user = identifiedId();
    const { receipt_data } = await mintReceipt(app, { platform: 'android' });
    expect((await postReceipt(androidHeaders(app.sdkKey), androidPurchase(anonymous, receipt_data))).status).toBe(200);

    const first = await logIn(androidHeaders(app.sdkKey), anonymous, user);
    expect(first.status, first.text).toBe(201);
    const again = await logIn(androidHeaders(app.sdkKey), anonymous, user);
    expect(again.status, again.text).toBe(200);
    expect(json(again.text).subscriber).toEqual(json(first.text).subscriber);

    // The SDK syncs the device's purchases under the new id: the purchase is that user's, no 7102.
    const synced = await postReceipt(androidHeaders(app.sdkKey), androidPurchase(user, receipt_data));
    expect(synced.status, synced.text).toBe(200);
    expect(Object.keys(json(synced.text).subscriber.subscriptions)).toEqual(['premium_monthly']);
    const customer = await send('GET', androidPath(user), { headers: androidHeaders(app.sdkKey) });
    expect(json(customer.text).subscriber.entitlements.pro).toBeDefined();
  });

  it('an existing user is a 200, and gets the anonymous purchases beside their own', async () => {
    const anonymous = anonymousId();
    const user = identifiedId();
    const own = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(user, own.receipt_data))).status).toBe(200);
    const { receipt_data } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(anonymous, receipt_data))).status).toBe(200);

    const res = await logIn(iosHeaders(app.sdkKey), anonymous, user);
    expect(res.status, res.text).toBe(200);
    expect(await subscriptionsOf(app, user)).toHaveLength(2);
  });

  it("from an identified user nothing moves: switching accounts never hands one account's purchases to another", async () => {
    const [first, second] = [identifiedId(), identifiedId()];
    const { receipt_data } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(first, receipt_data))).status).toBe(200);

    const res = await logIn(iosHeaders(app.sdkKey), first, second);
    expect(res.status, res.text).toBe(201);
    expect(json(res.text).subscriber.entitlements).toEqual({});
    expect(await subscriptionsOf(app, first)).toHaveLength(1);
    // Nor does an id that only looks anonymous (RevenueCat's are 32 lowercase hex digits).
    const lookalike = `$RCAnonymousID:${'A'.repeat(32)}`;
    const { receipt_data: other } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(lookalike, other))).status).toBe(200);
    expect((await logIn(iosHeaders(app.sdkKey), lookalike, second)).status).toBe(200);
    expect(await subscriptionsOf(app, lookalike)).toHaveLength(1);
  });

  it("another app's sdk key moves nothing of this app's: the anonymous id there is another user", async () => {
    const other = await appWithEntitlement();
    const anonymous = anonymousId();
    const { receipt_data } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(anonymous, receipt_data))).status).toBe(200);

    const res = await logIn(iosHeaders(other.sdkKey), anonymous, 'thief');
    expect(res.status, res.text).toBe(201);
    expect(json(res.text).subscriber.entitlements).toEqual({});
    expect(await subscriptionsOf(app, anonymous)).toHaveLength(1);
  });

  it('an app that requires user tokens proves the new id (7224 without its token); the token of another id is refused', async () => {
    const own = await appWithEntitlement();
    const secret = (await setUserTokenRequired(own.appId, true)).issued_secret!;
    const anonymous = anonymousId();
    const user = identifiedId();
    const exp = Math.floor(Date.now() / 1000) + 3600;

    const missing = await logIn(iosHeaders(own.sdkKey), anonymous, user);
    expect(missing.status).toBe(401);
    expect(json(missing.text).code).toBe(7224);
    const ofAnother = await logIn(
      { ...iosHeaders(own.sdkKey), 'X-USER-TOKEN': signUserToken(secret, own.appId, anonymous, exp) },
      anonymous,
      user,
    );
    expect(ofAnother.status).toBe(401);
    const proven = await logIn(
      { ...iosHeaders(own.sdkKey), 'X-USER-TOKEN': signUserToken(secret, own.appId, user, exp) },
      anonymous,
      user,
    );
    expect(proven.status, proven.text).toBe(201);
  });

  it('a malformed body is a 400 with code 7226, and the restore policy does not matter to a logIn', async () => {
    const own = await appWithEntitlement();
    await setRestorePolicy(own.appId, 'block');
    for (const body of [
      { app_user_id: anonymousId() },
      { new_app_user_id: 'x' },
      { app_user_id: '', new_app_user_id: 'x' },
    ]) {
      const res = await send('POST', '/v1/subscribers/identify', {
        headers: iosHeaders(own.sdkKey),
        body: JSON.stringify(body),
      });
      expect(res.status, res.text).toBe(400);
      expect(json(res.text).code).toBe(7226);
    }
    const anonymous = anonymousId();
    const { receipt_data } = await mintReceipt(own);
    expect((await postReceipt(iosHeaders(own.sdkKey), iosPurchase(anonymous, receipt_data))).status).toBe(200);
    expect((await logIn(iosHeaders(own.sdkKey), anonymous, 'blocked-app-user')).status).toBe(201);
    expect(await subscriptionsOf(own, 'blocked-app-user')).toHaveLength(1);
  });

  it(`moves at most ${MAX_PURCHASES_MOVED_AT_LOG_IN} purchases per logIn, the newest first; the rest at the next`, async () => {
    const own = await appWithEntitlement();
    const anonymous = anonymousId();
    const count = MAX_PURCHASES_MOVED_AT_LOG_IN + 2;
    const bought: string[] = [];
    for (let i = 0; i < count; i++) {
      const { receipt_data } = await mintReceipt(own);
      expect((await postReceipt(iosHeaders(own.sdkKey), iosPurchase(anonymous, receipt_data))).status).toBe(200);
      if (i < 2) bought.push(...(await subscriptionsOf(own, anonymous)).map((subscription) => subscription.id));
    }
    expect((await logIn(iosHeaders(own.sdkKey), anonymous, 'many')).status).toBe(201);
    const left = (await subscriptionsOf(own, anonymous)).map((subscription) => subscription.id);
    expect(left.sort()).toEqual([...new Set(bought)].sort());
    expect((await logIn(iosHeaders(own.sdkKey), anonymous, 'many')).status).toBe(200);
    expect(await subscriptionsOf(own, anonymous)).toHaveLength(0);
    expect(await subscriptionsOf(own, 'many')).toHaveLength(count);
  }, 120_000);
});
