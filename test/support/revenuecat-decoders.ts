/**
 * What RevenueCat's SDKs require of an answer, as their decoders read it (file and line of each
 * rule below; purchases-ios, purchases-android, purchases-js). A CustomerInfo that breaks one of
 * them fails that SDK's call (iOS, JS) or silently drops the entitlement (Android).
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A date iOS decodes: JSONDecoder.default's `.iso8601` strategy (purchases-ios
 * Sources/FoundationExtensions/JSONDecoder+Extensions.swift:168-178), which takes no fractional
 * seconds; Android's Iso8601Utils needs the zone designator (purchases-android
 * purchases/src/main/java/com/revenuecat/purchases/util/Iso8601Utils.java:35-36).
 */
const IOS_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const isDate = (value: unknown): boolean => typeof value === 'string' && IOS_DATE.test(value);

/** Store names all three decode (purchases-android .../common/EntitlementInfoFactories.kt:56-67; purchases-js src/entities/customer-info.ts:13-23). */
const STORES = [
  'app_store',
  'mac_app_store',
  'play_store',
  'amazon',
  'stripe',
  'promotional',
  'external',
  'test_store',
];
const PERIOD_TYPES = ['normal', 'intro', 'trial', 'prepaid'];
const OWNERSHIP_TYPES = ['PURCHASED', 'FAMILY_SHARED'];

/** Problems of a CustomerInfo answer (empty: every SDK decodes it and keeps every entitlement). */
export function customerInfoProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ['the body is not an object'];
  // iOS CustomerInfoResponse.swift:207 (request_date required); Android CustomerInfoFactory.kt:64-65.
  if (!isDate(body.request_date)) problems.push(`request_date ${JSON.stringify(body.request_date)} is not an iOS date`);
  if (typeof body.request_date_ms !== 'number') problems.push('request_date_ms is not a number');
  const subscriber = body.subscriber;
  // iOS CustomerInfoResponse.swift:208; Android CustomerInfoFactory.kt:42.
  if (!isObject(subscriber)) return [...problems, 'subscriber is not an object'];
  // iOS CustomerInfoResponse.swift:33 (original_app_user_id), :38 (first_seen); Android CustomerInfoFactory.kt:67.
  if (typeof subscriber.original_app_user_id !== 'string')
    problems.push('subscriber.original_app_user_id is not a string');
  if (!isDate(subscriber.first_seen)) problems.push('subscriber.first_seen is not an iOS date');
  // Android CustomerInfoFactory.kt:44,57 (getJSONObject); purchases-js customer-info.ts:450,466 (Object.entries).
  const { subscriptions, non_subscriptions: nonSubscriptions, entitlements } = subscriber;
  if (!isObject(subscriptions)) return [...problems, 'subscriber.subscriptions is not an object'];
  if (!isObject(nonSubscriptions)) return [...problems, 'subscriber.non_subscriptions is not an object'];
  for (const [product, entry] of Object.entries(subscriptions)) {
    const where = `subscriptions.${product}`;
    if (!isObject(entry)) {
      problems.push(`${where} is not an object`);
      continue;
    }
    // iOS CustomerInfoResponse.swift:53 (purchase_date required).
    if (!isDate(entry.purchase_date)) problems.push(`${where}.purchase_date is not an iOS date`);
    for (const key of [
      'original_purchase_date',
      'expires_date',
      'unsubscribe_detected_at',
      'billing_issues_detected_at',
    ]) {
      if (entry[key] !== undefined && entry[key] !== null && !isDate(entry[key]))
        problems.push(`${where}.${key} is not an iOS date`);
    }
    if (!STORES.includes(entry.store as string))
      problems.push(`${where}.store ${JSON.stringify(entry.store)} is unknown`);
    if (typeof entry.is_sandbox !== 'boolean') problems.push(`${where}.is_sandbox is not a boolean`);
    if (!PERIOD_TYPES.includes(entry.period_type as string)) problems.push(`${where}.period_type is unknown`);
    if (!OWNERSHIP_TYPES.includes(entry.ownership_type as string)) problems.push(`${where}.ownership_type is unknown`);
  }
  for (const [product, entries] of Object.entries(nonSubscriptions)) {
    // Android CustomerInfoFactory.kt:47 (getJSONArray); iOS CustomerInfoResponse.swift:85-97 (purchase_date, is_sandbox required).
    if (!Array.isArray(entries)) problems.push(`non_subscriptions.${product} is not an array`);
    else
      for (const entry of entries as Json[]) {
        if (!isDate(entry.purchase_date))
          problems.push(`non_subscriptions.${product}[].purchase_date is not an iOS date`);
        if (typeof entry.is_sandbox !== 'boolean')
          problems.push(`non_subscriptions.${product}[].is_sandbox is not a boolean`);
      }
  }
  if (entitlements !== undefined && !isObject(entitlements))
    return [...problems, 'subscriber.entitlements is not an object'];
  for (const [id, entitlement] of Object.entries(entitlements ?? {})) {
    const where = `entitlements.${id}`;
    if (!isObject(entitlement)) {
      problems.push(`${where} is not an object`);
      continue;
    }
    // iOS CustomerInfoResponse.swift:132 (product_identifier required).
    const product = entitlement.product_identifier;
    if (typeof product !== 'string') {
      problems.push(`${where}.product_identifier is not a string`);
      continue;
    }
    // Android EntitlementInfoFactories.kt:30-47 drops it, purchases-js customer-info.ts:318-344 throws.
    const backing = isObject(subscriptions[product])
      ? (subscriptions[product] as Json)
      : Array.isArray(nonSubscriptions[product])
        ? (nonSubscriptions[product] as Json[]).at(-1)
        : undefined;
    if (!backing) {
      problems.push(`${where}.product_identifier ${product} is in neither subscriptions nor non_subscriptions`);
      continue;
    }
    // Android EntitlementInfoFactories.kt:106 (purchase_date), :107 (the product's original_purchase_date), :93 (store), :112 (is_sandbox).
    if (!isDate(entitlement.purchase_date)) problems.push(`${where}.purchase_date is not an iOS date`);
    if (entitlement.expires_date !== null && !isDate(entitlement.expires_date))
      problems.push(`${where}.expires_date is neither null nor an iOS date`);
    if (!isDate(backing.original_purchase_date))
      problems.push(`${where}: its product has no original_purchase_date (Android)`);
  }
  return problems;
}

