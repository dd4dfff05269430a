import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isValidAt } from '../../lib/stores/certificates.js';
import { RECEIPT_ROOT } from '../support/app-receipts.js';

const negative = (name: string) =>
  new X509Certificate(readFileSync(new URL(`../fixtures/app-store-standin/negative/${name}`, import.meta.url)));

describe('certificate dates fail closed (App Store JWS chains and legacy receipt chains alike)', () => {
  it('a certificate is valid between its dates, with the skew given, and not outside them', () => {
    const from = RECEIPT_ROOT.validFromDate.getTime();
    const to = RECEIPT_ROOT.validToDate.getTime();
    expect(isValidAt(RECEIPT_ROOT, from)).toBe(true);
    expect(isValidAt(RECEIPT_ROOT, to)).toBe(true);
    expect(isValidAt(RECEIPT_ROOT, from - 1)).toBe(false);
    expect(isValidAt(RECEIPT_ROOT, to + 1)).toBe(false);
    expect(isValidAt(RECEIPT_ROOT, from - 60_000, 60_000)).toBe(true);
    expect(isValidAt(RECEIPT_ROOT, from - 60_001, 60_000)).toBe(false);
    expect(isValidAt(RECEIPT_ROOT, to + 60_000, 60_000)).toBe(true);
    expect(isValidAt(RECEIPT_ROOT, to + 60_001, 60_000)).toBe(false);
  });

  it.each([
    // OpenSSL prints "Bad time value"; Date.parse of that is NaN, which a check by Date.parse lets through.
    ['leaf-valid-from-month-13.pem', Date.parse('2027-01-01T00:00:00Z')],
    ['leaf-valid-to-february-30.pem', Date.parse('2027-01-01T00:00:00Z')],
    // Date.parse of OpenSSL's text reads the year 0030 as 2030.
    ['leaf-expired-in-year-30.pem', Date.parse('2027-01-01T00:00:00Z')],
    // Valid in the years 50 to 60 AD, not 1950 to 1960.
    ['leaf-valid-in-years-50-to-60.pem', Date.parse('1955-01-01T00:00:00Z')],
  ])('%s is valid at no time we judge', (name, at) => {
    const certificate = negative(name);
    expect(isValidAt(certificate, at)).toBe(false);
    expect(isValidAt(certificate, Date.now())).toBe(false);
  });

  it('a date OpenSSL cannot read fails closed even when node reads it as a real date', () => {
    // Node's validToDate for "Bad time value" comes from memory it did not fill, so now and then it
    // is a real date, some far in the future (docs/decisions/app-store-verifier.md). Modelled here exactly.
    const certificate = negative('leaf-valid-to-february-30.pem');
    expect(certificate.validTo).toBe('Bad time value');
    const farFuture = new Date('2500-01-01T00:00:00Z');
    const asNodeSometimesReadsIt = new Proxy(certificate, {
      get: (target, property) => (property === 'validToDate' ? farFuture : Reflect.get(target, property, target)),
    });
    expect(asNodeSometimesReadsIt.validToDate).toBe(farFuture);
    expect(isValidAt(asNodeSometimesReadsIt, Date.parse('2027-01-01T00:00:00Z'))).toBe(false);
  });
});
