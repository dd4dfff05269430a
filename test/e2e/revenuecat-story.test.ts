/**
 * One customer's life through RevenueCat's SDKs, each call as the SDK builds it
 * (test/support/revenuecat-requests.ts cites them): an anonymous user buys on one device (test
 * store), logs in, restores on a second device, the store renews the subscription while the app
 * is closed, and the next launch sees the renewal through the SDK's ETag round trip
 * (purchases-ios ETagManager.swift, purchases-android ETagManager.kt: the ETag of the answer it
 * holds is sent back; a 304 means the copy is current).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintNotification } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';
import { anonymousId, iosHeaders, iosPath, iosPurchase, json } from '../support/revenuecat-requests.js';

const { send } = useGateway();

const USER = 'story-customer';
let app: TestApp;
/** The first device's cached answer and its ETag, as the SDK keeps them between launches. */
let held: { etag: string; expires: string };
let receipt: { receipt_data: string; transaction_id: string };

const customerInfo = (id: string, etag = '') => send('GET', iosPath(id), { headers: iosHeaders(app.sdkKey, etag) });
const logIn = (from: string, to: string) =>
  send('POST', '/v1/subscribers/identify', {
    headers: iosHeaders(app.sdkKey),
    body: JSON.stringify({ app_user_id: from, new_app_user_id: to }),
  });

beforeAll(async () => {
  app = await createTestApp();
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
});

describe("a customer's life through RevenueCat's SDKs", () => {
  const firstDevice = anonymousId();
  const secondDevice = anonymousId();

  it('an anonymous user on the first device buys: the entitlement is active at once', async () => {
    const launch = await customerInfo(firstDevice);
    expect(launch.status).toBe(200);
    expect(json(launch.text).subscriber.entitlements).toEqual({});

    receipt = await mintReceipt(app, { expiresIn: 30 * 86_400 });
    const bought = await send('POST', '/v1/receipts', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify(iosPurchase(firstDevice, receipt.receipt_data)),
    });
    expect(bought.status, bought.text).toBe(200);
    const { subscriber, request_date } = json(bought.text);
    expect(Date.parse(subscriber.entitlements.pro.expires_date)).toBeGreaterThan(Date.parse(request_date));
  });

  it('logs in: a new user (201) who has the purchase; the SDK caches that answer', async () => {
    const res = await logIn(firstDevice, USER);
    expect(res.status, res.text).toBe(201);
    const again = await customerInfo(USER);
    const info = json(again.text);
    expect(info.subscriber.entitlements.pro).toBeDefined();
    held = {
      etag: again.headers['x-revenuecat-etag'] as string,
      expires: info.subscriber.entitlements.pro.expires_date,
    };
    // Nothing changed: the next launch's 304 keeps the cached answer.
    const unchanged = await customerInfo(USER, held.etag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers['x-revenuecat-etag']).toBe(held.etag);
  });

  it('a second device logs in as the user (200) and restores the purchase: the user keeps it', async () => {
    expect((await customerInfo(secondDevice)).status).toBe(200);
    const loggedIn = await logIn(secondDevice, USER);
    expect(loggedIn.status, loggedIn.text).toBe(200);
    const restored = await send('POST', '/v1/receipts', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify(
        iosPurchase(USER, receipt.receipt_data, {
          is_restore: true,
          initiation_source: 'restore',
          product_id: undefined,
          price: undefined,
        }),
      ),
    });
    expect(restored.status, restored.text).toBe(200);
    expect(Object.keys(json(restored.text).subscriber.subscriptions)).toEqual(['premium_monthly']);
  });

  it('the store renews while the app is closed; the next launch gets the renewal, not a 304', async () => {
    const renewal = await mintNotification(
      app.appId,
      receipt.transaction_id,
      'renewed',
      '--expires-in',
      String(60 * 86_400),
    );
    const delivered = await send('POST', renewal.path, { body: JSON.stringify(renewal.body) });
    expect(delivered.status, delivered.text).toBe(200);
    expect(json(delivered.text).data).toMatchObject({ type: 'DID_RENEW', outcome: 'applied' });

    const launch = await customerInfo(USER, held.etag);
    expect(launch.status).toBe(200);
    const renewed = json(launch.text).subscriber.entitlements.pro;
    expect(Date.parse(renewed.expires_date)).toBeGreaterThan(Date.parse(held.expires) + 20 * 86_400_000);
    const etag = launch.headers['x-revenuecat-etag'] as string;
    expect(etag).not.toBe(held.etag);
    // And the launch after that holds the current answer.
    expect((await customerInfo(USER, etag)).status).toBe(304);
  });
});
