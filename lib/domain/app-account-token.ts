/**
 * The account a purchase was made for (pure). An app may name the buyer at purchase time: StoreKit 2's
 * `appAccountToken` (a UUID), Google Play's `obfuscatedExternalAccountId` (a string of up to 64
 * characters). The store signs it into every transaction of the purchase, so it says whose the
 * purchase is better than whoever presents the receipt: a purchase carrying one is bound only to
 * the user it was made for, whatever the app's restore policy.
 *
 * The token of a user is UUIDv5 (RFC 9562, SHA-1) of the UTF-8 name `<app_id>:<user_id>` in the
 * namespace APP_ACCOUNT_TOKEN_NAMESPACE, written as a lowercase UUID string; the same string is
 * the user's obfuscatedExternalAccountId on Google Play. Apps compute it the same way (any UUIDv5
 * library, or the worked example of docs/store-verification.md to check theirs).
 */
import { createHash } from 'node:crypto';

/**
 * The namespace of account tokens: UUIDv5 of `https://subscription-backend/app-account-token` in
 * RFC 9562's URL namespace (6ba7b811-9dad-11d1-80b4-00c04fd430c8); a constant, so that a token
 * once given to a store never changes.
 */
export const APP_ACCOUNT_TOKEN_NAMESPACE = '2f694459-cded-58fc-83f6-fffbcdd41979';

export const isUuid = (value: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** UUIDv5 (RFC 9562 section 5.5): SHA-1 of the namespace's 16 bytes and the name, version and variant set. */
export function uuidV5(name: string, namespace: string): string {
  if (!isUuid(namespace)) throw new Error(`namespace ${namespace} is not a UUID`);
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The appAccountToken (and obfuscatedExternalAccountId) of a user of an app. */
export const appAccountTokenFor = (appId: string, userId: string): string =>
  uuidV5(`${appId}:${userId}`, APP_ACCOUNT_TOKEN_NAMESPACE);

/** Whether a token is a version-5 UUID, as every token of ours is. */
const isOurs = (token: string): boolean => isUuid(token) && token.charAt(14) === '5';

/**
 * Whether a purchase whose transactions carry `token` (null: none) may be bound to this user: a
 * token of ours (version 5) only to its user. Any other token is not an account of ours and binds
 * nothing: the purchase is owned as one without a token (first verified, then the restore policy).
 * The DingYue SDK makes every purchase for its device id (StoreKit's applicationUsername, a random,
 * version-4 UUID), which a restore on the user's next device must be able to move.
 * Tokens are compared as UUIDs, whatever their letter case (Swift's UUID prints upper case).
 */
export const accountTokenAllows = (token: string | null, appId: string, userId: string): boolean =>
  token === null || !isOurs(token) || token.toLowerCase() === appAccountTokenFor(appId, userId);
