/**
 * Google Play Real-Time Developer Notifications: Pub/Sub pushes a message whose data is the
 * DeveloperNotification (base64 JSON) to POST /notifications/google-play/{app_id}, with an OIDC
 * token Google signed for the push subscription's service account and audience. A notification
 * only says that something changed: the purchase's state is always read again from
 * purchases.subscriptionsv2.get, so a forged notification could at worst cause a re-read (and is
 * refused before that when its token is not Google's).
 */
import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { type HttpAnswer, httpSend } from '../core/http-client.js';
import { isJsonObject, parseBase64urlJson } from '../core/json.js';
import { logger } from '../core/logger.js';
import { type StoredGoogleKeys, saveGoogleOidcKeys, saveGoogleOidcKeysFailure } from '../data/google-oidc-keys.js';
import type { GooglePlayPushSettings, GooglePlaySettings } from '../data/store-settings.js';
import { MAX_NOTIFICATION_BYTES, type StoreNotification, type StorePurchaseState } from '../domain/store-purchase.js';
import {
  configuredEndpoints,
  type GoogleEndpoints,
  PURCHASE_TOKEN_PATTERN,
  purchaseStateOf,
  readSubscriptionPurchase,
} from './google-play.js';

export { googlePurchaseState } from './google-play.js';

const invalid = (why: string) => new AppError('INVALID_NOTIFICATION', why);
const unavailable = (message: string, cause?: unknown) =>
  new AppError('VERIFICATION_FAILED', message, { retryable: true, cause });

// ---------------------------------------------------------------------------------------------
// The push's OIDC token

/** Clock difference tolerated between Google and this function. */
const SKEW_SECONDS = 60;
/** Google rotates its keys every few weeks and publishes the next ones ahead: an hour-old set is fresh enough. */
const JWKS_MAX_AGE_MS = 60 * 60_000;
/** A token naming a key we do not have refetches the set, at most this often (forged kids cost one fetch a minute). */
const JWKS_REFETCH_INTERVAL_MS = 60_000;
const MAX_TOKEN_LENGTH = 8192;

interface KeySet {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
}
/** By JWKS URL, kept while the function is warm. */
const keySets = new Map<string, KeySet>();
const fetching = new Map<string, Promise<KeySet>>();
/**
 * A failed fetch is not repeated for this long (by JWKS URL: when it failed, ms), here and, through
 * the table, in every other instance: tokens naming made-up key ids cannot make each push fetch.
 */
export const JWKS_FAILURE_MEMORY_MS = 30_000;
const failedFetches = new Map<string, number>();

/** Whether this process holds Google's keys from this URL (then a push's token is checked before anything is read). */
export const holdsGoogleOidcKeys = (url: string): boolean => keySets.has(url);

