/**
 * What RevenueCat's SDKs read of what the app shows, as they ask for it:
 * - `GET /v1/subscribers/{app_user_id}/offerings`: purchases-ios
 *   Sources/Networking/HTTPClient/HTTPRequestPath.swift:420, decoded by
 *   Sources/Networking/Responses/OfferingsResponse.swift:14-55 (identifier, description, packages
 *   required; placements optional); purchases-android common/networking/Endpoint.kt:24, decoded by
 *   common/OfferingParser.kt:54-55 (`offerings`, `current_offering_id` required), 93-95 (placements),
 *   132-134 and 169 (an offering's identifier, packages, description), 221 (a package's identifier).
 * - `GET /v1/product_entitlement_mapping`: HTTPRequestPath.swift:453,
 *   Responses/ProductEntitlementMappingResponse.swift; Endpoint.kt:61,
 *   common/offlineentitlements/ProductEntitlementMapping.kt:28-41 (`product_identifier` and
 *   `entitlements` required of each).
 * - `POST /v1/config/{domain}`: Operations/GetRemoteConfigOperation.swift:126-127 (a POST), a 204
 *   being "current" (RemoteConfigManager.swift:298); Endpoint.kt:81.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { OFFERINGS } from '../support/offerings.js';
import { admin } from '../support/processes.js';
import { androidHeaders, androidPath, anonymousId, iosHeaders, iosPath, json } from '../support/revenuecat-requests.js';

const { send } = useGateway();

async function put(command: string, app: TestApp, content: unknown): Promise<void> {
  const file = join(await mkdtemp(join(tmpdir(), `rc-${command}-`)), 'file.json');
  await writeFile(file, JSON.stringify(content));
  const run = await admin(command, 'put', '--app', app.appId, '--file', file, '--json');
  expect(run.code, run.stderr).toBe(0);
}

/** Android's OfferingParser and iOS's OfferingsResponse: the keys each requires. */
function expectDecodable(body: Record<string, any>): void {
  expect(Array.isArray(body.offerings)).toBe(true);
  expect(body).toHaveProperty('current_offering_id');
  for (const offering of body.offerings) {
    expect(typeof offering.identifier).toBe('string');
    expect(typeof offering.description).toBe('string');
    expect(offering.packages.length).toBeGreaterThan(0);
    for (const entry of offering.packages) {
      expect(typeof entry.identifier).toBe('string');
      expect(typeof entry.platform_product_identifier).toBe('string');
    }
  }
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await put('segments', app, [
    { id: 'gold_members', name: 'Gold', conditions: [{ field: 'custom_properties.tier', op: 'eq', value: 'gold' }] },
  ]);
  await put('offerings', app, OFFERINGS);
  await putEntitlements(app.appId, [
    { id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] },
    { id: 'extras', name: 'Extras', products: ['pro_yearly'] },
  ]);
});

describe('GET /v1/subscribers/{app_user_id}/offerings', () => {
  it("iOS: the app's offerings with their iOS products, the current one and each placement's", async () => {
    const res = await send('GET', `${iosPath(anonymousId())}/offerings`, { headers: iosHeaders(app.sdkKey) });
    expect(res.status, res.text).toBe(200);
    const body = json(res.text);
    expectDecodable(body);
    expect(body).toEqual({
      current_offering_id: 'standard',
      offerings: [
        {
          identifier: 'standard',
          description: 'Monthly and yearly',
          metadata: { headline: 'Go premium' },
          packages: [
            { identifier: '$rc_monthly', platform_product_identifier: 'premium_monthly' },
            { identifier: '$rc_annual', platform_product_identifier: 'pro_yearly' },
          ],
        },
        {
          identifier: 'gold',
          description: '',
          metadata: {},
          packages: [{ identifier: '$rc_annual', platform_product_identifier: 'pro_yearly' }],
        },
      ],
      placements: {
        fallback_offering_id: 'standard',
        offering_ids_by_placement: { onboarding: 'standard', settings: 'standard' },
      },
    });
  });

  it("Android: only what sells on Google Play; a placement chooses by the user's segment, set as an attribute", async () => {
    const id = anonymousId();
    const android = json(
      (await send('GET', `${androidPath(id)}/offerings`, { headers: androidHeaders(app.sdkKey) })).text,
    );
    expectDecodable(android);
    expect(android.offerings.map((offering: { identifier: string }) => offering.identifier)).toEqual(['standard']);
    expect(android.offerings[0].packages).toEqual([
      { identifier: '$rc_monthly', platform_product_identifier: 'premium_monthly' },
    ]);
    // Its settings placement chooses gold on Android, which sells nothing there: left out.
    expect(android.placements.offering_ids_by_placement).toEqual({ onboarding: 'standard' });

    const set = await send('POST', `${iosPath(id)}/attributes`, {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify({ attributes: { tier: { value: 'gold', updated_at_ms: 1 } } }),
    });
    expect(set.status, set.text).toBe(200);
    const gold = json((await send('GET', `${iosPath(id)}/offerings`, { headers: iosHeaders(app.sdkKey) })).text);
    expect(gold.placements.offering_ids_by_placement).toEqual({ onboarding: 'gold', settings: 'standard' });
  });

  it('an app without offerings answers none, which both SDKs decode as no offerings', async () => {
    const bare = await createTestApp();
    const res = await send('GET', `${iosPath(anonymousId())}/offerings`, { headers: iosHeaders(bare.sdkKey) });
    expect(res.status, res.text).toBe(200);
    expect(json(res.text)).toEqual({
      current_offering_id: null,
      offerings: [],
      placements: { fallback_offering_id: null, offering_ids_by_placement: {} },
    });
  });

  it('an X-Platform this service does not sell on is a 400 with code 7226; no key is a 401 with 7225', async () => {
    const id = anonymousId();
    const amazon = await send('GET', `${iosPath(id)}/offerings`, {
      headers: { ...iosHeaders(app.sdkKey), 'X-Platform': 'amazon' },
    });
    expect(amazon.status).toBe(400);
    expect(json(amazon.text).code).toBe(7226);
    const keyless = await send('GET', `${iosPath(id)}/offerings`, { headers: iosHeaders('pk_not-a-key') });
    expect(keyless.status).toBe(401);
    expect(json(keyless.text).code).toBe(7225);
  });
});

