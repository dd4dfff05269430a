/**
 * Redaction of secrets and personal data from log output: API keys, bearer tokens, webhook
 * secrets, user-token secrets and tokens, receipts (base64, JWS), private keys and email addresses. Every log line goes through
 * it (lib/core/logger.ts), so an error message that happens to echo a request cannot leak one.
 */

/** Fields whose whole value is sensitive, whatever it looks like (compared lower-cased, without - and _). */
const SENSITIVE_FIELDS = new Set(
  [
    'authorization',
    'x-api-key',
    'api_key',
    'secret',
    'secret_key',
    'sdk_key',
    'key',
    'password',
    'token',
    'purchase_token',
    'receipt',
    'receipt_data',
    'signed_payload',
    'signed_transaction',
    'private_key',
    'email',
    'webhook_secret',
    'x-user-token',
    'user_token',
    'user_token_secret',
  ].map((name) => name.replace(/[-_]/g, '')),
);

const PATTERNS: [RegExp, string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[REDACTED PRIVATE KEY]'],
  [/\bBearer\s+[^\s"',;]+/gi, 'Bearer [REDACTED]'],
  // Our API keys (sk_/pk_ + 43 base64url characters) and webhook secrets (whsec_ + base64).
  [/\b(sk|pk)_[A-Za-z0-9_-]{16,}/g, '$1_[REDACTED]'],
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, 'whsec_[REDACTED]'],
  // User-token secrets (ust_ + base64url) and the mobile API's signed user tokens (v1.<exp>.<signature>).
  [/\bust_[A-Za-z0-9_-]{16,}/g, 'ust_[REDACTED]'],
  [/\bv1\.[0-9]{1,12}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, 'v1.[REDACTED USER TOKEN]'],
  // JWS / JWT (App Store signed transactions, Google tokens): header.payload.signature.
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[REDACTED JWS]'],
  // Long base64 runs: App Store receipts, test-store receipts, purchase tokens.
  [/[A-Za-z0-9+/_-]{64,}={0,2}/g, '[REDACTED BASE64]'],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, '[REDACTED EMAIL]'],
];

export function redactText(text: string): string {
  return PATTERNS.reduce((redacted, [pattern, replacement]) => redacted.replace(pattern, replacement), text);
}

const isSensitiveField = (name: string): boolean => SENSITIVE_FIELDS.has(name.toLowerCase().replace(/[-_]/g, ''));

/** A JSON.stringify replacer: sensitive fields vanish whole, every other string is scrubbed. */
export function redactLogValue(key: string, value: unknown): unknown {
  if (key !== '' && isSensitiveField(key) && value !== null && value !== undefined) return '[REDACTED]';
  return typeof value === 'string' ? redactText(value) : value;
}