/** The RSA keys of a JWKS with a kid that Node can use, and the JWKs they came from. */
function usableKeys(jwks: readonly unknown[]): { keys: Map<string, KeyObject>; used: Record<string, unknown>[] } {
  const keys = new Map<string, KeyObject>();
  const used: Record<string, unknown>[] = [];
  for (const entry of jwks) {
    const jwk = entry as (Record<string, unknown> & { kid?: unknown }) | null;
    if (typeof jwk?.kid !== 'string' || jwk.kty !== 'RSA') continue;
    try {
      keys.set(jwk.kid, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
      used.push(jwk);
    } catch {
      // a key we cannot use is as good as absent
    }
  }
  return { keys, used };
}

/** A fetch that failed: remembered here and in the table (best effort), then refused as unavailable. */
function fetchFailed(url: string, now: number, error: AppError): Promise<never> {
  failedFetches.set(url, now);
  return saveGoogleOidcKeysFailure(url, now)
    .catch((cause: unknown) =>
      logger.warn("a failed fetch of Google's OIDC keys could not be kept in the table", {
        error: (cause as Error).message,
      }),
    )
    .then(() => Promise.reject(error));
}

async function fetchKeySet(url: string, now: number): Promise<KeySet> {
  try {
    const set = await fetchKeySetOnce(url, now);
    failedFetches.delete(url);
    return set;
  } catch (error) {
    return fetchFailed(url, now, error as AppError);
  }
}

async function fetchKeySetOnce(url: string, now: number): Promise<KeySet> {
  let response: HttpAnswer;
  try {
    response = await httpSend(url, { headers: { accept: 'application/json' }, timeoutMs: config.storeTimeoutMs });
  } catch (error) {
    throw unavailable(`Google's OIDC keys could not be read (${(error as Error).message}); retry`, error);
  }
  if (!response.ok) throw unavailable(`Google's OIDC keys could not be read (HTTP ${response.status}); retry`);
  let body: { keys?: unknown };
  try {
    body = (await response.json()) as { keys?: unknown };
  } catch (error) {
    throw unavailable("Google's OIDC keys are unreadable; retry", error);
  }
  // Stryker disable next-line ArrayDeclaration: a list of strings holds no key either, usableKeys skips them
  const { keys, used } = usableKeys(Array.isArray(body?.keys) ? body.keys : []);
  if (keys.size === 0) throw unavailable("Google's OIDC key set holds no RSA key; retry");
  const set = { keys, fetchedAt: now };
  keySets.set(url, set);
  // For the next cold process. Only a cache: a push is not refused because it could not be written.
  await saveGoogleOidcKeys(url, { keys: used, fetched_at: now }).catch((error: unknown) =>
    logger.warn("Google's OIDC keys could not be kept in the table", { error: (error as Error).message }),
  );
  return set;
}

/**
 * Takes the key set kept in the table (read with the app's settings) as this process's own,
 * unless the process holds one fetched later. The freshness rules of a fetched set apply.
 */
export function rememberGoogleOidcKeys(url: string, stored: StoredGoogleKeys | undefined): void {
  if (stored?.fetch_failed_at !== undefined && stored.fetch_failed_at > (failedFetches.get(url) ?? -1))
    failedFetches.set(url, stored.fetch_failed_at);
  // Stryker disable next-line UnaryOperator: -1 or 1 for no set, either below any time a set was fetched at
  if (!stored || stored.keys.length === 0 || (keySets.get(url)?.fetchedAt ?? -1) >= stored.fetched_at) return;
  const { keys } = usableKeys(stored.keys);
  if (keys.size > 0) keySets.set(url, { keys, fetchedAt: stored.fetched_at });
}

/** Concurrent pushes of a cold function share one fetch. */
function refreshKeySet(url: string, now: number): Promise<KeySet> {
  const failedAt = failedFetches.get(url);
  if (failedAt !== undefined && now >= failedAt && now - failedAt < JWKS_FAILURE_MEMORY_MS) {
    const seconds = Math.ceil((JWKS_FAILURE_MEMORY_MS - (now - failedAt)) / 1000);
    return Promise.reject(unavailable(`Google's OIDC keys could not be read moments ago; retry in ${seconds} s`));
  }
  let pending = fetching.get(url);
  if (!pending) {
    pending = fetchKeySet(url, now).finally(() => fetching.delete(url));
    fetching.set(url, pending);
  }
  return pending;
}

async function keyFor(kid: string, url: string, now: number): Promise<KeyObject> {
  let set = keySets.get(url);
  const fresh = set !== undefined && now - set.fetchedAt < JWKS_MAX_AGE_MS;
  const known = set?.keys.get(kid);
  if (fresh && known) return known;
  if (!set || !fresh || now - set.fetchedAt >= JWKS_REFETCH_INTERVAL_MS) set = await refreshKeySet(url, now);
  const key = set.keys.get(kid);
  if (!key) throw invalid(`the push token is signed with a key Google does not publish (kid ${kid})`);
  return key;
}

const jsonPart = (part: string, what: string): Record<string, unknown> => {
  try {
    const value = parseBase64urlJson(part);
    if (isJsonObject(value)) return value;
  } catch {
    // reported below
  }
  throw invalid(`the push token's ${what} is not a JSON object`);
};

export interface PushTokenClaims {
  iss: string;
  aud: string;
  sub: string | null;
  email: string | null;
  exp: number;
  iat: number;
}

/**
 * Checks the `Authorization: Bearer <JWT>` of a Pub/Sub push: RS256 signed by a key of Google's
 * JWKS (fetched from `jwksUrl`, cached an hour, refetched for an unknown kid at most once a
 * minute), issued by Google, for `expected.audience`, current (60 s of clock skew), and, when
 * `expected.serviceAccountEmail` is given, for that verified email. `now` is in ms.
 * INVALID_NOTIFICATION with the reason; VERIFICATION_FAILED, retryable, when the keys cannot be read.
 */
export async function verifyPubSubPushToken(
  authorization: string | undefined,
  expected: { audience: string; serviceAccountEmail?: string },
  now: number = Date.now(),
  jwksUrl: string = config.googleOidcJwksUrl,
): Promise<PushTokenClaims> {
  return pushTokenClaimsFor(await verifyGoogleIdToken(authorization, now, jwksUrl), expected);
}

/** A token Google signed and issued, current: what needs no app's settings to tell. */
export interface GoogleIdToken {
  claims: Record<string, unknown>;
}

/**
 * The first half of verifyPubSubPushToken, which needs nothing of the app: Google's signature
 * (RS256, a key of its JWKS), Google as issuer, and the token current. A forged push is refused here,
 * before the app's settings are read.
 */
export async function verifyGoogleIdToken(
  authorization: string | undefined,
  now: number = Date.now(),
  jwksUrl: string = config.googleOidcJwksUrl,
): Promise<GoogleIdToken> {
  if (!authorization)
    throw invalid('the push carries no Authorization bearer token (turn on authentication in the push subscription)');
  if (authorization.length > MAX_TOKEN_LENGTH) throw invalid('the Authorization header is too long');
  const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/i.exec(authorization.trim());
  if (!match) throw invalid('the Authorization header is not a bearer JWT');
  const [, headerPart, payloadPart, signaturePart] = match as unknown as [string, string, string, string];
  const header = jsonPart(headerPart, 'header');
  if (header.alg !== 'RS256') throw invalid(`the push token is not RS256-signed (alg ${String(header.alg)})`);
  if (typeof header.kid !== 'string' || header.kid.length === 0 || header.kid.length > 256)
    throw invalid('the push token names no key (kid)');
  const key = await keyFor(header.kid, jwksUrl, now);
  const signed = verify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    key,
    Buffer.from(signaturePart, 'base64url'),
  );
  if (!signed) throw invalid("the push token signature does not verify with Google's key");
  const claims = jsonPart(payloadPart, 'payload');
  if (claims.iss !== 'https://accounts.google.com' && claims.iss !== 'accounts.google.com')
    throw invalid(`the push token was not issued by Google (iss ${String(claims.iss)})`);
  const seconds = now / 1000;
  if (typeof claims.exp !== 'number' || claims.exp <= seconds - SKEW_SECONDS)
    throw invalid('the push token has expired');
  if (typeof claims.iat !== 'number' || claims.iat > seconds + SKEW_SECONDS)
    throw invalid('the push token is issued in the future');
  return { claims };
}

