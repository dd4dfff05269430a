/**
 * purchases-ios's optional calls, replayed as its backend snapshot tests record them
 * (Tests/UnitTests/Networking/Backend/__Snapshots__/): each answered so that the SDK neither
 * errors nor posts it again.
 * - `POST /v1/subscribers/{id}/intro_eligibility`: BackendGetIntroEligibilityTests/
 *   iOS14-testPostsProductIdentifiers.1.json (`product_identifiers`, `fetch_token`), decoded by
 *   GetIntroEligibilityResponse.swift as `{product: true|false|null}`;
 * - `GET /v1/subscribers/{id}/virtual_currencies`: BackendGetVirtualCurrenciesTests/
 *   iOS13-testGetVirtualCurrenciesCallsHTTPMethod.1.json, decoded by VirtualCurrenciesResponse.swift;
 * - `POST /v1/subscribers/{id}/adservices_attribution`: BackendPostAdServicesTokenTests/
 *   iOS17-testPostAdServicesCallsHttpClient.1.json (`aad_attribution_token`);
 * - `GET /v1/customercenter/{id}`: BackendGetCustomerCenterConfigTests/
 *   iOS14-testGetCustomerCenterConfigPassesLocales.1.json, decoded by CustomerCenterConfigResponse.swift
 *   (CustomerCenter 26-34, Screen 125, Support 149-151: `email` a String) and purchases-android's
 *   CustomerCenterConfigData.kt (CustomerCenterRoot 15, Screen 569, PathType 515);
 * - `POST /v1/subscribers/{id}/restore/eligibility`: BackendIsPurchaseAllowedByRestoreBehaviorTests/
 *   iOS14-testRestoreEligibilitySendsExpectedRequest.1.json (`fetch_token`), decoded by
 *   IsPurchaseAllowedByRestoreBehaviorResponse.swift (`is_purchase_allowed_by_restore_behavior`);
 * - `POST /v1/offers`: BackendPostOfferForSigningTests/iOS13-testOfferForSigningCorrectly.1.json
 *   (`app_user_id`, `fetch_token`, `generate_offers`), decoded by PostOfferResponse.swift; the
 *   signature checked against Apple's definition of its payload with the key's public half;
 * - `GET /v1/health`: BackendInternalTests/iOS16-testHealthRequestIsNotAuthenticated.1.json, no
 *   Authorization; `GET /v1/subscribers/{id}/health_report_availability`: HTTPRequestPath.swift:429
 *   and 297-299 (not authenticated), asked by Purchases.swift:2964 in a debug build, decoded by
 *   HealthReportAvailabilityResponse.swift:16-18 (`report_logs`).
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { setRestorePolicy, setSupportEmail } from '../../lib/data/apps.js';
import { getPurchaseOwner } from '../../lib/data/purchase-ownership.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';
import { androidHeaders, anonymousId, iosHeaders, iosPath, iosPurchase, json } from '../support/revenuecat-requests.js';

const { send } = useGateway();

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});

/** StoreKit 1's headers in the snapshots. */
const storeKit1 = (key: string) => ({ ...iosHeaders(key), 'X-StoreKit-Version': '1', 'X-StoreKit2-Enabled': 'false' });

describe('POST /v1/subscribers/{app_user_id}/intro_eligibility', () => {
  const ask = (user: string, products: string[]) =>
    send('POST', `${iosPath(user)}/intro_eligibility`, {
      headers: storeKit1(app.sdkKey),
      body: JSON.stringify({ fetch_token: 'AQID', product_identifiers: products }),
    });

  it('is unknown (null) for a user who has had no trial: StoreKit decides at purchase; never true', async () => {
    const res = await ask(anonymousId(), ['producta', 'productb', 'premium_monthly']);
    expect(res.status, res.text).toBe(200);
    expect(json(res.text)).toEqual({ producta: null, productb: null, premium_monthly: null });
  });

  it('is ineligible (false) for a product the user has had a free trial of, unknown for the others', async () => {
    const user = anonymousId();
    const { receipt_data } = await mintReceipt(app, { trial: true });
    const posted = await send('POST', '/v1/receipts', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify(iosPurchase(user, receipt_data)),
    });
    expect(posted.status, posted.text).toBe(200);
    const res = await ask(user, ['premium_monthly', 'pro_yearly']);
    expect(json(res.text)).toEqual({ premium_monthly: false, pro_yearly: null });
    // A purchase without a trial proves nothing about the offer.
    const paid = anonymousId();
    await send('POST', '/v1/receipts', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify(iosPurchase(paid, (await mintReceipt(app)).receipt_data)),
    });
    expect(json((await ask(paid, ['premium_monthly'])).text)).toEqual({ premium_monthly: null });
  });

  it('answers {} to no products, and refuses more than 100 or a body without the list (RevenueCat envelope)', async () => {
    expect(json((await ask(anonymousId(), [])).text)).toEqual({});
    const many = await ask(
      anonymousId(),
      Array.from({ length: 101 }, (_, i) => `p${i}`),
    );
    expect({ status: many.status, code: json(many.text).code }).toEqual({ status: 400, code: 7226 });
    const none = await send('POST', `${iosPath(anonymousId())}/intro_eligibility`, {
      headers: storeKit1(app.sdkKey),
      body: JSON.stringify({ fetch_token: 'AQID' }),
    });
    expect(none.status).toBe(400);
  });
});

