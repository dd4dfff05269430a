/**
 * API key authentication and the request's count against its rate limit.
 *
 * Subscription API (secret keys): one write both finds the key and counts the request on the
 * key's item (lib/data/rate-limits.ts countKeyRequest), so a revocation holds from the next request.
 *
 * Mobile API (sdk keys, shared by every install of an app): the key is read, not written, and a
 * warm instance keeps what it read for KEY_CACHE_TTL_SECONDS (at most 60; a revoked sdk key
 * works on a warm instance until its copy is that old); the request is counted per user of the
 * app (`countMobileRequest`), once the mobile headers named the user.
 *
 * Either way, a key this instance found unknown is refused without I/O for KEY_CACHE_TTL_SECONDS.
 * A secret key this instance has not counted yet is first read (eventually consistent, half a read
 * unit): a made-up key costs that read, never a write (docs/security.md#outbound-store-calls).
 */

import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import type { ApiKeyKind } from '../core/ids.js';
import { sha256Hex } from '../core/ids.js';
import type { ApiKeyRecord } from '../data/api-keys.js';
import { apiKeyExists, countKeyRequest, countUserRequest, readApiKey } from '../data/rate-limits.js';
import type { Caller } from '../domain/callers.js';
import { DEFAULT_RATE_LIMIT_TIER, rateLimitPolicyHeader } from '../domain/rate-limit.js';
import { checkUserToken, type UserTokenCheck } from '../domain/user-token.js';
import { limitRequest, refuseIfExhausted } from './rate-limit.js';

/** Keys remembered per instance in each cache; a full cache starts over (memory stays bounded under a flood of made-up keys). */
export const MAX_REMEMBERED_KEYS = 1000;
/** Key hashes this instance found to name no key, until when it may say so without asking. */
const unknownKeys = new Map<string, number>();
/** How long a key missing from an eventually consistent read is refused without asking again. */
export const EVENTUAL_MISS_MS = 1000;
/** Secret key hashes this instance found stored: their requests go straight to the counting write. */
const storedSecretKeys = new Set<string>();
/** Sdk keys as this instance read them (any status), by hash, until when it may use the copy. */
const readKeys = new Map<string, { record: ApiKeyRecord; until: number }>();

const invalidKey = (kind: ApiKeyKind) =>
  new AppError(
    'INVALID_API_KEY',
    kind === 'secret' ? 'API key is invalid, revoked, or not a secret key' : 'API key is invalid or revoked',
  );

/** The caller behind an active key of the expected kind, or INVALID_API_KEY (401). */
function callerOf(record: ApiKeyRecord, kind: ApiKeyKind): Caller {
  if (record.status !== 'active' || record.kind !== kind) throw invalidKey(kind);
  return {
    appId: record.app_id,
    keyId: record.key_id,
    kind: record.kind,
    tier: record.tier ?? DEFAULT_RATE_LIMIT_TIER,
  };
}

/** Refuses a key this instance found unknown within KEY_CACHE_TTL_SECONDS, and any oversized one, without I/O. */
function refuseIfKnownUnknown(rawKey: string, kind: ApiKeyKind, nowMs: number): string {
  // Cheap rejection of obviously wrong input before any I/O (and of oversized headers).
  if (rawKey.length > 200) throw invalidKey(kind);
  const keyHash = sha256Hex(rawKey);
  if ((unknownKeys.get(keyHash) ?? 0) > nowMs) throw invalidKey(kind);
  return keyHash;
}

function rememberUnknown(
  keyHash: string,
  kind: ApiKeyKind,
  nowMs: number,
  forMs = config.keyCacheTtlSeconds * 1000,
): never {
  // With a TTL of 0 the entry is stale at once: kept, it only holds memory, which the bound limits.
  if (unknownKeys.size >= MAX_REMEMBERED_KEYS) unknownKeys.clear();
  unknownKeys.set(keyHash, nowMs + forMs);
  throw invalidKey(kind);
}

export interface Authenticated {
  caller: Caller;
  headers: Record<string, string>;
  /** Set when the key's app requires signed user tokens (sdk keys only): the secret to check them with. */
  userTokenSecret: string | undefined;
}

/**
 * Subscription API: the app behind an active secret key (else 401 INVALID_API_KEY), with the
 * request counted against the key's rate limit (past it, 429 RATE_LIMITED) and the RateLimit
 * headers every response to it carries.
 */
