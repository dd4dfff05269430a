/** Standard Webhooks signatures (https://www.standardwebhooks.com), via the reference library. */
import { Webhook } from 'standardwebhooks';

export interface SignedRequest {
  headers: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;
  body: string;
}

/** `webhook-id` is the event id (the same on every retry); the signature is v1 HMAC-SHA256 of id.timestamp.body. */
export function signWebhook(secret: string, eventId: string, payload: unknown, at: Date): SignedRequest {
  const body = JSON.stringify(payload);
  return {
    headers: {
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(eventId, at, body),
    },
    body,
  };
}