describe('GET /v1/subscribers/{app_user_id}/virtual_currencies', () => {
  it('answers no virtual currencies, as the SDK decodes them', async () => {
    const res = await send('GET', `${iosPath('user')}/virtual_currencies`, { headers: storeKit1(app.sdkKey) });
    expect(res.status, res.text).toBe(200);
    expect(json(res.text)).toEqual({ virtual_currencies: {} });
  });
});

describe('POST /v1/subscribers/{app_user_id}/adservices_attribution and /attribution', () => {
  it('accepts the AdServices token and the older attribution data with {}, and refuses without the key', async () => {
    const token = await send('POST', `${iosPath('asdf')}/adservices_attribution`, {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify({ aad_attribution_token: 'asdf' }),
    });
    expect({ status: token.status, body: json(token.text) }).toEqual({ status: 200, body: {} });
    const older = await send('POST', `${iosPath('asdf')}/attribution`, {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify({ network: 1, data: { campaign: 'x' } }),
    });
    expect({ status: older.status, body: json(older.text) }).toEqual({ status: 200, body: {} });
    const keyless = await send('POST', `${iosPath('asdf')}/adservices_attribution`, {
      headers: iosHeaders('pk_not-a-key'),
      body: '{}',
    });
    expect({ status: keyless.status, code: json(keyless.text).code }).toEqual({ status: 401, code: 7225 });
  });
});

/** The snapshot's headers: StoreKit 1, the device's preferred locales. */
const snapshotHeaders = (key: string) => ({
  ...storeKit1(key),
  'X-Preferred-Locales': 'en_EN,es_ES',
  'X-Is-Debug-Build': 'true',
});

/** What both SDKs require of a customer center configuration, as their decoders do; returns its help paths by screen. */
function decodeCustomerCenter(body: Record<string, any>): Record<string, string[]> {
  const center = body.customer_center;
  // iOS: every member of CustomerCenter is required; light and dark are objects of optional colors.
  expect(Object.keys(center).sort()).toEqual(['appearance', 'change_plans', 'localization', 'screens', 'support']);
  expect(center.appearance).toEqual({ light: expect.any(Object), dark: expect.any(Object) });
  expect(center.localization).toEqual({ locale: expect.any(String), localized_strings: expect.any(Object) });
  expect(typeof center.support.email).toBe('string');
  expect(Array.isArray(center.change_plans)).toBe(true);
  const paths: Record<string, string[]> = {};
  for (const [key, screen] of Object.entries<Record<string, any>>(center.screens)) {
    // Android keys the map by ScreenType, and both read the screen's own type.
    expect(screen.type).toBe(key);
    expect(typeof screen.title).toBe('string');
    for (const path of screen.paths) {
      expect(path).toEqual({ id: expect.any(String), title: expect.any(String), type: expect.any(String) });
      // A type both SDKs act on: not UNKNOWN, not a custom URL (which needs its url and open method).
      expect(['MISSING_PURCHASE', 'REFUND_REQUEST', 'CHANGE_PLANS', 'CANCEL']).toContain(path.type);
    }
    paths[key] = screen.paths.map((path: { type: string }) => path.type);
  }
  return paths;
}

