/**
 * RevenueCat's subscriber attributes (`POST /v1/subscribers/{app_user_id}/attributes`) as the SDKs
 * send them, kept as the user's custom properties (what segment rules read: seen here through
 * `admin segments put` and the mobile API's `GET /segment/info`):
 * - purchases-ios Sources/Networking/Operations/PostSubscriberAttributesOperation.swift:53-56 (the
 *   request; any 2xx is a success, HTTPEmptyResponseBody), SubscriberAttribute.swift:105-108 (each
 *   attribute's `value` and `updated_at_ms`), and the request snapshot
 *   Tests/UnitTests/SubscriberAttributes/__Snapshots__/BackendSubscriberAttributesTests/macOS-testPostSubscriberAttributesSendsRightParameters.1.json
 *   (keys with spaces);
 * - purchases-android subscriberattributes/SubscriberAttributesPoster.kt:26-27 (`{"attributes": ...}`),
 *   SubscriberAttribute.kt:56 (a null value, which its JSONObject drops), backendHelpers.kt:19-35
 *   (`attribute_errors`: `key_name` and `message`), and iOS's ErrorResponse.swift:88-115 (the same).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CUSTOM_PROPERTY_LIMITS } from '../../lib/schemas/mobile.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';
import {
  androidHeaders,
  androidPath,
  androidPurchase,
  anonymousId,
  iosHeaders,
  iosPath,
  json,
} from '../support/revenuecat-requests.js';

const { send } = useGateway();

const SET_AT = 1678307200000;
const postAttributes = (headers: Record<string, string>, path: string, attributes: Record<string, unknown>) =>
  send('POST', `${path}/attributes`, { headers, body: JSON.stringify({ attributes }) });

/** The user's rule segments, as the mobile API answers them. */
async function segmentsOf(app: TestApp, userId: string): Promise<string[]> {
  const res = await send('GET', '/segment/info', {
    headers: { 'x-api-key': app.sdkKey, 'x-user-id': userId, 'x-app-id': app.appId },
  });
  expect(res.status, res.text).toBe(200);
  return (json(res.text).data.segments as { id: string }[]).map((segment) => segment.id);
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  const path = join(await mkdtemp(join(tmpdir(), 'rc-attributes-')), 'segments.json');
  await writeFile(
    path,
    JSON.stringify([
      { id: 'gold', name: 'Gold', conditions: [{ field: 'custom_properties.tier', op: 'eq', value: 'gold' }] },
      {
        id: 'consented',
        name: 'Consented',
        conditions: [{ field: 'custom_properties.rc_attConsentStatus', op: 'eq', value: 'authorized' }],
      },
    ]),
  );
  const put = await admin('segments', 'put', '--app', app.appId, '--file', path, '--json');
  expect(put.code, put.stderr).toBe(0);
});

