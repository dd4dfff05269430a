import type { X509Certificate } from 'node:crypto';

/**
 * Whether a certificate is valid at `at` (ms), give or take `skewMs`. Fails closed: the dates
 * compared are node's parse of the DER (never of OpenSSL's text, which reads the year 0030 as
 * 2030), and only when OpenSSL could read them too: for a date it cannot read ("Bad time value")
 * node's Date is not reliably invalid (seen once as a real date in a full test run).
 */
export function isValidAt(certificate: X509Certificate, at: number, skewMs = 0): boolean {
  if (!readable(certificate.validFrom) || !readable(certificate.validTo)) return false;
  const from = certificate.validFromDate.getTime();
  const to = certificate.validToDate.getTime();
  return from <= at + skewMs && to >= at - skewMs;
}

const readable = (openSslText: string): boolean => Number.isFinite(Date.parse(openSslText));