/** The second half: the token is for the app's push audience and, when given, its service account. */
export function pushTokenClaimsFor(
  { claims }: GoogleIdToken,
  expected: { audience: string; serviceAccountEmail?: string },
): PushTokenClaims {
  if (claims.aud !== expected.audience)
    throw invalid(`the push token is for another audience (${String(claims.aud)}), not this app's push audience`);
  if (expected.serviceAccountEmail !== undefined) {
    if (claims.email !== expected.serviceAccountEmail)
      throw invalid(`the push token is for another service account (${String(claims.email)})`);
    if (claims.email_verified !== true) throw invalid("the push token's email is not verified");
  }
  return {
    iss: claims.iss as string,
    aud: claims.aud as string,
    sub: typeof claims.sub === 'string' ? claims.sub : null,
    email: typeof claims.email === 'string' ? claims.email : null,
    exp: claims.exp as number,
    iat: claims.iat as number,
  };
}

// ---------------------------------------------------------------------------------------------
// The push body

export interface DeveloperNotification {
  version: string;
  packageName: string;
  /** Milliseconds since the epoch, as a decimal string. */
  eventTimeMillis: string;
  subscriptionNotification?: {
    version: string;
    notificationType: number;
    purchaseToken: string;
    subscriptionId?: string;
  };
  voidedPurchaseNotification?: {
    purchaseToken: string;
    orderId: string;
    /** 1 subscription, 2 one-time product. */
    productType: number;
    /** 1 full refund, 2 quantity-based partial refund. */
    refundType?: number;
  };
  oneTimeProductNotification?: { version: string; notificationType: number; purchaseToken: string; sku: string };
  testNotification?: { version: string };
}

