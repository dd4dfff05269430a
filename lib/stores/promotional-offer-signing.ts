/**
 * Signing an App Store promotional offer with the app's In-App Purchase key (the one the App Store
 * Server API uses): ECDSA P-256 with SHA-256 over lib/domain/promotional-offer.ts's payload, in
 * the DER form StoreKit takes, base64; a new nonce each time.
 */
import { randomUUID, sign } from 'node:crypto';
import { type PromotionalOfferTerms, promotionalOfferPayload } from '../domain/promotional-offer.js';

export interface PromotionalOfferSignature {
  signature: string;
  nonce: string;
  timestamp: number;
}

export function signPromotionalOffer(
  privateKeyPem: string,
  terms: Omit<PromotionalOfferTerms, 'nonce' | 'timestamp'>,
  now: number = Date.now(),
): PromotionalOfferSignature {
  const nonce = randomUUID();
  const payload = promotionalOfferPayload({ ...terms, nonce, timestamp: now });
  const signature = sign('sha256', Buffer.from(payload, 'utf8'), { key: privateKeyPem, dsaEncoding: 'der' });
  return { signature: signature.toString('base64'), nonce, timestamp: now };
}