export async function authenticateAndLimit(
  rawKey: string,
  kind: 'secret',
  nowMs: number = Date.now(),
): Promise<Authenticated> {
  const keyHash = refuseIfKnownUnknown(rawKey, kind, nowMs);
  const counter = `secret:${keyHash}`;
  refuseIfExhausted(counter, nowMs);
  // The counting write fails its condition on a key that does not exist, and a failed conditional
  // write still costs a write unit: a key not seen here yet is read first.
  if (!storedSecretKeys.has(keyHash)) {
    // An eventually consistent read can miss a key issued within the last second: such a miss is
    // remembered for a second, so a new key works a second after it is issued, not a TTL later.
    if (!(await apiKeyExists(keyHash))) rememberUnknown(keyHash, kind, nowMs, EVENTUAL_MISS_MS);
    if (storedSecretKeys.size >= MAX_REMEMBERED_KEYS) storedSecretKeys.clear();
    storedSecretKeys.add(keyHash);
  }
  const counted = await countKeyRequest(keyHash, nowMs);
  if (!counted) {
    storedSecretKeys.delete(keyHash);
    rememberUnknown(keyHash, kind, nowMs);
  }
  const caller = callerOf(counted.key, kind);
  return {
    caller,
    headers: limitRequest(counter, caller.tier, counted.window, nowMs),
    userTokenSecret: counted.key.user_token_secret,
  };
}

/**
 * Mobile API: the app behind an active sdk key (else 401 INVALID_API_KEY), read from this
 * instance's copy while it is younger than KEY_CACHE_TTL_SECONDS, else from the table. Nothing
 * is counted yet: `headers` is the RateLimit-Policy that applies to the app's users.
 */
export async function authenticateSdkKey(rawKey: string, nowMs: number = Date.now()): Promise<Authenticated> {
  const keyHash = refuseIfKnownUnknown(rawKey, 'sdk', nowMs);
  let record = readKeys.get(keyHash);
  if (!record || record.until <= nowMs) {
    const stored = await readApiKey(keyHash);
    if (!stored) rememberUnknown(keyHash, 'sdk', nowMs);
    record = { record: stored, until: nowMs + config.keyCacheTtlSeconds * 1000 };
    if (readKeys.size >= MAX_REMEMBERED_KEYS) readKeys.clear();
    readKeys.set(keyHash, record);
  }
  const caller = callerOf(record.record, 'sdk');
  return {
    caller,
    headers: rateLimitPolicyHeader(caller.tier, config.rateLimits[caller.tier]),
    userTokenSecret: record.record.user_token_secret,
  };
}

/**
 * Mobile API: counts the request against its user's limit (the sdk key's tier, per user of the
 * app named by X-USER-ID); past it 429 RATE_LIMITED, without a write once this instance knows
 * the user's window is exhausted. Returns the RateLimit headers of the user's window.
 */
export async function countMobileRequest(
  caller: Caller,
  userId: string,
  nowMs: number = Date.now(),
): Promise<Record<string, string>> {
  const counter = `user:${caller.appId}#${userId}`;
  refuseIfExhausted(counter, nowMs);
  return limitRequest(counter, caller.tier, await countUserRequest(caller.appId, userId, nowMs), nowMs);
}

/**
 * For an app that requires signed user tokens: X-USER-TOKEN must be the app server's token for
 * this user (absent: 401 MISSING_REQUIRED_HEADER; otherwise not valid: 401 INVALID_USER_TOKEN).
 */
export function requireUserToken(
  token: string | undefined,
  expected: { secret: string; appId: string; userId: string },
  nowMs: number = Date.now(),
): void {
  const value = token?.trim();
  if (!value) throw new AppError('USER_TOKEN_MISSING');
  const check = checkUserToken(value, expected, nowMs);
  if (check !== 'valid') {
    const refusals: Record<Exclude<UserTokenCheck, 'valid'>, string> = {
      malformed: 'X-USER-TOKEN is not a v1 user token (v1.<exp>.<signature>)',
      wrong_signature: 'X-USER-TOKEN was not issued for this X-USER-ID and app',
      expired: 'X-USER-TOKEN has expired',
    };
    throw new AppError('INVALID_USER_TOKEN', refusals[check]);
  }
}

/** `Authorization: Bearer <secret key>` of the subscription API. */
export function bearerToken(authorization: string | undefined): string {
  const match = authorization?.match(/^Bearer[ ]+(\S+)\s*$/i);
  if (!authorization) {
    throw new AppError('API_KEY_MISSING', 'Authorization header with a Bearer secret key is required', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  if (!match) {
    throw new AppError('INVALID_API_KEY', 'Authorization header must be "Bearer <secret key>"', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  return match[1]!;
}
