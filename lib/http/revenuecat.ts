/**
 * RevenueCat's SDK dialect (purchases-ios, purchases-android, purchases-js and the SDKs built on
 * them): served at the API's root, since the native SDKs resolve their absolute `/v1/...` paths
 * against the proxy URL and drop any path it has (docs/sdk-revenuecat.md). The app's sdk key is
 * the SDKs' public API key, sent as `Authorization: Bearer`; purchases-js accepts only keys that
 * start `rcb_`, so `rcb_<sdk key>` is the same key.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError } from '../core/errors.js';
import type { AttributeError } from '../domain/revenuecat-attributes.js';
import type { RevenueCatCustomerInfo } from '../domain/revenuecat-customer.js';
import { REVENUECAT_CODES, revenuecatRefusalOf } from '../domain/revenuecat-errors.js';
import type { Platform } from '../schemas/common.js';
import { ATTRIBUTE_PATH } from '../schemas/revenuecat.js';
import { etagOf } from './conditional.js';
import { jsonResponse, requestRefOf } from './envelopes.js';

export const REVENUECAT_SUBSCRIBERS_PATH = '/v1/subscribers';
export const REVENUECAT_RECEIPTS_PATH = '/v1/receipts';
export const REVENUECAT_PRODUCT_ENTITLEMENT_MAPPING_PATH = '/v1/product_entitlement_mapping';
export const REVENUECAT_CONFIG_PATH = '/v1/config';
export const REVENUECAT_EVENTS_PATH = '/v1/events';
export const REVENUECAT_DIAGNOSTICS_PATH = '/v1/diagnostics';
export const REVENUECAT_CUSTOMER_CENTER_PATH = '/v1/customercenter';
export const REVENUECAT_HEALTH_PATH = '/v1/health';
/** purchases-ios's promotional offer signing. */
export const REVENUECAT_OFFERS_PATH = '/v1/offers';
/** purchases-js's web billing calls (its `Ca`). */
export const REVENUECAT_WEB_BILLING_PATH = '/rcbilling/v1';

/** The paths of the dialect: apiOfPath (local/gateway.ts) answers them in its envelope. */
export const REVENUECAT_PREFIXES = [
  REVENUECAT_SUBSCRIBERS_PATH,
  REVENUECAT_RECEIPTS_PATH,
  REVENUECAT_PRODUCT_ENTITLEMENT_MAPPING_PATH,
  REVENUECAT_CONFIG_PATH,
  REVENUECAT_EVENTS_PATH,
  REVENUECAT_DIAGNOSTICS_PATH,
  REVENUECAT_CUSTOMER_CENTER_PATH,
  REVENUECAT_HEALTH_PATH,
  REVENUECAT_WEB_BILLING_PATH,
  REVENUECAT_OFFERS_PATH,
] as const;

export const isRevenueCatPath = (path: string): boolean =>
  REVENUECAT_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/** The SDKs' validator header, in and out (their ETagManager); an empty one is sent when nothing is cached. */
export const REVENUECAT_ETAG_HEADER = 'X-RevenueCat-ETag';
/** The server's time of an answer in milliseconds: the SDKs date a cached answer replayed on a 304 by it. */
export const REVENUECAT_REQUEST_TIME_HEADER = 'X-RevenueCat-Request-Time';

/** The prefix purchases-js requires of a key (configuration-validators.ts): stripped once. */
export const REVENUECAT_WEB_KEY_PREFIX = 'rcb_';

/** The sdk key of `Authorization: Bearer <key>`, without purchases-js's `rcb_` prefix. */
export function revenuecatSdkKeyOf(authorization: string | undefined): string {
  const match = authorization?.match(/^Bearer[ ]+(\S+)\s*$/i);
  if (!authorization) throw new AppError('API_KEY_MISSING', 'Authorization header with a Bearer sdk key is required');
  if (!match) throw new AppError('INVALID_API_KEY', 'Authorization header must be "Bearer <sdk key>"');
  const key = match[1]!;
  return key.startsWith(REVENUECAT_WEB_KEY_PREFIX) ? key.slice(REVENUECAT_WEB_KEY_PREFIX.length) : key;
}

/**
 * What a call about no user (the product-entitlement mapping, the remote config) is counted by:
 * the address it comes from, per app, as if it were a user of the app, so that the key alone
 * spends no more than one user's limit per address.
 */
export const revenuecatAddressBucket = (sourceIp: string): string => `$address:${sourceIp}`;

/**
 * CORS of the dialect, for purchases-js in a browser: the sdk key is public and a web app calls
 * from its own origin, so any origin may read an answer (no cookies are read: the key rides in
 * Authorization). A preflight names each header purchases-js sends (its dist's `Am`), since a
 * `*` there would not cover Authorization.
 */
export const REVENUECAT_CORS_ORIGIN = { 'Access-Control-Allow-Origin': '*' } as const;
export const REVENUECAT_CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'X-Platform',
  'X-Version',
  'X-Platform-Flavor',
  'X-Platform-Flavor-Version',
  'X-Is-Sandbox',
  'X-RC-Subscriber-Token',
  REVENUECAT_ETAG_HEADER,
  'X-User-Token',
] as const;
export const REVENUECAT_CORS_ALLOWED_METHODS = ['GET', 'POST'] as const;

