/**
 * API key authentication, and the request's count against the key's rate limit, in one write:
 * a key is found by its SHA-256, and the conditional update that counts the request on the key's
 * item (lib/data/rate-limits.ts) returns the key as stored, so a revocation takes effect at the
 * next request. A key this instance found unknown is refused without I/O for
 * KEY_CACHE_TTL_SECONDS (a flood of made-up keys costs one failed conditional write per key).
 */
import { countKeyRequest } from '../data/rate-limits.js';
import type { ApiKeyRecord } from '../data/apps.js';
import type { ApiKeyKind } from '../data/keys.js';
import { config } from '../config.js';
import { AppError } from '../errors.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';
import { sha256Hex } from '../ids.js';
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
  new AppError('INVALID_API_KEY', kind === 'secret' ? 'API key is invalid, revoked, or not a secret key' : 'API key is invalid or revoked');

/** The caller behind an active key of the expected kind, or INVALID_API_KEY (401). */
function callerOf(record: ApiKeyRecord, kind: ApiKeyKind): Caller {
  if (record.status !== 'active' || record.kind !== kind) throw invalidKey(kind);
  return { appId: record.app_id, keyId: record.key_id, kind: record.kind, tier: record.tier ?? DEFAULT_RATE_LIMIT_TIER };
}

/**
 * The app behind an active key of the expected kind (else 401 INVALID_API_KEY), with the request
 * counted against the key's rate limit (past it, 429 RATE_LIMITED) and the RateLimit headers
 * every response to it carries.
 */
export async function authenticateAndLimit(rawKey: string, kind: ApiKeyKind, nowMs: number = Date.now()): Promise<{ caller: Caller; headers: Record<string, string> }> {
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
  return { caller, headers: limitRequest(keyHash, caller, counted.window, nowMs) };
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
