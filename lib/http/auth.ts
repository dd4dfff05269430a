/**
 * API key authentication. A key is looked up by its SHA-256; a warm function caches the lookup for
 * KEY_CACHE_TTL_SECONDS (so a revocation takes effect within that time in AWS).
 */
import { findApiKey, type ApiKeyRecord } from '../data/apps.js';
import type { ApiKeyKind } from '../data/keys.js';
import { config } from '../config.js';
import { AppError } from '../errors.js';
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from '../domain/rate-limit.js';

export interface Caller {
  appId: string;
  keyId: string;
  kind: ApiKeyKind;
  /** Decides the key's rate limit. */
  tier: RateLimitTier;
}

const MAX_CACHED_KEYS = 1000;
const cache = new Map<string, { record: ApiKeyRecord | undefined; until: number }>();

async function lookup(rawKey: string): Promise<ApiKeyRecord | undefined> {
  const ttlMs = config.keyCacheTtlSeconds * 1000;
  const now = Date.now();
  const hit = cache.get(rawKey);
  if (hit && hit.until > now) return hit.record;
  const record = await findApiKey(rawKey);
  if (ttlMs > 0) {
    if (cache.size >= MAX_CACHED_KEYS) cache.clear();
    cache.set(rawKey, { record, until: now + ttlMs });
  }
  return record;
}

/** The app behind an active key of the expected kind, or INVALID_API_KEY (401). */
export async function authenticateKey(rawKey: string, kind: ApiKeyKind): Promise<Caller> {
  // Cheap rejection of obviously wrong input before any I/O (and of oversized headers).
  if (rawKey.length > 200) throw new AppError('INVALID_API_KEY');
  const record = await lookup(rawKey);
  if (!record || record.status !== 'active' || record.kind !== kind) {
    throw new AppError('INVALID_API_KEY', kind === 'secret' ? 'API key is invalid, revoked, or not a secret key' : 'API key is invalid or revoked');
  }
  return { appId: record.app_id, keyId: record.key_id, kind: record.kind, tier: record.tier ?? DEFAULT_RATE_LIMIT_TIER };
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