export interface PubSubPush {
  messageId: string;
  publishTime: string;
  subscription: string | null;
  attributes: Record<string, string>;
  notification: DeveloperNotification;
}

type Fields = Record<string, unknown>;

function objectAt(parent: Fields, field: string, where: string): Fields {
  const value = parent[field];
  if (!isJsonObject(value)) throw invalid(`${where}.${field} is not an object`);
  return value;
}

function stringAt(parent: Fields, field: string, where: string, max = 2000): string {
  const value = parent[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    throw invalid(`${where}.${field} is not a string of 1 to ${max} characters`);
  return value;
}

function optionalStringAt(parent: Fields, field: string, where: string): string | undefined {
  return parent[field] === undefined ? undefined : stringAt(parent, field, where);
}

function intAt(parent: Fields, field: string, where: string): number {
  const value = parent[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`${where}.${field} is not an integer`);
  return value;
}

function tokenAt(parent: Fields, field: string, where: string): string {
  const token = stringAt(parent, field, where);
  if (!PURCHASE_TOKEN_PATTERN.test(token)) throw invalid(`${where}.${field} is not a Google Play purchase token`);
  return token;
}

function developerNotification(raw: Fields): DeveloperNotification {
  const where = 'message.data';
  const eventTimeMillis = stringAt(raw, 'eventTimeMillis', where, 20);
  if (!/^\d{1,16}$/.test(eventTimeMillis)) throw invalid(`${where}.eventTimeMillis is not milliseconds`);
  const notification: DeveloperNotification = {
    version: stringAt(raw, 'version', where, 20),
    packageName: stringAt(raw, 'packageName', where, 255),
    eventTimeMillis,
  };
  if (raw.subscriptionNotification !== undefined) {
    const at = `${where}.subscriptionNotification`;
    const sub = objectAt(raw, 'subscriptionNotification', where);
    const subscriptionId = optionalStringAt(sub, 'subscriptionId', at);
    notification.subscriptionNotification = {
      version: stringAt(sub, 'version', at, 20),
      notificationType: intAt(sub, 'notificationType', at),
      purchaseToken: tokenAt(sub, 'purchaseToken', at),
      ...(subscriptionId !== undefined ? { subscriptionId } : {}),
    };
  }
  if (raw.voidedPurchaseNotification !== undefined) {
    const at = `${where}.voidedPurchaseNotification`;
    const voided = objectAt(raw, 'voidedPurchaseNotification', where);
    notification.voidedPurchaseNotification = {
      purchaseToken: tokenAt(voided, 'purchaseToken', at),
      orderId: stringAt(voided, 'orderId', at, 256),
      productType: intAt(voided, 'productType', at),
      ...(voided.refundType !== undefined ? { refundType: intAt(voided, 'refundType', at) } : {}),
    };
  }
  if (raw.oneTimeProductNotification !== undefined) {
    const at = `${where}.oneTimeProductNotification`;
    const oneTime = objectAt(raw, 'oneTimeProductNotification', where);
    notification.oneTimeProductNotification = {
      version: stringAt(oneTime, 'version', at, 20),
      notificationType: intAt(oneTime, 'notificationType', at),
      purchaseToken: tokenAt(oneTime, 'purchaseToken', at),
      sku: stringAt(oneTime, 'sku', at, 256),
    };
  }
  if (raw.testNotification !== undefined) {
    notification.testNotification = { version: stringAt(objectAt(raw, 'testNotification', where), 'version', where) };
  }
  return notification;
}

/**
 * Reads a Pub/Sub push body (the parsed JSON, or its text) and the DeveloperNotification in its
 * base64 `message.data`. Pub/Sub spells the ids both ways (messageId and message_id).
 * INVALID_NOTIFICATION when malformed; PAYLOAD_TOO_LARGE above 64 KB.
 */
export function parsePubSubPush(body: unknown): PubSubPush {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  if (Buffer.byteLength(text) > MAX_NOTIFICATION_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', `a Pub/Sub push is at most ${MAX_NOTIFICATION_BYTES} bytes`);
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      throw invalid('the body is not JSON');
    }
  }
  if (!isJsonObject(parsed)) throw invalid('the body is not a Pub/Sub push (a JSON object with a message)');
  const message = objectAt(parsed, 'message', 'body');
  const messageId =
    optionalStringAt(message, 'messageId', 'message') ?? optionalStringAt(message, 'message_id', 'message');
  if (messageId === undefined || messageId.length > 256) throw invalid('message.messageId is missing');
  const publishTime =
    optionalStringAt(message, 'publishTime', 'message') ?? optionalStringAt(message, 'publish_time', 'message');
  if (publishTime === undefined || Number.isNaN(Date.parse(publishTime)))
    throw invalid('message.publishTime is not a time');
  const attributes: Record<string, string> = {};
  if (message.attributes !== undefined) {
    for (const [name, value] of Object.entries(objectAt(message, 'attributes', 'message'))) {
      if (typeof value !== 'string') throw invalid(`message.attributes.${name} is not a string`);
      attributes[name] = value;
    }
  }
  const data = stringAt(message, 'data', 'message', MAX_NOTIFICATION_BYTES);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) throw invalid('message.data is not base64');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    throw invalid('message.data is not base64 of JSON');
  }
  if (!isJsonObject(decoded)) throw invalid('message.data is not a DeveloperNotification (a JSON object)');
  return {
    messageId,
    publishTime: new Date(publishTime).toISOString(),
    subscription: typeof parsed.subscription === 'string' ? parsed.subscription : null,
    attributes,
    notification: developerNotification(decoded),
  };
}

