/**
 * What the Apple verifiers' errors say to whoever reads the log: the rejection in the message, and
 * the underlying error as the cause when there was one (none is made up when there was not).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AppReceiptError, verifyAppReceipt } from '../../lib/stores/app-receipt.js';
import { APPLE_ROOT_CA_G3, appleIncRootCertificate } from '../../lib/stores/app-store.js';
import { AppleSignedDataError, verifyAppleSignedData } from '../../lib/stores/apple-signed-data.js';
import { errorThrownBy } from '../support/assertions.js';

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
