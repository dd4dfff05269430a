/**
 * Requests of RevenueCat's SDKs as they build them, for the tests that replay them (each file
 * cites the SDK source it follows):
 * - Headers: purchases-ios Sources/Networking/HTTPClient/HTTPClient.swift:106-152 (defaultHeaders,
 *   Authorization at 163-165); purchases-android purchases/src/main/kotlin/com/revenuecat/purchases/common/HTTPClient.kt:297-330.
 * - Ids: iOS escapes with `.urlHostAllowed`, so `$` and `:` stay raw (HTTPRequestPath.swift:331-333);
 *   Android `Uri.encode`s them (common/networking/Endpoint.kt:17-19).
 * - Receipt bodies: purchases-ios __Snapshots__/BackendPostReceiptDataTests/iOS13-testPostsJWSTokenWithProductDataCorrectly.1.json;
 *   purchases-android common/Backend.kt:269-292.
 */
import { randomBytes } from 'node:crypto';

/** iOS's defaultHeaders (HTTPClient.swift:106-152), as the snapshot records them, and the ETag merge (677-688). */
export const iosHeaders = (key: string, etag = '') => ({
  Authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  'X-Client-Build-Version': '12345',
  'X-Client-Bundle-ID': 'com.example.app',
  'X-Client-Version': '17.0.0',
  'X-Is-Sandbox': 'true',
  'X-Observer-Mode-Enabled': 'false',
  'X-Platform': 'iOS',
  'X-Platform-Flavor': 'native',
  'X-Platform-Version': 'Version 17.0.0 (Build 21A342)',
  'X-Storefront': 'USA',
  'X-StoreKit-Version': '2',
  'X-StoreKit2-Enabled': 'true',
  'X-Version': '5.0.0',
  'X-Retry-Count': '0',
  'X-RevenueCat-ETag': etag,
});

/** Android's getHeaders (HTTPClient.kt:297-330): no X-Is-Sandbox; the ETag always, empty without a copy. */
export const androidHeaders = (key: string, etag = '') => ({
  'Content-Type': 'application/json',
  'X-Platform': 'android',
  'X-Platform-Flavor': 'native',
  'X-Platform-Version': '34',
  'X-Platform-Device': 'Pixel 8',
  'X-Platform-Brand': 'google',
  'X-Version': '8.0.0',
  'X-Preferred-Locales': 'en_US',
  'X-Client-Locale': 'en-US',
  'X-Client-Version': '1.0',
  'X-Client-Bundle-ID': 'com.example.app',
  'X-Observer-Mode-Enabled': 'false',
  'X-Is-Debug-Build': 'false',
  'X-Kotlin-Version': '1.9.0',
  'X-Is-Backgrounded': 'false',
  Authorization: `Bearer ${key}`,
  'X-RevenueCat-ETag': etag,
});

export const anonymousId = () => `$RCAnonymousID:${randomBytes(16).toString('hex')}`;
/** The iOS path of an id ($ and : raw); Android's is encodeURIComponent's. */
export const iosPath = (id: string) => `/v1/subscribers/${id.replaceAll(' ', '%20')}`;
export const androidPath = (id: string) => `/v1/subscribers/${encodeURIComponent(id)}`;

export const json = (text: string) => JSON.parse(text) as Record<string, any>;

/** The iOS StoreKit 2 purchase body of the snapshot (testPostsJWSTokenWithProductDataCorrectly): price a string. */
export const iosPurchase = (userId: string, fetchToken: string, overrides: Record<string, unknown> = {}) => ({
  app_user_id: userId,
  attributes: { $attConsentStatus: { updated_at_ms: 1678307200000, value: 'notDetermined' } },
  currency: 'USD',
  fetch_token: fetchToken,
  initiation_source: 'purchase',
  is_restore: false,
  observer_mode: false,
  price: '9.99',
  product_id: 'premium_monthly',
  store_country: 'USA',
  ...overrides,
});

/** Android's body (Backend.kt:269-292): product_ids, platform_product_ids, price a number. */
export const androidPurchase = (userId: string, fetchToken: string, overrides: Record<string, unknown> = {}) => ({
  fetch_token: fetchToken,
  product_ids: ['premium_monthly'],
  platform_product_ids: [{ product_id: 'premium_monthly', base_plan_id: 'monthly' }],
  app_user_id: userId,
  is_restore: false,
  observer_mode: false,
  purchase_completed_by: 'revenuecat',
  sdk_originated: true,
  price: 9.99,
  currency: 'USD',
  normal_duration: 'P1M',
  initiation_source: 'purchase',
  ...overrides,
});
