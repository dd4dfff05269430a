/**
 * Verification of App Store signed data (JWS: StoreKit 2 transactions, App Store Server API
 * answers) with node:crypto, rule for rule what Apple's App Store Server Library does with online
 * checks off (SignedDataVerifier, v3.1.0), and differential-tested against it in
 * test/unit/apple-signed-data.test.ts:
 *
 * - the header's x5c holds exactly three certificates: leaf, intermediate, root;
 * - the intermediate is signed by, and issued under the name of, one of our trusted roots (only
 *   the root we embed counts, never the one in the header), and is a CA;
 * - the leaf is signed by, and issued under the name of, the intermediate;
 * - the leaf carries Apple's receipt-signing OID 1.2.840.113635.100.6.11.1 and the intermediate
 *   Apple's WWDR intermediate OID 1.2.840.113635.100.6.2.1;
 * - leaf, intermediate and root are valid at the payload's signedDate (60 s of skew), as Apple
 *   judges them without OCSP: a transaction signed while its certificate was valid stays valid;
 * - the header's alg is ES256, the leaf's key is EC on P-256, and the signature is ES256 by that
 *   key over the JWS signing input.
 *
 * Where we deliberately refuse what the library accepts (tested case by case):
 * - certificate dates are the ones node parses from the DER (validFromDate/validToDate), and a
 *   certificate whose dates do not parse is refused; the library compares new Date() of
 *   OpenSSL's text, which lets "Bad time value" through (NaN) and reads the GeneralizedTime
 *   year 0030 as 2030 (0050 as 1950);
 * - only ES256 counts: the library lets jsonwebtoken take the algorithm from the header and
 *   the leaf's key, so an RSA leaf under RS256 or a P-384 leaf under ES384 would pass it.
 *
 * Why not the library itself: it brings jsrsasign, jsonwebtoken, node-fetch and whatwg-url, which
 * would weigh on every cold start of the three verifying functions more than all the rest of
 * them (docs/decisions/app-store-verifier.md).
 */
import { type KeyObject, verify as verifySignature, X509Certificate } from 'node:crypto';
import type * as z from 'zod/mini';
import { isJsonObject, parseBase64urlJson } from '../core/json.js';
import { isValidAt } from './certificates.js';
import { hasExtension } from './der.js';

/** Why signed data was refused; `chain` and `certificate` mean it is not Apple's. */
export type AppleRejection =
  | 'malformed'
  | 'chain_length'
  | 'certificate'
  | 'chain'
  | 'signature'
  | 'app'
  | 'environment';

export class AppleSignedDataError extends Error {
  constructor(
    readonly rejection: AppleRejection,
    options?: { cause?: unknown },
  ) {
    super(`App Store signed data rejected: ${rejection}`, options);
  }
}

const MAX_SKEW_MS = 60_000;

const reject = (rejection: AppleRejection, cause?: unknown): never => {
  throw new AppleSignedDataError(rejection, cause === undefined ? undefined : { cause });
};

function decodePart(part: string | undefined): Record<string, unknown> {
  let value: unknown;
  try {
    // Stryker disable next-line StringLiteral: any text in place of the missing part is refused as malformed alike
    value = parseBase64urlJson(part ?? '');
  } catch (error) {
    return reject('malformed', error);
  }
  return isJsonObject(value) ? value : reject('malformed');
}

function checkDates(certificate: X509Certificate, at: number): void {
  if (!isValidAt(certificate, at, MAX_SKEW_MS)) reject('certificate');
}

/**
 * ES256 is ECDSA on P-256: a key of another type or curve would verify SHA-256 signatures of its own
 * kind. Only an EC key has a named curve.
 */
const isP256 = (key: KeyObject) => key.asymmetricKeyDetails?.namedCurve === 'prime256v1';

interface VerifiedChain {
  leaf: X509Certificate;
  intermediate: X509Certificate;
  root: X509Certificate;
}

/**
 * Chains this process has verified, by their leaf and intermediate as sent: a notification carries
 * three JWS under one chain, and Apple signs with few, so a chain's parse and signature checks are
 * done once. Only a chain that passed every check is kept, with the root it passed under.
 */