// ---------------------------------------------------------------------------------------------
// Notification types

/**
 * The type a notification is recorded as: subscriptionNotification.notificationType as Google
 * names it; a code this version does not know keeps its number.
 */
export function subscriptionNotificationType(code: number): string {
  const types: Readonly<Record<number, string>> = {
    1: 'SUBSCRIPTION_RECOVERED',
    2: 'SUBSCRIPTION_RENEWED',
    3: 'SUBSCRIPTION_CANCELED',
    4: 'SUBSCRIPTION_PURCHASED',
    5: 'SUBSCRIPTION_ON_HOLD',
    6: 'SUBSCRIPTION_IN_GRACE_PERIOD',
    7: 'SUBSCRIPTION_RESTARTED',
    8: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
    9: 'SUBSCRIPTION_DEFERRED',
    10: 'SUBSCRIPTION_PAUSED',
    11: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED',
    12: 'SUBSCRIPTION_REVOKED',
    13: 'SUBSCRIPTION_EXPIRED',
    17: 'SUBSCRIPTION_ITEMS_CHANGED',
    18: 'SUBSCRIPTION_CANCELLATION_SCHEDULED',
    19: 'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
    20: 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
    22: 'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED',
  };
  return types[code] ?? `SUBSCRIPTION_${code}`;
}