describe('GET /v1/customercenter/{app_user_id}', () => {
  it("answers RevenueCat's template of help paths, which both SDKs decode, with the app's support email once set", async () => {
    const own = await createTestApp();
    const read = async (headers: Record<string, string>) => {
      const res = await send('GET', '/v1/customercenter/user', { headers });
      expect(res.status, res.text).toBe(200);
      return json(res.text);
    };
    const ios = () => read(snapshotHeaders(own.sdkKey));
    const android = () => read(androidHeaders(own.sdkKey));
    const before = await ios();
    expect(decodeCustomerCenter(before)).toEqual({
      MANAGEMENT: ['MISSING_PURCHASE', 'REFUND_REQUEST', 'CHANGE_PLANS', 'CANCEL'],
      NO_ACTIVE: ['MISSING_PURCHASE'],
    });
    // No address: iOS requires a string and hides "contact support" for an empty one ...
    expect(before.customer_center.support.email).toBe('');
    // ... Android shows it for any string (InternalCustomerCenter.kt `email?.let`), so it gets null.
    const onAndroid = await android();
    expect(onAndroid.customer_center.support.email).toBeNull();
    expect(onAndroid.customer_center.screens).toEqual(before.customer_center.screens);
    // The SDKs' own strings fill every key left out: English, whatever the device prefers.
    expect(before.customer_center.localization).toEqual({ locale: 'en_US', localized_strings: {} });
    await setSupportEmail(own.appId, 'help@example.com');
    expect((await ios()).customer_center.support.email).toBe('help@example.com');
    expect((await android()).customer_center.support.email).toBe('help@example.com');
  });

  it('refuses without the key (RevenueCat envelope), as every call naming a user', async () => {
    const res = await send('GET', '/v1/customercenter/user', { headers: snapshotHeaders('pk_not-a-key') });
    expect({ status: res.status, code: json(res.text).code }).toEqual({ status: 401, code: 7225 });
  });
});

describe("the SDKs' health calls, sent without a key", () => {
  it('GET /v1/health answers 200 {} with no Authorization', async () => {
    const { Authorization: _, ...headers } = iosHeaders('');
    const res = await send('GET', '/v1/health', { headers });
    expect({ status: res.status, body: json(res.text) }).toEqual({ status: 200, body: {} });
  });

  it('GET .../health_report_availability says there is no report to log, so a debug build asks no more', async () => {
    const { Authorization: _, ...headers } = iosHeaders('');
    const res = await send('GET', `${iosPath(anonymousId())}/health_report_availability`, { headers });
    expect({ status: res.status, body: json(res.text) }).toEqual({ status: 200, body: { report_logs: false } });
  });

  it('refuses a query or a body that is not JSON, as every endpoint taking none', async () => {
    expect((await send('GET', '/v1/health?x=1', {})).status).toBe(400);
    const res = await send('GET', '/v1/health', { headers: { 'content-type': 'application/json' }, body: '{' });
    expect(res.status).toBe(400);
  });
});

describe('POST /v1/subscribers/{app_user_id}/restore/eligibility', () => {
  const ask = (key: string, user: string, token: string) =>
    send('POST', `${iosPath(user)}/restore/eligibility`, {
      headers: snapshotHeaders(key),
      body: JSON.stringify({ fetch_token: token }),
    });
  const allowed = async (key: string, user: string, token: string) => {
    const res = await ask(key, user, token);
    expect(res.status, res.text).toBe(200);
    return json(res.text).is_purchase_allowed_by_restore_behavior as boolean;
  };

  it("answers by whom the purchase belongs to and the app's restore policy, and moves nothing", async () => {
    const own = await createTestApp();
    const { receipt_data, transaction_id } = await mintReceipt(own);
    const [buyer, other] = [anonymousId(), anonymousId()];
    // Nobody's yet: a purchase would be the asker's.
    expect(await allowed(own.sdkKey, buyer, receipt_data)).toBe(true);
    expect(await getPurchaseOwner(own.appId, transaction_id)).toBe(undefined);
    const posted = await send('POST', '/v1/receipts', {
      headers: iosHeaders(own.sdkKey),
      body: JSON.stringify(iosPurchase(buyer, receipt_data)),
    });
    expect(posted.status, posted.text).toBe(200);
    expect(await allowed(own.sdkKey, buyer, receipt_data)).toBe(true);
    // Another user's, under the default `block`: a restore would be refused.
    expect(await allowed(own.sdkKey, other, receipt_data)).toBe(false);
    await setRestorePolicy(own.appId, 'transfer');
    expect(await allowed(own.sdkKey, other, receipt_data)).toBe(true);
    // Asking moved nothing: the purchase is still the buyer's.
    expect(await getPurchaseOwner(own.appId, transaction_id)).toMatchObject({ user_id: buyer });
  });

  it('is false for a purchase made for another user (its app account token), whatever the policy', async () => {
    const own = await createTestApp();
    await setRestorePolicy(own.appId, 'transfer');
    const { receipt_data } = await mintReceipt(own, { appAccountToken: appAccountTokenFor(own.appId, 'someone-else') });
    expect(await allowed(own.sdkKey, anonymousId(), receipt_data)).toBe(false);
    expect(await allowed(own.sdkKey, 'someone-else', receipt_data)).toBe(true);
  });

  it("refuses the snapshot's made-up token and a StoreKit 1 receipt with 7103, asking no store", async () => {
    const made = await ask(app.sdkKey, 'user', 'jws-token');
    expect({ status: made.status, code: json(made.text).code }).toEqual({ status: 400, code: 7103 });
    const legacy = await ask(app.sdkKey, 'user', Buffer.from('a StoreKit 1 app receipt').toString('base64'));
    expect({ status: legacy.status, code: json(legacy.text).code }).toEqual({ status: 400, code: 7103 });
    expect(json(legacy.text).message).toContain('signed StoreKit 2 transaction');
  });
});

