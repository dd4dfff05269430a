/**
 * What the Apple verifiers' errors say to whoever reads the log: the rejection in the message, and
 * the underlying error as the cause when there was one (none is made up when there was not).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AppReceiptError, verifyAppReceipt } from '../../lib/stores/app-receipt.js';
import { APPLE_ROOT_CA_G3, appleIncRootCertificate, appStoreVerifier } from '../../lib/stores/app-store.js';
import { AppleSignedDataError, verifyAppleSignedData } from '../../lib/stores/apple-signed-data.js';
import { flipByte, RECEIPT_ROOT, signedAppReceipt } from '../support/app-receipts.js';
import { appStoreTransaction, STAND_IN_ROOT, signedByStandIn } from '../support/app-store-standin.js';
import { appErrorOf, errorThrownBy } from '../support/assertions.js';

const payload = z.object({ signedDate: z.optional(z.number()) });
const part = (value: string) => Buffer.from(value).toString('base64url');

describe('App Store signed data rejections', () => {
  it('a payload that is not JSON: malformed, caused by the parse error', () => {
    const error = errorThrownBy(
      () => verifyAppleSignedData(`${part('{}')}.${part('{not json')}.sig`, [APPLE_ROOT_CA_G3], payload),
      AppleSignedDataError,
    );
    expect(error.message).toBe('App Store signed data rejected: malformed');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('a JWS without three parts: malformed, with no cause', () => {
    const error = errorThrownBy(
      () => verifyAppleSignedData('only.two', [APPLE_ROOT_CA_G3], payload),
      AppleSignedDataError,
    );
    expect(error.rejection).toBe('malformed');
    expect(error.message).toBe('App Store signed data rejected: malformed');
    expect('cause' in error).toBe(false);
  });
});

describe('App Store certificate chains, one after another', () => {
  it("a chain verified once never stands in for another: Apple's real chain is refused under the stand-in root after the stand-in's passed", () => {
    const signedDate = Date.now();
    const standIn = signedByStandIn({ ...appStoreTransaction('com.example.app'), signedDate });
    expect(verifyAppleSignedData(standIn, [STAND_IN_ROOT], payload)).toMatchObject({ signedDate });
    const apples = readFileSync(
      new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
      'utf8',
    ).trim();
    expect(
      errorThrownBy(() => verifyAppleSignedData(apples, [STAND_IN_ROOT], payload), AppleSignedDataError).rejection,
    ).toBe('chain');
  });
});

describe('App Store signed data whose parts are JSON but no object', () => {
  it.each(['null', '[]', '[{"signedDate":1}]', '"text"', '7'])('a payload of %s: malformed', (json) => {
    const error = errorThrownBy(
      () => verifyAppleSignedData(`${part('{"alg":"ES256"}')}.${part(json)}.sig`, [APPLE_ROOT_CA_G3], payload),
      AppleSignedDataError,
    );
    expect(error.rejection).toBe('malformed');
  });

  it.each(['null', '[]', '"ES256"'])('a header of %s: malformed', (json) => {
    const error = errorThrownBy(
      () => verifyAppleSignedData(`${part(json)}.${part('{}')}.sig`, [APPLE_ROOT_CA_G3], payload),
      AppleSignedDataError,
    );
    expect(error.rejection).toBe('malformed');
  });
});

describe('app receipt rejections', () => {
  it('bytes that are no PKCS #7 structure: malformed, caused by the DER reader', () => {
    const error = errorThrownBy(
      () => verifyAppReceipt(Buffer.from('not a receipt').toString('base64'), [appleIncRootCertificate()]),
      AppReceiptError,
    );
    expect(error.message).toBe('app receipt rejected: malformed');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a DER sequence that is not signed data: malformed, with no cause', () => {
    // SEQUENCE { INTEGER 1 }: well-formed DER, but no content type where PKCS #7 has one.
    const error = errorThrownBy(
      () => verifyAppReceipt(Buffer.from('3003020101', 'hex').toString('base64'), [appleIncRootCertificate()]),
      AppReceiptError,
    );
    expect(error.rejection).toBe('malformed');
    expect('cause' in error).toBe(false);
  });
});

/** The real Apple-signed sandbox transaction (test/fixtures/apple/README.md). */
const TRANSACTION = readFileSync(
  new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
  'utf8',
).trim();
const RECEIPT_BUNDLE = 'com.example.subs';
const jwsWithHeader = (header: object) => `${part(JSON.stringify(header))}.e30.c2ln`;

