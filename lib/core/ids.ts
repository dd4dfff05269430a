/** Identifiers and secrets. Keys are random (256 bits), shown once, and stored only as SHA-256. */
import { createHash, randomBytes } from 'node:crypto';

export const newAppId = (): string => `app_${randomBytes(8).toString('hex')}`;
export const newSubscriptionId = (): string => `sub_${randomBytes(12).toString('hex')}`;

export type ApiKeyKind = 'secret' | 'sdk';

/** Prefixes make a leaked key recognisable (secret scanners, logs): sk_ server-side, pk_ in apps. */
export const API_KEY_PREFIX: Record<ApiKeyKind, string> = { secret: 'sk_', sdk: 'pk_' };

export function newApiKey(kind: ApiKeyKind): string {
  return `${API_KEY_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** A key's public identifier: its kind prefix and the first 12 hex digits of its hash. */
export const apiKeyId = (kind: ApiKeyKind, hash: string): string => `${API_KEY_PREFIX[kind]}id_${hash.slice(0, 12)}`;

export const newEventId = (): string => `evt_${randomBytes(12).toString('hex')}`;

/** Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The HMAC secret an app's server signs user tokens with (lib/domain/user-token.ts): `ust_` + base64url of 32 random bytes. */
export const newUserTokenSecret = (): string => `ust_${randomBytes(32).toString('base64url')}`;