describe('POST /v1/offers', () => {
  /** The snapshot's request, for the user given. */
  const signingRequest = (user: string, fetchToken = 'YW4gYXdlc29tZSBkaXNjb3VudA==') => ({
    app_user_id: user,
    fetch_token: fetchToken,
    generate_offers: [{ offer_id: 'offerid', product_id: 'a_great_product', subscription_group: 'sub_group' }],
  });
  const post = (key: string, body: unknown) =>
    send('POST', '/v1/offers', { headers: iosHeaders(key), body: JSON.stringify(body) });

  it("signs the offer with the app's In-App Purchase key, over Apple's payload, for the account the purchase will carry", async () => {
    const own = await createTestApp();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    await putStoreSettings(own.appId, 'app_store', {
      bundle_id: 'com.example.app',
      environment: 'Sandbox',
      server_api: {
        issuer_id: 'issuer',
        key_id: 'KEY1234567',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    });
    const check = async (user: string, fetchToken: string | undefined, account: string) => {
      const before = Date.now();
      const res = await post(own.sdkKey, signingRequest(user, fetchToken));
      expect(res.status, res.text).toBe(200);
      const [offer] = json(res.text).offers;
      expect(offer).toEqual({
        offer_id: 'offerid',
        product_id: 'a_great_product',
        key_id: 'KEY1234567',
        signature_data: { signature: expect.any(String), nonce: expect.any(String), timestamp: expect.any(Number) },
      });
      const { signature, nonce, timestamp } = offer.signature_data;
      // The nonce is a lowercase UUID (the SDK decodes a UUID), the timestamp milliseconds of now.
      expect(nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(Date.now());
      const payload = ['com.example.app', 'KEY1234567', 'a_great_product', 'offerid', account, nonce, timestamp].join(
        '\u2063',
      );
      expect(verify('sha256', Buffer.from(payload), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
    };
    // StoreKit 2 (the snapshot's token is no app receipt): the app account token, only for a UUID user id.
    await check('user', 'YW4gYXdlc29tZSBkaXNjb3VudA==', '');
    await check('8E2A7B3C-1D4F-4A5B-9C6D-7E8F9A0B1C2D', undefined, '8e2a7b3c-1d4f-4a5b-9c6d-7e8f9a0b1c2d');
    // StoreKit 1 (an app receipt, PKCS #7): the payment's applicationUsername, the user id as it is.
    await check(
      '$RCAnonymousID:0123456789abcdef0123456789abcdef',
      'MIIT0AYJKoZIhvcNAQcC',
      '$RCAnonymousID:0123456789abcdef0123456789abcdef',
    );
  });

  it('answers each offer with 7234 (invalidAppleSubscriptionKey) while the app has no In-App Purchase key', async () => {
    const res = await post(app.sdkKey, signingRequest('user'));
    expect(res.status, res.text).toBe(200);
    expect(json(res.text).offers).toEqual([
      {
        offer_id: 'offerid',
        product_id: 'a_great_product',
        key_id: '',
        signature_error: { code: 7234, message: expect.stringContaining('stores apple set') },
      },
    ]);
  });

  it('refuses no offers, more than 10, and a request without the key (RevenueCat envelope)', async () => {
    const none = await post(app.sdkKey, { ...signingRequest('user'), generate_offers: [] });
    expect({ status: none.status, code: json(none.text).code }).toEqual({ status: 400, code: 7226 });
    const offer = signingRequest('user').generate_offers[0]!;
    const many = await post(app.sdkKey, { ...signingRequest('user'), generate_offers: Array(11).fill(offer) });
    expect(many.status).toBe(400);
    const keyless = await post('pk_not-a-key', signingRequest('user'));
    expect({ status: keyless.status, code: json(keyless.text).code }).toEqual({ status: 401, code: 7225 });
  });
});
