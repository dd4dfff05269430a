/**
 * RevenueCat's SDKs pointed at this service (`Purchases.proxyURL` = the API's root), each call
 * replayed as the SDK builds it and each answer held to the SDKs' decoders
 * (test/support/revenuecat-decoders.ts, checked on every answer by the gateway helper's contract check).
 *
 * - Headers: purchases-ios Sources/Networking/HTTPClient/HTTPClient.swift:106-152 (defaultHeaders,
 *   Authorization at 163-165) and the request snapshot
 *   Tests/UnitTests/Networking/Backend/__Snapshots__/BackendGetCustomerInfoTests/macOS-testSendsNonceWhenEnabled.1.json;
 *   purchases-android purchases/src/main/kotlin/com/revenuecat/purchases/common/HTTPClient.kt:297-330
 *   (getHeaders; Authorization in common/BackendHelper.kt:17).
 * - X-RevenueCat-ETag: sent on every call, empty without a cached answer (purchases-ios
 *   HTTPClient/ETagManager.swift:43-81; purchases-android common/networking/ETagManager.kt:131-142).
 * - Ids: iOS escapes with `.urlHostAllowed`, so `$` and `:` stay raw (HTTPRequestPath.swift:331-333,
 *   FoundationExtensions/String+Extensions.swift:23-27); Android `Uri.encode`s them
 *   (common/networking/Endpoint.kt:7-8).
 * - Receipt bodies: purchases-ios __Snapshots__/BackendPostReceiptDataTests/iOS13-testPostsJWSTokenWithProductDataCorrectly.1.json
 *   and ...AppTransactionAndNoReceiptCorrectly.1.json; purchases-android common/Backend.kt:269-292.
 */

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { setRestorePolicy } from '../../lib/data/apps.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
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

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
});

const postReceipt = (headers: Record<string, string>, body: unknown) =>
  send('POST', '/v1/receipts', { headers, body: JSON.stringify(body) });

describe('GET /v1/subscribers/{app_user_id}', () => {
  it('an anonymous user, raw from iOS and percent-encoded from Android, is one user, recorded at the first read', async () => {
    const id = anonymousId();
    const ios = await send('GET', iosPath(id), { headers: iosHeaders(app.sdkKey) });
    expect(ios.status, ios.text).toBe(200);
    const info = json(ios.text);
    expect(info.subscriber).toMatchObject({
      original_app_user_id: id,
      subscriptions: {},
      non_subscriptions: {},
      entitlements: {},
    });
    expect(Math.abs(info.request_date_ms - Date.now())).toBeLessThan(60_000);

    const android = await send('GET', androidPath(id), { headers: androidHeaders(app.sdkKey) });
    expect(android.status).toBe(200);
    expect(json(android.text).subscriber.first_seen).toBe(info.subscriber.first_seen);
    // The subscription API sees the user the SDK created.
    const customer = await send('GET', `/v1/customers/${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${app.secretKey}` },
    });
    expect(customer.status).toBe(200);
  });

  it('X-RevenueCat-ETag: a 304 repeating it for the SDK that holds the answer, a 200 for an empty or stale one', async () => {
    const id = anonymousId();
    const first = await send('GET', iosPath(id), { headers: iosHeaders(app.sdkKey) });
    const etag = first.headers['x-revenuecat-etag'] as string;
    expect(etag).toMatch(/^[\w-]{20,}$/);
    expect(first.headers['x-revenuecat-request-time']).toMatch(/^\d{13}$/);

    const held = await send('GET', iosPath(id), { headers: iosHeaders(app.sdkKey, etag) });
    expect(held.status).toBe(304);
    expect(held.text).toBe('');
    expect(held.headers['x-revenuecat-etag']).toBe(etag);

    const stale = await send('GET', iosPath(id), { headers: iosHeaders(app.sdkKey, 'not-this-one') });
    expect(stale.status).toBe(200);
    // A purchase changes the subscriber: the SDK's copy is stale, it gets the new answer.
    const { receipt_data } = await mintReceipt(app);
    expect((await postReceipt(iosHeaders(app.sdkKey), iosPurchase(id, receipt_data))).status).toBe(200);
    const after = await send('GET', androidPath(id), { headers: androidHeaders(app.sdkKey, etag) });
    expect(after.status).toBe(200);
    expect(after.headers['x-revenuecat-etag']).not.toBe(etag);
    expect(json(after.text).subscriber.entitlements.pro).toBeDefined();
  });

  it("the key: Bearer, also as purchases-js's rcb_ form; any other is a 401 with RevenueCat's 7225", async () => {
    const id = anonymousId();
    expect((await send('GET', iosPath(id), { headers: iosHeaders(`rcb_${app.sdkKey}`) })).status).toBe(200);
    for (const key of ['pk_not-a-key', app.secretKey]) {
      const refused = await send('GET', iosPath(id), { headers: iosHeaders(key) });
      expect(refused.status).toBe(401);
      expect(json(refused.text)).toMatchObject({ code: 7225, error: 'INVALID_API_KEY' });
    }
    const { Authorization: _, ...withoutKey } = iosHeaders(app.sdkKey);
    const missing = await send('GET', iosPath(id), { headers: withoutKey });
    expect(missing.status).toBe(401);
    expect(json(missing.text).code).toBe(7225);
  });
});

