/**
 * API key authentication, and the request's count against the key's rate limit, in one write:
 * a key is found by its SHA-256, and the conditional update that counts the request on the key's
 * item (lib/data/rate-limits.ts) returns the key as stored, so a revocation takes effect at the
 * next request. A key this instance found unknown is refused without I/O for
 * KEY_CACHE_TTL_SECONDS (a flood of made-up keys costs one failed conditional write per key).
 */

import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import type { ApiKeyRecord } from '../data/apps.js';
import type { ApiKeyKind } from '../data/keys.js';
import { countKeyRequest } from '../data/rate-limits.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';
import { checkUserToken, type UserTokenCheck } from '../domain/user-token.js';
import { limitRequest, refuseIfExhausted } from './rate-limit.js';

export interface Caller {
  appId: string;
  keyId: string;
  kind: ApiKeyKind;
  /** Decides the key's rate limit. */
  tier: RateLimitTier;
}

const MAX_REMEMBERED_UNKNOWN = 1000;
/** Key hashes this instance found to name no key, until when it may say so without asking. */
const unknownKeys = new Map<string, number>();

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

export interface Authenticated {
  caller: Caller;
  headers: Record<string, string>;
  /** Set when the key's app requires signed user tokens (sdk keys only): the secret to check them with. */
  userTokenSecret: string | undefined;
}

/**
 * The app behind an active key of the expected kind (else 401 INVALID_API_KEY), with the request
 * counted against the key's rate limit (past it, 429 RATE_LIMITED) and the RateLimit headers
 * every response to it carries.
 */
export async function authenticateAndLimit(
  rawKey: string,
  kind: ApiKeyKind,
  nowMs: number = Date.now(),
): Promise<Authenticated> {
  // Cheap rejection of obviously wrong input before any I/O (and of oversized headers).
  if (rawKey.length > 200) throw invalidKey(kind);
  const keyHash = sha256Hex(rawKey);
  refuseIfExhausted(keyHash, kind, nowMs);
  if ((unknownKeys.get(keyHash) ?? 0) > nowMs) throw invalidKey(kind);
  const counted = await countKeyRequest(keyHash, nowMs);
  if (!counted) {
    if (config.keyCacheTtlSeconds > 0) {
      if (unknownKeys.size >= MAX_REMEMBERED_UNKNOWN) unknownKeys.clear();
      unknownKeys.set(keyHash, nowMs + config.keyCacheTtlSeconds * 1000);
    }
    throw invalidKey(kind);
  }
  const caller = callerOf(counted.key, kind);
  return {
    caller,
    headers: limitRequest(keyHash, caller, counted.window, nowMs),
    userTokenSecret: counted.key.user_token_secret,
  };
}

const USER_TOKEN_REFUSALS: Record<Exclude<UserTokenCheck, 'valid'>, string> = {
  malformed: 'X-USER-TOKEN is not a v1 user token (v1.<exp>.<signature>)',
  wrong_signature: 'X-USER-TOKEN was not issued for this X-USER-ID and app',
  expired: 'X-USER-TOKEN has expired',
};

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
  if (check !== 'valid') throw new AppError('INVALID_USER_TOKEN', USER_TOKEN_REFUSALS[check]);
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