const verifiedChains = new Map<string, VerifiedChain>();
const MAX_VERIFIED_CHAINS = 16;

function verifyChain(x5c: unknown, roots: readonly X509Certificate[]): VerifiedChain {
  if (!Array.isArray(x5c) || x5c.length !== 3) return reject('chain_length');
  const [leafDer, intermediateDer] = x5c as unknown[];
  const cacheKey =
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a chain with an entry that is no string is refused below before it could be kept, whatever its key
    typeof leafDer === 'string' && typeof intermediateDer === 'string' ? `${leafDer}.${intermediateDer}` : '';
  const cached = verifiedChains.get(cacheKey);
  if (cached && roots.includes(cached.root)) return cached;
  let leaf: X509Certificate;
  let intermediate: X509Certificate;
  try {
    [leaf, intermediate] = [leafDer, intermediateDer].map((der: unknown) => {
      if (typeof der !== 'string') throw new TypeError('x5c entries are base64 strings');
      return new X509Certificate(Buffer.from(der, 'base64'));
    }) as [X509Certificate, X509Certificate];
  } catch (error) {
    return reject('certificate', error);
  }
  // As in Apple's library, the last root that issued the intermediate is the one whose dates count.
  const root = roots
    .filter((candidate) => intermediate.issuer === candidate.subject && intermediate.verify(candidate.publicKey))
    .at(-1);
  const chained =
    root !== undefined &&
    leaf.issuer === intermediate.subject &&
    leaf.verify(intermediate.publicKey) &&
    intermediate.ca &&
    // Apple's marker extensions of its leaf and intermediate certificates.
    hasExtension(leaf.raw, '1.2.840.113635.100.6.11.1') &&
    hasExtension(intermediate.raw, '1.2.840.113635.100.6.2.1');
  if (!chained) return reject('chain');
  const chain = { leaf, intermediate, root };
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the bound limits memory only; a chain not kept is verified again, alike
  if (verifiedChains.size >= MAX_VERIFIED_CHAINS) verifiedChains.clear();
  // Stryker disable next-line CallExpression: a chain not kept is verified again, with the same outcome
  verifiedChains.set(cacheKey, chain);
  return chain;
}

/**
 * The key that signed the data, once its chain leads to one of `roots` through Apple's
 * certificates and every certificate is valid at `at`.
 */
function appleSigningKey(x5c: unknown, roots: readonly X509Certificate[], at: number) {
  const { leaf, intermediate, root } = verifyChain(x5c, roots);
  for (const certificate of [leaf, intermediate, root]) checkDates(certificate, at);
  return leaf.publicKey;
}

/**
 * Verifies a JWS signed by the App Store and returns its payload, parsed by `schema` (whose
 * optional numeric signedDate is the moment the chain is judged at); throws AppleSignedDataError.
 * Which app and environment it is for is the caller's check (see lib/stores/app-store.ts).
 */
export function verifyAppleSignedData<T extends { signedDate?: number | undefined }>(
  jws: string,
  roots: readonly X509Certificate[],
  schema: z.ZodMiniType<T>,
): T {
  const parts = jws.split('.');
  if (parts.length !== 3) return reject('malformed');
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  // In Apple's order: the payload's shape, the chain, the signature.
  const parsed = schema.safeParse(decodePart(encodedPayload));
  if (!parsed.success) return reject('malformed', parsed.error);
  const header = decodePart(encodedHeader);
  const key = appleSigningKey(header.x5c, roots, parsed.data.signedDate ?? Date.now());
  // After the chain and its dates, as Apple's library (jsonwebtoken) judges alg and key.
  if (header.alg !== 'ES256' || !isP256(key)) return reject('signature');
  let valid: boolean;
  try {
    valid = verifySignature(
      'sha256',
      Buffer.from(`${encodedHeader}.${encodedPayload}`),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(encodedSignature, 'base64url'),
    );
  } catch (error) {
    return reject('signature', error);
  }
  return valid ? parsed.data : reject('signature');
}
