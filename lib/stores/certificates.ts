import type { X509Certificate } from 'node:crypto';

/**
 * Whether a certificate is valid at `at` (ms), give or take `skewMs`. Fails closed: the dates are
 * node's parse of the DER (never of OpenSSL's text, which reads the year 0030 as 2030), and a date
 * that could not be parsed is NaN, which no comparison lets through.
 */
export function isValidAt(certificate: X509Certificate, at: number, skewMs = 0): boolean {
  const from = certificate.validFromDate.getTime();
  const to = certificate.validToDate.getTime();
  return from <= at + skewMs && to >= at - skewMs;
}
