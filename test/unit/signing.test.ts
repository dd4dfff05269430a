import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newEventId, newWebhookSecret } from '../../lib/core/ids.js';
import { signWebhook } from '../../lib/events/signing.js';

describe('webhook signatures', () => {
  it("are exactly the reference library's, and verify with it, for any payload and time", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (payload, at) => {
          const secret = newWebhookSecret();
          const eventId = newEventId();
          const { headers, body } = signWebhook(secret, eventId, payload, at);
          const reference = new Webhook(secret);
          expect(headers['webhook-signature']).toBe(reference.sign(eventId, at, body));
          expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
          expect(body).toBe(JSON.stringify(payload));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('verify with the reference library as a receiver does (timestamp within its tolerance)', () => {
    const secret = newWebhookSecret();
    const { headers, body } = signWebhook(secret, newEventId(), { event: 'subscription.status_changed' }, new Date());
    expect(new Webhook(secret).verify(body, headers)).toEqual({ event: 'subscription.status_changed' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('refuses to sign with an empty secret, with or without the whsec_ prefix', () => {
    for (const secret of ['whsec_', ''])
      expect(() => signWebhook(secret, newEventId(), {}, new Date())).toThrow('webhook secret is empty');
  });
});