describe('POST /v1/receipts', () => {
  it('an iOS purchase (StoreKit 2 body, price a string) gives the entitlement, as every SDK decodes it', async () => {
    const id = anonymousId();
    const { receipt_data, transaction_id } = await mintReceipt(app);
    const res = await postReceipt(iosHeaders(app.sdkKey), iosPurchase(id, receipt_data));
    expect(res.status, res.text).toBe(200);
    const { subscriber, request_date: requestDate } = json(res.text);
    expect(subscriber.entitlements.pro).toMatchObject({
      product_identifier: 'premium_monthly',
      grace_period_expires_date: null,
    });
    expect(Date.parse(subscriber.entitlements.pro.expires_date)).toBeGreaterThan(Date.parse(requestDate));
    expect(subscriber.subscriptions.premium_monthly).toMatchObject({
      store: 'test_store',
      is_sandbox: true,
      period_type: 'normal',
      unsubscribe_detected_at: null,
      price: { amount: 9.99, currency: 'USD' },
      store_transaction_id: transaction_id,
    });
  });

  it('an Android purchase (product_ids, price a number) the same; posting it again is idempotent', async () => {
    const id = anonymousId();
    const { receipt_data } = await mintReceipt(app, { platform: 'android' });
    const first = await postReceipt(androidHeaders(app.sdkKey), androidPurchase(id, receipt_data));
    expect(first.status, first.text).toBe(200);
    // No purchased_products: Android then consumes nothing (PostReceiptHelper.kt:124-130,
    // BillingWrapper.kt:449-458), as the catalogue sells only subscriptions.
    expect(json(first.text)).not.toHaveProperty('purchased_products');
    const again = await postReceipt(androidHeaders(app.sdkKey), androidPurchase(id, receipt_data));
    expect(again.status).toBe(200);
    expect(json(again.text).subscriber).toEqual(json(first.text).subscriber);
    expect(Object.keys(json(again.text).subscriber.subscriptions)).toEqual(['premium_monthly']);
  });

  it('a sync without a purchase (iOS app_transaction only) answers the customer info', async () => {
    const id = anonymousId();
    const res = await postReceipt(iosHeaders(app.sdkKey), {
      app_transaction: 'some_jws_token',
      app_user_id: id,
      initiation_source: 'purchase',
      is_restore: false,
      observer_mode: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(json(res.text).subscriber.entitlements).toEqual({});
  });

  it('a token that can never verify is a 4xx (the SDK finishes it); one that may verify later a 503 with Retry-After (kept)', async () => {
    const id = anonymousId();
    const garbage = await postReceipt(iosHeaders(app.sdkKey), iosPurchase(id, 'not a receipt'));
    expect(garbage.status).toBe(400);
    expect(json(garbage.text)).toMatchObject({ code: 7103, error: 'INVALID_RECEIPT' });
    // Shaped like a JWS but naming no transaction: never the App Store's, even before its credentials are set.
    for (const token of ['0.-.-', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln']) {
      const notATransaction = await postReceipt(iosHeaders(app.sdkKey), iosPurchase(id, token));
      expect(notATransaction.status, token).toBe(400);
      expect(json(notATransaction.text)).toMatchObject({ code: 7103, error: 'INVALID_RECEIPT' });
    }

    // A genuine App Store transaction for an app whose App Store credentials are not set yet.
    const jws = readFileSync(
      new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
      'utf8',
    );
    const later = await postReceipt(iosHeaders(app.sdkKey), iosPurchase(id, jws.trim()));
    expect(later.status, later.text).toBe(503);
    expect(later.headers['retry-after']).toMatch(/^\d+$/);
    expect(json(later.text)).toMatchObject({ code: 7101, error: 'VERIFICATION_FAILED' });

    const unknownPlatform = await postReceipt(
      { ...iosHeaders(app.sdkKey), 'X-Platform': 'amazon' },
      iosPurchase(id, (await mintReceipt(app)).receipt_data),
    );
    expect(unknownPlatform.status).toBe(400);
    expect(json(unknownPlatform.text)).toMatchObject({ code: 7226, error: 'INVALID_PARAMETER' });
  });

  it("takes every X-Platform purchases-ios sends, Mac Catalyst's uikitformac included, as the App Store", async () => {
    // purchases-ios Sources/Misc/SystemInfo.swift:354-366, platformHeaderConstant per target.
    for (const platform of ['iOS', 'uikitformac', 'macOS', 'tvOS', 'watchOS', 'visionOS']) {
      const res = await postReceipt(
        { ...iosHeaders(app.sdkKey), 'X-Platform': platform },
        iosPurchase(anonymousId(), (await mintReceipt(app)).receipt_data),
      );
      expect(res.status, `${platform}: ${res.text}`).toBe(200);
    }
    const refused = await postReceipt(
      { ...iosHeaders(app.sdkKey), 'X-Platform': 'iPadOS' },
      iosPurchase(anonymousId(), (await mintReceipt(app)).receipt_data),
    );
    expect(refused.status).toBe(400);
  });

  it('a restore of another user\'s purchase: 7102 under "block"; moved to the restoring user under "transfer"', async () => {
    const own = await createTestApp();
    await putEntitlements(own.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    const [buyer, other] = [anonymousId(), anonymousId()];
    const { receipt_data } = await mintReceipt(own);
    expect((await postReceipt(iosHeaders(own.sdkKey), iosPurchase(buyer, receipt_data))).status).toBe(200);
    const restore = { is_restore: true, initiation_source: 'restore', product_id: undefined, price: undefined };

    const blocked = await postReceipt(iosHeaders(own.sdkKey), iosPurchase(other, receipt_data, restore));
    expect(blocked.status).toBe(400);
    expect(json(blocked.text)).toMatchObject({ code: 7102, error: 'RECEIPT_ALREADY_USED' });

    await setRestorePolicy(own.appId, 'transfer');
    const moved = await postReceipt(iosHeaders(own.sdkKey), iosPurchase(other, receipt_data, restore));
    expect(moved.status, moved.text).toBe(200);
    expect(json(moved.text).subscriber.entitlements.pro).toBeDefined();
    const buyerNow = json((await send('GET', iosPath(buyer), { headers: iosHeaders(own.sdkKey) })).text);
    expect(Date.parse(buyerNow.subscriber.entitlements.pro.expires_date)).toBeLessThanOrEqual(
      Date.parse(buyerNow.request_date),
    );
  });

  it('an expired purchase restored is no error: the entitlement shows as ended (expires_date before request_date)', async () => {
    const id = anonymousId();
    const { receipt_data } = await mintReceipt(app, { expiresIn: -3600, platform: 'android' });
    const res = await postReceipt(androidHeaders(app.sdkKey), androidPurchase(id, receipt_data, { is_restore: true }));
    expect(res.status, res.text).toBe(200);
    const { subscriber, request_date: requestDate } = json(res.text);
    for (const entitlement of Object.values(subscriber.entitlements) as { expires_date: string }[])
      expect(Date.parse(entitlement.expires_date)).toBeLessThan(Date.parse(requestDate));
  });
});
