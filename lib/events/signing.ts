/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` + base64 of the
 * HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes (the base64 after `whsec_`).
 * Signed with node:crypto rather than the reference library, which bundles its own JavaScript
 * SHA-256 and base64 (docs/decisions/webhook-signing.md); the tests verify every delivery, and these
 * signatures, with the reference library (test/unit/signing.test.ts, test/support/webhook-receiver.ts).
 */
import { createHmac } from 'node:crypto';

export interface SignedRequest {
  headers: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;
  body: string;
}

const SECRET_PREFIX = 'whsec_';

/** `webhook-id` is the event id (the same on every retry). */
export function signWebhook(secret: string, eventId: string, payload: unknown, at: Date): SignedRequest {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  const signature = createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64');
  return {
    headers: { 'webhook-id': eventId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` },
    body,
  };
}