/**
 * Problems of a refusal: iOS reads the body only with a JSON content type (purchases-ios
 * Sources/Networking/HTTPClient/HTTPClient.swift:1072-1084), `code` an integer
 * (ErrorResponse.swift:103-107), Android `optInt("code")` above 0 (purchases-android
 * .../common/networking/HTTPResult.kt:98).
 */
export function errorProblems(contentType: string | undefined, body: unknown): string[] {
  const problems: string[] = [];
  if (!contentType?.startsWith('application/json')) problems.push(`content-type ${contentType}`);
  if (!isObject(body)) return [...problems, 'the body is not an object'];
  if (!Number.isInteger(body.code) || (body.code as number) <= 0)
    problems.push(`code ${JSON.stringify(body.code)} is not a positive integer`);
  if (typeof body.message !== 'string' || body.message === '') problems.push('message is not a non-empty string');
  const extra = Object.keys(body).filter(
    (key) => !['code', 'message', 'error', 'request_id', 'attribute_errors'].includes(key),
  );
  if (extra.length > 0) problems.push(`unexpected keys ${extra.join(', ')}`);
  // iOS ErrorResponse.swift:88-115 decodes [{key_name, message}]; Android backendHelpers.kt:19-35 keeps an item only with both.
  if (body.attribute_errors !== undefined) {
    const errors = body.attribute_errors;
    if (
      !Array.isArray(errors) ||
      errors.length === 0 ||
      !errors.every(
        (error) => isObject(error) && typeof error.key_name === 'string' && typeof error.message === 'string',
      )
    )
      problems.push('attribute_errors is not a list of {key_name, message}');
  }
  return problems;
}

/** Problems of any answer of the dialect: a refusal's envelope, a success's CustomerInfo where it carries one. */
export function revenuecatAnswerProblems(status: number, contentType: string | undefined, text: string): string[] {
  if (status === 304 || status === 204) return text === '' ? [] : [`a ${status} with a body`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${text.slice(0, 200)}`];
  }
  if (status >= 400) return errorProblems(contentType, body);
  if (!contentType?.startsWith('application/json')) return [`content-type ${contentType}`];
  return isObject(body) && 'subscriber' in body ? customerInfoProblems(body) : [];
}