describe('GET /v1/product_entitlement_mapping', () => {
  it('maps each product to the entitlements it unlocks, for iOS and Android alike', async () => {
    for (const headers of [iosHeaders(app.sdkKey), androidHeaders(app.sdkKey)]) {
      const res = await send('GET', '/v1/product_entitlement_mapping', { headers });
      expect(res.status, res.text).toBe(200);
      expect(json(res.text)).toEqual({
        product_entitlement_mapping: {
          premium_monthly: { product_identifier: 'premium_monthly', entitlements: ['pro'] },
          pro_yearly: { product_identifier: 'pro_yearly', entitlements: ['pro', 'extras'] },
        },
      });
    }
    const keyless = await send('GET', '/v1/product_entitlement_mapping', { headers: iosHeaders('pk_not-a-key') });
    expect(keyless.status).toBe(401);
  });
});

describe('POST /v1/config/{domain}', () => {
  it('is a 204 without a body (what the SDK holds is current), whatever it posts', async () => {
    const res = await send('POST', '/v1/config/paywalls', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify({ domain: 'paywalls', etag: '' }),
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    const keyless = await send('POST', '/v1/config/paywalls', { headers: iosHeaders('pk_not-a-key'), body: '{}' });
    expect(keyless.status).toBe(401);
  });
});

describe('calls about no user', () => {
  it("are counted by the address they come from, per app, as one user's limit: never a user's own", async () => {
    const own = await createTestApp();
    const remaining = (res: { headers: Record<string, unknown> }) =>
      Number(/;r=(\d+);/.exec(String(res.headers.ratelimit))?.[1]);
    const first = await send('GET', '/v1/product_entitlement_mapping', { headers: iosHeaders(own.sdkKey) });
    // The tests' gateway runs with a limit of its own: what counts is the window's count.
    const limit = Number(/;q=(\d+);/.exec(String(first.headers['ratelimit-policy']))?.[1]);
    expect(remaining(first)).toBe(limit - 1);
    const config = await send('POST', '/v1/config/paywalls', { headers: iosHeaders(own.sdkKey), body: '{}' });
    expect(remaining(config)).toBe(limit - 2);
    // A user's call has that user's own window.
    const offerings = await send('GET', `${iosPath(anonymousId())}/offerings`, { headers: iosHeaders(own.sdkKey) });
    expect(remaining(offerings)).toBe(limit - 1);
    // Another app's key from the same address has its own.
    const other = await send('GET', '/v1/product_entitlement_mapping', { headers: iosHeaders(app.sdkKey) });
    expect(other.status).toBe(200);
    expect(remaining(await send('GET', '/v1/product_entitlement_mapping', { headers: iosHeaders(own.sdkKey) }))).toBe(
      limit - 3,
    );
  });
});

describe('POST /v1/events and POST /v1/diagnostics', () => {
  it('accept what the SDKs only report with {}, and are refused without the sdk key', async () => {
    // purchases-ios sends them to the proxy URL when one is set (HTTPRequestPath.swift:139-151).
    for (const path of ['/v1/events', '/v1/diagnostics']) {
      const res = await send('POST', path, {
        headers: iosHeaders(app.sdkKey),
        body: JSON.stringify({ events: [{ type: 'paywall_impression', id: 'e1', app_user_id: anonymousId() }] }),
      });
      expect(res.status, res.text).toBe(200);
      expect(json(res.text)).toEqual({});
      const keyless = await send('POST', path, { headers: iosHeaders('pk_not-a-key'), body: '{}' });
      expect(keyless.status).toBe(401);
      expect(json(keyless.text).code).toBe(7225);
    }
  });
});