/** The answer to a preflight of the dialect's paths (the local gateway's; API Gateway's in AWS, cdk/constructs/api-surface.ts). */
export const revenuecatPreflightHeaders = (maxAgeSeconds: number): Record<string, string> => ({
  ...REVENUECAT_CORS_ORIGIN,
  'Access-Control-Allow-Methods': REVENUECAT_CORS_ALLOWED_METHODS.join(', '),
  'Access-Control-Allow-Headers': REVENUECAT_CORS_ALLOWED_HEADERS.join(', '),
  'Access-Control-Max-Age': String(maxAgeSeconds),
});

/**
 * X-Platform as the SDKs send it: Apple's platforms (purchases-ios `SystemInfo.swift`
 * platformHeaderConstant: iOS, macOS, tvOS, watchOS, visionOS, and `uikitformac` from Mac
 * Catalyst), android, web.
 */
const PLATFORM_OF_HEADER: Record<string, Platform> = {
  ios: 'ios',
  uikitformac: 'ios',
  macos: 'ios',
  tvos: 'ios',
  watchos: 'ios',
  visionos: 'ios',
  android: 'android',
  web: 'web',
};

export function revenuecatPlatformOf(header: string | undefined): Platform {
  const platform = header === undefined ? undefined : PLATFORM_OF_HEADER[header.trim().toLowerCase()];
  if (!platform) {
    throw new AppError(
      'INVALID_PARAMETER',
      `X-Platform ${JSON.stringify(header ?? null)} is not one this service verifies`,
      {
        details: [{ path: 'headers.x-platform', message: 'must be iOS (or another Apple platform), android or web' }],
      },
    );
  }
  return platform;
}

/**
 * A customer info answer with its validator: the ETag covers the subscriber, not the request
 * time, so an unchanged user is a 304 to a client that holds the answer (a non-empty ETag that
 * matches; an empty one is a client without a copy). A 304 repeats the ETag, as the SDKs need.
 */
export function customerInfoResponse(
  info: RevenueCatCustomerInfo,
  status: 200 | 201,
  requestEtag: string | undefined,
  headers: Record<string, string>,
): APIGatewayProxyResult {
  const etag = etagOf(JSON.stringify(info.subscriber)).slice(1, -1);
  const validators = {
    ...headers,
    [REVENUECAT_ETAG_HEADER]: etag,
    [REVENUECAT_REQUEST_TIME_HEADER]: String(info.request_date_ms),
    'Cache-Control': 'private, no-cache',
  };
  if (status === 200 && requestEtag !== undefined && requestEtag.trim() === etag) {
    return { statusCode: 304, headers: validators, body: '' };
  }
  return jsonResponse(status, info, validators);
}

/** A refusal in RevenueCat's dialect: its integer code (lib/domain/revenuecat-errors.ts), our code as `error`. */
export interface RevenueCatErrorBody {
  code: number;
  message: string;
  error: string;
  /** Attributes not kept, by key, as the SDKs log them (code 7263). */
  attribute_errors?: AttributeError[];
  request_id?: string;
}

export const revenuecatErrorBody = (error: AppError, requestId: string): RevenueCatErrorBody => ({
  code: revenuecatRefusalOf(error).code,
  message: error.message,
  error: error.code,
  ...requestRefOf(error, requestId),
});

/** A retry-later refusal is a 503 with Retry-After, so the SDK keeps the purchase and retries it. */
export function revenuecatErrorResponse(error: AppError, requestId: string): APIGatewayProxyResult {
  const { status } = revenuecatRefusalOf(error);
  const retryAfter: Record<string, string> =
    status === 503 && !error.headers?.['Retry-After'] ? { 'Retry-After': '1' } : {};
  return jsonResponse(status, revenuecatErrorBody(error, requestId), {
    ...error.headers,
    ...retryAfter,
    'X-Request-Id': requestId,
  });
}

/**
 * The refusals of the attributes endpoint: attributes not kept (details at `body.attributes.<key>`)
 * are RevenueCat's 7263 with `attribute_errors`, which the SDKs log by key; any other refusal as
 * every endpoint's. Its own, so that no other bundle carries it.
 */
export function revenuecatAttributesErrorResponse(error: AppError, requestId: string): APIGatewayProxyResult {
  const attributeErrors = (error.details ?? []).flatMap(({ path, message }) =>
    path.startsWith(ATTRIBUTE_PATH) ? [{ key_name: path.slice(ATTRIBUTE_PATH.length), message }] : [],
  );
  if (attributeErrors.length === 0) return revenuecatErrorResponse(error, requestId);
  const body: RevenueCatErrorBody = {
    ...revenuecatErrorBody(error, requestId),
    code: REVENUECAT_CODES.invalidSubscriberAttributes,
    attribute_errors: attributeErrors,
  };
  return jsonResponse(400, body, { 'X-Request-Id': requestId });
}