describe('POST /v1/subscribers/{app_user_id}/attributes', () => {
  it("iOS: the snapshot's body (keys with spaces) and a reserved key are kept; the answer is {} and a new user is recorded", async () => {
    const id = anonymousId();
    const res = await postAttributes(iosHeaders(app.sdkKey), iosPath(id), {
      'a key': { updated_at_ms: SET_AT, value: 'a value' },
      'another key': { updated_at_ms: SET_AT, value: 'another value' },
      tier: { updated_at_ms: SET_AT, value: 'gold' },
      $attConsentStatus: { updated_at_ms: SET_AT, value: 'authorized' },
    });
    expect(res.status, res.text).toBe(200);
    expect(json(res.text)).toEqual({});
    expect(await segmentsOf(app, id)).toEqual(expect.arrayContaining(['gold', 'consented']));
    const customer = await send('GET', `/v1/customers/${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${app.secretKey}` },
    });
    expect(customer.status).toBe(200);
  });

  it('Android: the id percent-encoded is the same user; a value it sends as null (dropped by JSONObject) unsets the key', async () => {
    const id = anonymousId();
    expect(
      (
        await postAttributes(androidHeaders(app.sdkKey), androidPath(id), {
          tier: { value: 'gold', updated_at_ms: SET_AT },
        })
      ).status,
    ).toBe(200);
    expect(await segmentsOf(app, id)).toContain('gold');
    const unset = await postAttributes(androidHeaders(app.sdkKey), androidPath(id), {
      tier: { updated_at_ms: SET_AT },
    });
    expect(unset.status, unset.text).toBe(200);
    expect(await segmentsOf(app, id)).not.toContain('gold');
  });

  it('attributes that cannot be kept are a 400 with code 7263 naming each in attribute_errors, and nothing is kept', async () => {
    const id = anonymousId();
    const res = await postAttributes(iosHeaders(app.sdkKey), iosPath(id), {
      tier: { value: 'gold', updated_at_ms: SET_AT },
      note: { value: 'x'.repeat(CUSTOM_PROPERTY_LIMITS.valueLength + 1), updated_at_ms: SET_AT },
      constructor: { value: 'x', updated_at_ms: SET_AT },
      count: { value: 5, updated_at_ms: SET_AT },
    });
    expect(res.status, res.text).toBe(400);
    const body = json(res.text);
    expect(body).toMatchObject({ code: 7263, error: 'INVALID_PARAMETER', message: expect.any(String) });
    expect(body.attribute_errors.map((error: { key_name: string }) => error.key_name).sort()).toEqual([
      'constructor',
      'count',
      'note',
    ]);
    for (const error of body.attribute_errors) expect(error.message).toMatch(/\S/);
    // Not even the user was recorded.
    const unseen = await send('GET', '/segment/info', {
      headers: { 'x-api-key': app.sdkKey, 'x-user-id': id, 'x-app-id': app.appId },
    });
    expect(unseen.status).toBe(404);
    // The valid ones alone are kept.
    const valid = await postAttributes(iosHeaders(app.sdkKey), iosPath(id), { tier: { value: 'gold' } });
    expect(valid.status, valid.text).toBe(200);
    expect(await segmentsOf(app, id)).toContain('gold');
  });

  it('a body that is not attributes is a 400 with code 7226; the user is refused without the sdk key', async () => {
    const id = anonymousId();
    for (const body of ['{}', '{"attributes": []}', '{"attributes": "tier"}']) {
      const res = await send('POST', `${iosPath(id)}/attributes`, { headers: iosHeaders(app.sdkKey), body });
      expect(res.status, body).toBe(400);
      expect(json(res.text).code).toBe(7226);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, { value: 'v' }]));
    const many = await postAttributes(iosHeaders(app.sdkKey), iosPath(id), tooMany);
    expect(many.status).toBe(400);
    expect(json(many.text).code).toBe(7226);
    const keyless = await postAttributes(iosHeaders('pk_not-a-key'), iosPath(id), { tier: { value: 'gold' } });
    expect(keyless.status).toBe(401);
    expect(json(keyless.text).code).toBe(7225);
  });
});

/**
 * Attributes not yet synced ride inside the receipts body (purchases-ios
 * PostReceiptDataOperation.swift:311-357, the snapshot
 * Tests/UnitTests/SubscriberAttributes/__Snapshots__/BackendSubscriberAttributesTests/iOS14-testPostReceiptWithSubscriberAttributesSendsThemCorrectly.1.json;
 * purchases-android common/Backend.kt:269-292), and both SDKs mark them synced on any answer below
 * 500 (purchases-android PostReceiptHelper.kt:373-386), so they are kept whatever becomes of the
 * purchase; those not kept are logged from `attributes_error_response` (purchases-ios
 * CustomerInfoResponseHandler.swift:46-51 and ErrorResponse.swift:122-158; purchases-android
 * backendHelpers.kt:14-35 and the fixture subscriberAttributesErrorsPostReceiptResponse in
 * utils/Responses.kt:211-222).
 */