describe('what INVALID_RECEIPT says of each App Store rejection', () => {
  it.each<[string, (verifiers: Verifiers) => Promise<unknown>, string]>([
    [
      'a payload byte changed',
      ({ qysmat }) => qysmat.verify(tampered(TRANSACTION)),
      'App Store transaction rejected: the signature or certificate chain does not verify',
    ],
    [
      'a chain under a root not trusted',
      ({ qysmat }) => qysmat.verify(signedByStandIn(appStoreTransaction('com.app.qysmat', { environment: 'Sandbox' }))),
      'App Store transaction rejected: the signature or certificate chain does not verify',
    ],
    [
      'no certificate chain',
      ({ qysmat }) => qysmat.verify(jwsWithHeader({ alg: 'ES256' })),
      "App Store transaction rejected: the certificate chain is not Apple's",
    ],
    [
      'certificates that do not parse',
      ({ qysmat }) => qysmat.verify(jwsWithHeader({ alg: 'ES256', x5c: ['a', 'b', 'c'] })),
      "App Store transaction rejected: the certificate chain is not Apple's",
    ],
    [
      'a payload that is not JSON',
      ({ qysmat }) => {
        const [header, , signature] = TRANSACTION.split('.');
        return qysmat.verify(`${header}.${part('not json')}.${signature}`);
      },
      'App Store transaction rejected: it is not a valid signed transaction',
    ],
    [
      "another app's transaction",
      ({ other }) => other.verify(TRANSACTION),
      'App Store transaction rejected: it belongs to another app (bundle id)',
    ],
    [
      "another environment's transaction",
      ({ standInSandbox }) =>
        standInSandbox.verify(signedByStandIn(appStoreTransaction(RECEIPT_BUNDLE, { environment: 'Production' }))),
      'App Store transaction rejected: it belongs to another environment',
    ],
    [
      'bytes that are no app receipt',
      ({ qysmat }) => qysmat.verify(Buffer.from('not a receipt').toString('base64')),
      'app receipt rejected: it is not a signed App Store receipt',
    ],
    [
      'an app receipt whose content changed',
      ({ receipts }) =>
        receipts.verify(
          signedAppReceipt(
            { bundleId: RECEIPT_BUNDLE, purchases: [{ transactionId: '2000000000000001' }] },
            { tamperContent: (content) => flipByte(content) },
          ),
        ),
      'app receipt rejected: its signature does not verify',
    ],
    [
      'an app receipt under a root not trusted',
      ({ receiptsAppleOnly }) =>
        receiptsAppleOnly.verify(
          signedAppReceipt({ bundleId: RECEIPT_BUNDLE, purchases: [{ transactionId: '2000000000000001' }] }),
        ),
      "app receipt rejected: it is not signed by Apple's receipt-signing certificate chain",
    ],
    [
      'an app receipt created before its certificates were valid',
      ({ receipts }) =>
        receipts.verify(
          signedAppReceipt({
            bundleId: RECEIPT_BUNDLE,
            purchases: [{ transactionId: '2000000000000001' }],
            createdAt: new Date('2001-01-01T00:00:00Z'),
          }),
        ),
      'app receipt rejected: its certificates were not valid when it was created',
    ],
    [
      "another app's receipt",
      ({ receipts }) =>
        receipts.verify(
          signedAppReceipt({ bundleId: 'com.example.other', purchases: [{ transactionId: '2000000000000001' }] }),
        ),
      'app receipt rejected: it belongs to another app (bundle id)',
    ],
  ])('%s', async (_, verify, message) => {
    const serverApi = { issuer_id: 'issuer', key_id: 'KEY', private_key: 'unused: the receipt is refused first' };
    const verifiers = {
      qysmat: appStoreVerifier({ bundleId: 'com.app.qysmat', environment: 'Sandbox' }),
      other: appStoreVerifier({ bundleId: 'com.example.other', environment: 'Sandbox' }),
      standInSandbox: appStoreVerifier({ bundleId: RECEIPT_BUNDLE, environment: 'Sandbox' }, [STAND_IN_ROOT]),
      receipts: appStoreVerifier(
        { bundleId: RECEIPT_BUNDLE, environment: 'Sandbox', serverApi },
        [STAND_IN_ROOT],
        [RECEIPT_ROOT],
      ),
      receiptsAppleOnly: appStoreVerifier({ bundleId: RECEIPT_BUNDLE, environment: 'Sandbox', serverApi }, [
        STAND_IN_ROOT,
      ]),
    };
    expect(await appErrorOf(verify(verifiers))).toMatchObject({ code: 'INVALID_RECEIPT', message });
  });
});

describe("an app receipt refused by its reader keeps the reader's rejection as the cause", () => {
  it('a changed content: INVALID_RECEIPT caused by the signature rejection', async () => {
    const serverApi = { issuer_id: 'issuer', key_id: 'KEY', private_key: 'unused: the receipt is refused first' };
    const receipts = appStoreVerifier(
      { bundleId: RECEIPT_BUNDLE, environment: 'Sandbox', serverApi },
      [STAND_IN_ROOT],
      [RECEIPT_ROOT],
    );
    const receipt = signedAppReceipt(
      { bundleId: RECEIPT_BUNDLE, purchases: [{ transactionId: '2000000000000001' }] },
      { tamperContent: (content) => flipByte(content) },
    );
    expect(await appErrorOf(receipts.verify(receipt))).toMatchObject({
      code: 'INVALID_RECEIPT',
      cause: { rejection: 'signature' },
    });
  });
});

type Verifiers = Record<
  'qysmat' | 'other' | 'standInSandbox' | 'receipts' | 'receiptsAppleOnly',
  ReturnType<typeof appStoreVerifier>
>;

/** The JWS with one character of its payload changed. */
function tampered(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  return [header, `${payload.slice(0, 10)}${payload[10] === 'A' ? 'B' : 'A'}${payload.slice(11)}`, signature].join('.');
}
