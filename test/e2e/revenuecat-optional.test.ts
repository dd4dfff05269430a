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
 *   iOS17-testPostAdServicesCallsHttpClient.1.json (`aad_attribution_token`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';
import { anonymousId, iosHeaders, iosPath, iosPurchase, json } from '../support/revenuecat-requests.js';

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