describe('attributes inside POST /v1/receipts', () => {
  const postReceipt = (headers: Record<string, string>, body: Record<string, unknown>) =>
    send('POST', '/v1/receipts', { headers, body: JSON.stringify(body) });
  /** The iOS snapshot's body, its fetch_token a test-store purchase. */
  const iosSnapshotBody = (id: string, fetchToken: string, attributes: Record<string, unknown>) => ({
    app_user_id: id,
    attributes,
    fetch_token: fetchToken,
    initiation_source: 'restore',
    is_restore: false,
    observer_mode: false,
    payload_version: 1,
    purchase_completed_by: 'revenuecat',
    sdk_originated: false,
  });

  it("iOS: the snapshot's attributes are kept with the purchase, and the answer carries no attribute errors", async () => {
    const id = anonymousId();
    const { receipt_data } = await mintReceipt(app);
    const res = await postReceipt(
      iosHeaders(app.sdkKey),
      iosSnapshotBody(id, receipt_data, {
        $attConsentStatus: { updated_at_ms: SET_AT, value: 'authorized' },
        'a key': { updated_at_ms: SET_AT, value: 'a value' },
        tier: { updated_at_ms: SET_AT, value: 'gold' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    const body = json(res.text);
    expect(Object.keys(body.subscriber.subscriptions)).toEqual(['premium_monthly']);
    expect(body).not.toHaveProperty('attributes_error_response');
    expect(await segmentsOf(app, id)).toEqual(expect.arrayContaining(['consented', 'gold']));
  });

  it('Android: those that cannot be kept are named in attributes_error_response; the purchase and the others are kept', async () => {
    const id = anonymousId();
    const { receipt_data } = await mintReceipt(app, { platform: 'android' });
    const res = await postReceipt(
      androidHeaders(app.sdkKey),
      androidPurchase(id, receipt_data, {
        attributes: {
          tier: { value: 'gold', updated_at_ms: SET_AT },
          count: { value: 5, updated_at_ms: SET_AT },
          constructor: { value: 'x', updated_at_ms: SET_AT },
          flat: 'not an attribute',
        },
      }),
    );
    expect(res.status, res.text).toBe(200);
    const body = json(res.text);
    expect(Object.keys(body.subscriber.subscriptions)).toEqual(['premium_monthly']);
    expect(body.attributes_error_response).toMatchObject({ code: 7263, message: expect.any(String) });
    const errors = body.attributes_error_response.attribute_errors as { key_name: string; message: string }[];
    expect(errors.map((error) => error.key_name).sort()).toEqual(['constructor', 'count', 'flat']);
    for (const error of errors) expect(error.message).toMatch(/\S/);
    expect(await segmentsOf(app, id)).toContain('gold');
  });

  it('a receipt that can never verify (a 4xx the SDK finishes) still keeps its attributes', async () => {
    const id = anonymousId();
    const res = await postReceipt(
      iosHeaders(app.sdkKey),
      iosSnapshotBody(id, 'bm90IGEgcmVjZWlwdA', { tier: { updated_at_ms: SET_AT, value: 'gold' } }),
    );
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await segmentsOf(app, id)).toContain('gold');
  });

  it('attributes that are not an object, or more than 100, never refuse the purchase and are not kept', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, { value: 'gold' }]));
    for (const attributes of ['tier', ['tier'], null, tooMany]) {
      const id = anonymousId();
      const { receipt_data } = await mintReceipt(app);
      const res = await postReceipt(iosHeaders(app.sdkKey), iosSnapshotBody(id, receipt_data, attributes as never));
      expect(res.status, res.text).toBe(200);
      const body = json(res.text);
      expect(Object.keys(body.subscriber.subscriptions)).toEqual(['premium_monthly']);
      if (attributes === tooMany) expect(body.attributes_error_response.attribute_errors).toHaveLength(1);
      const customer = await send('GET', `/v1/customers/${encodeURIComponent(id)}`, {
        headers: { authorization: `Bearer ${app.secretKey}` },
      });
      expect(customer.status, customer.text).toBe(200);
      expect(json(customer.text).custom_properties ?? {}).toEqual({});
    }
  });
});