const PRODUCT_TYPE_SUBSCRIPTION = 1;

// ---------------------------------------------------------------------------------------------
// Decoding

/** A verified Google Play notification. */
export interface GooglePlayNotification extends StoreNotification {
  /**
   * The purchase Google voided (refund, chargeback, revocation), as the notification names it;
   * null for other notifications. When Google no longer answers for the token, `state` is null
   * and this is all there is: the purchase known by original_transaction_id = purchase_token is
   * to be revoked.
   */
  voided: {
    purchase_token: string;
    order_id: string;
    /** 1 subscription, 2 one-time product. */
    product_type: number;
    refund_type: number | null;
  } | null;
}

/** The complete settings: read on demand (after the push is authenticated) or given. */
const complete = (settings: GooglePlaySettings | GooglePlayPushSettings): Promise<GooglePlaySettings> =>
  'withCredentials' in settings ? settings.withCredentials() : Promise.resolve(settings);

/**
 * A push body read once, before its token is checked (its message id names the record read with the
 * app's settings): the push, or why it is none, which is told only once the token has verified.
 */
export type PushBody = { push: PubSubPush } | { refused: unknown };

export function readPushBody(body: unknown): PushBody {
  try {
    return { push: parsePubSubPush(body) };
  } catch (refused) {
    return { refused };
  }
}

/** A Pub/Sub push whose token is Google's for this app and whose notification names the app's package. */
export interface AuthenticatedPush {
  push: PubSubPush;
  /** When the store says the change happened: the notification's eventTimeMillis, else the publish time. */
  sentAt: string;
}

/**
 * Authenticates a Pub/Sub push of the app's RTDN topic, asking Google nothing but its public keys.
 * INVALID_NOTIFICATION: not Google's, not this app's push, or malformed; VERIFICATION_FAILED,
 * retryable: Google's keys could not be read.
 */
export async function authenticateGooglePlayPush(
  body: PushBody,
  authorization: string | undefined,
  settings: GooglePlaySettings | GooglePlayPushSettings,
  endpoints: GoogleEndpoints = configuredEndpoints(),
  now: number = Date.now(),
  /** The token as verifyGoogleIdToken found it already, if it was checked before the settings were read. */
  verified?: GoogleIdToken,
): Promise<AuthenticatedPush> {
  // Both, as Google's push authentication asks: any Google account can get a Google-signed token
  // for any audience, so the audience alone proves nothing; the push subscription's own service
  // account, named in the token's verified email, does.
  if (!settings.push_audience || !settings.push_service_account)
    throw invalid(
      "this app accepts no Google Play notifications yet: set the push subscription's audience and service account with `admin stores google set … --push-audience URL --push-service-account EMAIL`",
    );
  pushTokenClaimsFor(
    verified ?? (await verifyGoogleIdToken(authorization, now, endpoints.jwksUrl ?? config.googleOidcJwksUrl)),
    {
      audience: settings.push_audience,
      serviceAccountEmail: settings.push_service_account,
    },
  );
  if ('refused' in body) throw body.refused;
  const { push } = body;
  const { notification } = push;
  if (notification.packageName !== settings.package_name)
    throw invalid(`the notification is for another app (package ${notification.packageName})`);
  const eventTime = Number(notification.eventTimeMillis);
  const stated = Number.isNaN(new Date(eventTime).getTime()) ? Date.parse(push.publishTime) : eventTime;
  // The push's times are the pusher's word: never later than now, so that no push can date a
  // purchase's state in the future, before which every genuine state would be stale.
  return { push, sentAt: new Date(Math.min(stated, now)).toISOString() };
}

/**
 * An authenticated push's notification, with the purchase's state as Google tells it now.
 * `settings` are the app's Google Play settings, complete or as getAppWithGooglePlayPushSettings
 * gives them: then the credentials are read only now, and only when Google is asked.
 * INVALID_NOTIFICATION: Google does not know the purchase, or it is no subscription;
 * VERIFICATION_FAILED, retryable: the Play API could not be asked.
 */
