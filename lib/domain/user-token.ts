/**
 * Signed user tokens of the mobile API. The sdk key ships inside the app, so it proves nothing
 * about the user: an app that requires user tokens accepts a request acting on X-USER-ID only
 * with an X-USER-TOKEN that the app's own server issued for that user id.
 *
 *   X-USER-TOKEN = "v1." + exp + "." + base64url(HMAC-SHA256(secret, message))   (no padding)
 *   message      = "v1." + app_id + "." + exp + "." + user_id
 *
 * - secret: the app's user-token secret exactly as the CLI prints it (`ust_...`); its UTF-8 bytes
 *   are the HMAC key.
 * - exp: Unix time in seconds, decimal without leading zeros; the token is refused from that
 *   second on.
 * - user_id: X-USER-ID as the server reads it (surrounding whitespace trimmed), UTF-8.
 * The user id comes last and the app id and exp hold no dot, so no two (app, exp, user) triples
 * give one message. Binding the app id keeps a secret reused across apps from carrying a token
 * over; the version prefix leaves room for another construction later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Largest exp the format carries. */
export const MAX_USER_TOKEN_EXP = 999_999_999_999;

function signature(secret: string, appId: string, userId: string, exp: string): string {
  return createHmac('sha256', secret).update(`v1.${appId}.${exp}.${userId}`, 'utf8').digest('base64url');
}

/** The token the app's server gives its user (what the example of docs/security.md computes). */
export function signUserToken(secret: string, appId: string, userId: string, expSeconds: number): string {
  if (!Number.isInteger(expSeconds) || expSeconds < 1 || expSeconds > MAX_USER_TOKEN_EXP)
    throw new RangeError('exp must be whole seconds in 1..999999999999');
  return `v1.${expSeconds}.${signature(secret, appId, userId, String(expSeconds))}`;
}

export type UserTokenCheck = 'valid' | 'malformed' | 'wrong_signature' | 'expired';

/**
 * Whether `token` was issued with `secret` for this app and user and is still valid at `nowMs`.
 * The signature is compared in constant time, as text: a base64url spelling other than the one
 * the server computes (non-zero trailing bits) is refused rather than decoded to the same bytes.
 * Expiry is judged only for a genuine token, so "expired" reveals nothing about forgeries.
 */
export function checkUserToken(
  token: string,
  expected: { secret: string; appId: string; userId: string },
  nowMs: number,
): UserTokenCheck {
  // exp of 1 to 12 digits (within Number's exact integers), then 32 bytes in base64url.
  const match = /^v1\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return 'malformed';
  const [, exp, given] = match as unknown as [string, string, string];
  const wanted = signature(expected.secret, expected.appId, expected.userId, exp);
  // Both are 43 ASCII characters (the pattern above, and a SHA-256 in base64url).
  if (!timingSafeEqual(Buffer.from(given, 'latin1'), Buffer.from(wanted, 'latin1'))) return 'wrong_signature';
  return Number(exp) * 1000 <= nowMs ? 'expired' : 'valid';
}