export async function readGooglePlayNotification(
  { push, sentAt }: AuthenticatedPush,
  settings: GooglePlaySettings | GooglePlayPushSettings,
  endpoints: GoogleEndpoints = configuredEndpoints(),
): Promise<GooglePlayNotification> {
  const { notification } = push;
  const base = { store: 'google_play' as const, notification_id: push.messageId, sent_at: sentAt };
  const result = (
    type: string,
    subtype: string | null,
    state: StorePurchaseState | null,
    voided: GooglePlayNotification['voided'] = null,
  ): GooglePlayNotification => ({
    ...base,
    type,
    subtype,
    environment: state?.environment ?? 'Production',
    state,
    voided,
  });

  const subscription = notification.subscriptionNotification;
  if (subscription) {
    const state = await stateFromGoogle(settings, subscription.purchaseToken, endpoints, sentAt);
    if (state === undefined)
      throw invalid(
        "Google Play does not know the purchase token of this notification (not genuine, or another app's)",
      );
    return result(subscriptionNotificationType(subscription.notificationType), null, state);
  }
  const voidedPurchase = notification.voidedPurchaseNotification;
  if (voidedPurchase) {
    const voided = {
      purchase_token: voidedPurchase.purchaseToken,
      order_id: voidedPurchase.orderId,
      product_type: voidedPurchase.productType,
      refund_type: voidedPurchase.refundType ?? null,
    };
    const refundTypes: Readonly<Record<number, string>> = {
      1: 'REFUND_TYPE_FULL_REFUND',
      2: 'REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND',
    };
    const subtype = refundTypes[voidedPurchase.refundType ?? 0] ?? null;
    // One-time products are not sold through this backend: recorded, nothing changes.
    if (voidedPurchase.productType !== PRODUCT_TYPE_SUBSCRIPTION)
      return result('VOIDED_PURCHASE', subtype, null, voided);
    const state = await stateFromGoogle(settings, voidedPurchase.purchaseToken, endpoints, sentAt);
    // The order voided may be an earlier renewal's: then it refunds that period only (refundsEarlierPeriod).
    const revoked = state ? { ...state, revoked: true, refunded_transaction_id: voidedPurchase.orderId } : null;
    return result('VOIDED_PURCHASE', subtype, revoked, voided);
  }
  const oneTime = notification.oneTimeProductNotification;
  if (oneTime) {
    const oneTimeTypes: Readonly<Record<number, string>> = {
      1: 'ONE_TIME_PRODUCT_PURCHASED',
      2: 'ONE_TIME_PRODUCT_CANCELED',
    };
    return result(oneTimeTypes[oneTime.notificationType] ?? `ONE_TIME_PRODUCT_${oneTime.notificationType}`, null, null);
  }
  if (notification.testNotification) return result('TEST_NOTIFICATION', null, null);
  return result('UNKNOWN_NOTIFICATION', null, null);
}

/**
 * The purchase's state as Google tells it now, dated `asOf`; null: nothing to grant (unpaid);
 * undefined: Google does not know the token.
 */
async function stateFromGoogle(
  settings: GooglePlaySettings | GooglePlayPushSettings,
  purchaseToken: string,
  endpoints: GoogleEndpoints,
  asOf: string,
): Promise<StorePurchaseState | null | undefined> {
  const { purchase } = await readSubscriptionPurchase(await complete(settings), purchaseToken, endpoints);
  if (!purchase) return undefined;
  try {
    return purchaseStateOf(purchase, purchaseToken, asOf);
  } catch (error) {
    // purchaseStateOf's one refusal (INVALID_RECEIPT): a purchase that is no subscription.
    if (!(error instanceof AppError)) throw error;
    throw invalid(`the purchase of this notification is not a subscription (${error.message})`);
  }
}
