/**
 * Our App Store verification (lib/stores/apple-signed-data.ts, node:crypto) against Apple's own
 * App Store Server Library, kept as a devDependency to be the oracle: on Apple's real sandbox
 * data, on the test chains of Apple's library, and on thousands of generated JWS signed with the
 * stand-in chain (test/fixtures/app-store-standin) and broken one rule at a time, both must
 * accept the same transactions with the same payload and refuse the rest for the same reason.
 * Where ours is deliberately stricter (certificate dates, algorithms other than ES256), each
 * case is tested on its own, with what Apple's library answers.
 */

import { createPrivateKey, type KeyObject, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Environment,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { APPLE_ROOT_CA_G3, decodeAppStoreTransaction } from '../../lib/stores/app-store.js';
import { type AppleRejection, AppleSignedDataError } from '../../lib/stores/apple-signed-data.js';
import { encodeOid, hasExtension } from '../../lib/stores/der.js';

const read = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const certificate = (path: string) => new X509Certificate(read(path));
const base64Der = (cert: X509Certificate) => cert.raw.toString('base64');
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

type Outcome = { accepted: true; payload: unknown } | { accepted: false; reason: string };

/** Apple's statuses in our words (VERIFICATION_FAILURE covers both a broken chain and a bad signature). */
const APPLE_REASON: Partial<Record<VerificationStatus, string>> = {
  [VerificationStatus.VERIFICATION_FAILURE]: 'chain or signature',
  [VerificationStatus.INVALID_APP_IDENTIFIER]: 'app',
  [VerificationStatus.INVALID_ENVIRONMENT]: 'environment',
  [VerificationStatus.INVALID_CERTIFICATE]: 'certificate',
  [VerificationStatus.FAILURE]: 'malformed',
};
const OUR_REASON: Record<AppleRejection, string> = {
  chain: 'chain or signature',
  signature: 'chain or signature',
  app: 'app',
  environment: 'environment',
  // Apple's library means to say INVALID_CHAIN_LENGTH, but rewraps it as INVALID_CERTIFICATE.
  chain_length: 'certificate',
  certificate: 'certificate',
  malformed: 'malformed',
};

async function apple(
  jws: string,
  roots: X509Certificate[],
  bundleId: string,
  environment: 'Sandbox' | 'Production',
): Promise<Outcome> {
  const verifier = new SignedDataVerifier(
    roots.map((root) => root.raw),
    false,
    environment === 'Sandbox' ? Environment.SANDBOX : Environment.PRODUCTION,
    bundleId,
    environment === 'Production' ? 1 : undefined,
  );
  try {
    return { accepted: true, payload: await verifier.verifyAndDecodeTransaction(jws) };
  } catch (error) {
    if (!(error instanceof VerificationException)) throw error;
    return { accepted: false, reason: APPLE_REASON[error.status] ?? `status ${error.status}` };
  }
}

function ours(
  jws: string,
  roots: X509Certificate[],
  bundleId: string,
  environment: 'Sandbox' | 'Production',
): Outcome & { rejection?: AppleRejection } {
  try {
    return { accepted: true, payload: decodeAppStoreTransaction(jws, { bundleId, environment }, roots) };
  } catch (error) {
    const cause = error instanceof AppError ? error.cause : undefined;
    if (!(cause instanceof AppleSignedDataError)) throw error;
    return { accepted: false, reason: OUR_REASON[cause.rejection], rejection: cause.rejection };
  }
}

// --- Apple's real sandbox data ----------------------------------------------------------------

const TRANSACTION = read('apple/sandbox-subscription-transaction.jws').toString().trim();
const RENEWAL_INFO = read('apple/sandbox-subscription-renewal-info.jws').toString().trim();

describe("App Store signed data: ours against Apple's library on Apple's real sandbox data", () => {
  it('both accept the real transaction and decode the same payload', async () => {
    const theirs = await apple(TRANSACTION, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Sandbox');
    expect(theirs.accepted).toBe(true);
    expect(ours(TRANSACTION, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Sandbox')).toEqual(theirs);
  });

  it("both refuse it for another app or without Apple's root, for the same reason", async () => {
    const other = certificate('app-store-standin/root.pem');
    for (const [roots, bundle, environment] of [
      [[APPLE_ROOT_CA_G3], 'com.example.other', 'Sandbox'],
      [[other], 'com.app.qysmat', 'Sandbox'],
      [[], 'com.app.qysmat', 'Sandbox'],
    ] as const) {
      const theirs = await apple(TRANSACTION, [...roots], bundle, environment);
      expect(theirs.accepted).toBe(false);
      expect({ ...ours(TRANSACTION, [...roots], bundle, environment), rejection: undefined }).toEqual({
        ...theirs,
        rejection: undefined,
      });
    }
  });

  it("takes the sandbox transaction in a Production app, where Apple's one-environment verifier refuses it", async () => {
    // Apple documents that a production app gets sandbox purchases (App Review) and that the server
    // should then verify for the sandbox: ours is that pair of verifiers in one.
    expect(await apple(TRANSACTION, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Production')).toEqual({
      accepted: false,
      reason: 'environment',
    });
    expect(ours(TRANSACTION, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Production')).toEqual(
      await apple(TRANSACTION, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Sandbox'),
    );
  });

  it('both refuse the renewal info presented as a transaction (it is signed, but names no bundle)', async () => {
    const theirs = await apple(RENEWAL_INFO, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Sandbox');
    expect(theirs).toEqual({ accepted: false, reason: 'app' });
    expect(ours(RENEWAL_INFO, [APPLE_ROOT_CA_G3], 'com.app.qysmat', 'Sandbox')).toMatchObject(theirs);
  });

  it("reads Apple's OIDs from the real certificates, and no others", () => {
    const [leaf, intermediate] = (
      JSON.parse(Buffer.from(TRANSACTION.split('.')[0]!, 'base64url').toString()).x5c as string[]
    ).map((der) => Buffer.from(der, 'base64'));
    expect(hasExtension(leaf!, '1.2.840.113635.100.6.11.1')).toBe(true);
    expect(hasExtension(leaf!, '1.2.840.113635.100.6.2.1')).toBe(false);
    expect(hasExtension(intermediate!, '1.2.840.113635.100.6.2.1')).toBe(true);
    expect(hasExtension(intermediate!, '1.2.840.113635.100.6.11.1')).toBe(false);
    expect(hasExtension(APPLE_ROOT_CA_G3.raw, '2.5.29.19')).toBe(true); // basicConstraints
    expect(Buffer.from(encodeOid('1.2.840.113635.100.6.11.1')).toString('hex')).toBe('2a864886f76364060b01');
  });
});

// --- The test chains of Apple's library ---------------------------------------------------------

describe("App Store signed data: the chain rules on the test chains of Apple's library", () => {
  const chains = JSON.parse(read('apple/library-test-chains.json').toString()) as Record<string, string>;
  const cert = (name: string) => new X509Certificate(Buffer.from(chains[name]!, 'base64'));
  // Apple's tests judge these chains in October 2025; their signatures are not ours to make, so
  // a chain that passes is refused at the signature: `signature` means the chain itself held.
  const payload = { bundleId: 'com.example', environment: 'Production', signedDate: 1761962975000 };
  const jwsWith = (leaf: string, intermediate: string, root: string) =>
    `${part({ alg: 'ES256', x5c: [chains[leaf], chains[intermediate], chains[root]] })}.${part(payload)}.${Buffer.alloc(64, 1).toString('base64url')}`;

  it.each([
    [
      'a valid test chain',
      'signature',
      'LEAF_CERT_BASE64_ENCODED',
      'INTERMEDIATE_CA_BASE64_ENCODED',
      'ROOT_CA_BASE64_ENCODED',
    ],
    [
      'an intermediate without the WWDR OID',
      'chain',
      'LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID_BASE64_ENCODED',
      'INTERMEDIATE_CA_INVALID_OID_BASE64_ENCODED',
      'ROOT_CA_BASE64_ENCODED',
    ],
    [
      'a leaf without the receipt-signing OID',
      'chain',
      'LEAF_CERT_INVALID_OID_BASE64_ENCODED',
      'INTERMEDIATE_CA_BASE64_ENCODED',
      'ROOT_CA_BASE64_ENCODED',
    ],
    [
      'the real Apple chain of 2025',
      'signature',
      'REAL_APPLE_SIGNING_CERTIFICATE_BASE64_ENCODED',
      'REAL_APPLE_INTERMEDIATE_BASE64_ENCODED',
      'REAL_APPLE_ROOT_BASE64_ENCODED',
    ],
  ])('%s: refused as Apple refuses it, at the %s', async (_, where, leaf, intermediate, root) => {
    const jws = jwsWith(leaf, intermediate, root);
    const roots = [cert(root)];
    const theirs = await apple(jws, roots, 'com.example', 'Production');
    const mine = ours(jws, roots, 'com.example', 'Production');
    expect(mine).toMatchObject(theirs);
    expect(mine.rejection).toBe(where);
  });

  it('a valid test chain under a root we do not trust is refused at the chain', async () => {
    const jws = jwsWith('LEAF_CERT_BASE64_ENCODED', 'INTERMEDIATE_CA_BASE64_ENCODED', 'ROOT_CA_BASE64_ENCODED');
    const theirs = await apple(jws, [APPLE_ROOT_CA_G3], 'com.example', 'Production');
    expect(ours(jws, [APPLE_ROOT_CA_G3], 'com.example', 'Production')).toMatchObject({ ...theirs, rejection: 'chain' });
  });
});

// --- Generated: the stand-in chain, broken one rule at a time ------------------------------------

const BUNDLE = 'com.example.subs';
const ROOT = certificate('app-store-standin/root.pem');
const LEAF = certificate('app-store-standin/leaf.pem');
const leafKey = createPrivateKey(read('app-store-standin/leaf.p8'));
const otherKey = createPrivateKey(read('app-store-standin/intermediate.p8'));
const chainOf = (...names: string[]) => names.map((name) => base64Der(certificate(`app-store-standin/${name}`)));
const GOOD_CHAIN = chainOf('leaf.pem', 'intermediate.pem', 'root.pem');
/** A leaf under the good intermediate, with the good leaf's OID (and dates, unless they are the point). */
const underGoodIntermediate = (leaf: string) => chainOf(`negative/${leaf}.pem`, 'intermediate.pem', 'root.pem');
const CHAINS: Record<string, unknown> = {
  good: GOOD_CHAIN,
  'intermediate not a CA': chainOf('negative/leaf-under-not-ca.pem', 'negative/intermediate-not-ca.pem', 'root.pem'),
  'intermediate without OID': chainOf(
    'negative/leaf-under-intermediate-without-oid.pem',
    'negative/intermediate-without-oid.pem',
    'root.pem',
  ),
  'leaf without OID': chainOf('negative/leaf-without-oid.pem', 'intermediate.pem', 'root.pem'),
  'untrusted root': chainOf(
    'negative/leaf-under-untrusted-root.pem',
    'negative/intermediate-under-untrusted-root.pem',
    'negative/untrusted-root.pem',
  ),
  'leaf and intermediate swapped': chainOf('intermediate.pem', 'leaf.pem', 'root.pem'),
  'two certificates': GOOD_CHAIN.slice(0, 2),
  'four certificates': [...GOOD_CHAIN, GOOD_CHAIN[2]],
  'no x5c': undefined,
  'not base64 DER': ['bm90IGEgY2VydGlmaWNhdGU', GOOD_CHAIN[1], GOOD_CHAIN[2]],
  'a number in x5c': [1, GOOD_CHAIN[1], GOOD_CHAIN[2]],
  // ES256 needs a P-256 key: the JWS is signed with these leaves' own keys, as each can sign.
  'RSA leaf': underGoodIntermediate('leaf-rsa'),
  'P-384 leaf': underGoodIntermediate('leaf-p384'),
  'Ed25519 leaf': underGoodIntermediate('leaf-ed25519'),
  // Date.parse reads the year 0050 as 1950: refused either way, as no transaction was signed then.
  'leaf valid in years 50 to 60': underGoodIntermediate('leaf-valid-in-years-50-to-60'),
};
/** The key of each chain's leaf, when it is not the good leaf's. */
const LEAF_KEYS: Record<string, KeyObject> = {
  'RSA leaf': createPrivateKey(read('app-store-standin/negative/leaf-rsa.p8')),
  'P-384 leaf': createPrivateKey(read('app-store-standin/negative/leaf-p384.p8')),
  'Ed25519 leaf': createPrivateKey(read('app-store-standin/negative/leaf-ed25519.p8')),
};
const validFrom = Date.parse(LEAF.validFrom);
const validTo = Date.parse(LEAF.validTo);

/** A transaction both must accept: well-typed, for our app, signed while the certificates were valid. */
const validTransaction = fc.record(
  {
    transactionId: fc.bigInt({ min: 2_000_000_000_000_000n, max: 2_999_999_999_999_999n }).map(String),
    originalTransactionId: fc.bigInt({ min: 2_000_000_000_000_000n, max: 2_999_999_999_999_999n }).map(String),
    bundleId: fc.constant(BUNDLE),
    productId: fc.constantFrom('premium_monthly', 'premium_yearly'),
    purchaseDate: fc.integer({ min: validFrom, max: validFrom + 400 * 86_400_000 }),
    expiresDate: fc.integer({ min: validFrom, max: validFrom + 400 * 86_400_000 }),
    environment: fc.constant('Sandbox'),
    signedDate: fc.integer({ min: validFrom, max: Math.min(validTo, validFrom + 3650 * 86_400_000) }),
    price: fc.integer({ min: 0, max: 1_000_000 }),
    currency: fc.constantFrom('USD', 'EUR', 'JPY'),
    offerType: fc.constantFrom(1, 2, 3),
    offerDiscountType: fc.constantFrom('FREE_TRIAL', 'PAY_AS_YOU_GO', 'PAY_UP_FRONT'),
    type: fc.constant('Auto-Renewable Subscription'),
  },
  { requiredKeys: ['transactionId', 'originalTransactionId', 'bundleId', 'productId', 'environment'] },
);

/** One rule broken at a time (or two); each says what it does to the JWS. */
type Jws = { payload: Record<string, unknown>; chain: string; alg: string; signature: string };
const BREAKS: Record<string, (jws: Jws) => void> = {
  'another bundle id': (j) => void (j.payload.bundleId = 'com.example.other'),
  'no bundle id': (j) => void delete j.payload.bundleId,
  Production: (j) => void (j.payload.environment = 'Production'),
  Xcode: (j) => void (j.payload.environment = 'Xcode'),
  'signed before the certificates': (j) => void (j.payload.signedDate = validFrom - 90_000),
  'signed within the skew before them': (j) => void (j.payload.signedDate = validFrom - 30_000),
  'signed after them': (j) => void (j.payload.signedDate = validTo + 90_000),
  'signedDate a string': (j) => void (j.payload.signedDate = '2027-01-01'),
  'transactionId a number': (j) => void (j.payload.transactionId = 2000000000000001),
  'price a string': (j) => void (j.payload.price = '9.99'),
  'expiresDate a string': (j) => void (j.payload.expiresDate = 'tomorrow'),
  ...Object.fromEntries(
    Object.keys(CHAINS)
      .filter((c) => c !== 'good')
      .map((chain) => [chain, (j: Jws) => void (j.chain = chain)]),
  ),
  ...Object.fromEntries(['ES384', 'HS256', 'none'].map((alg) => [`alg ${alg}`, (j: Jws) => void (j.alg = alg)])),
  ...Object.fromEntries(
    ['one bit flipped', 'by another key', 'DER-encoded', 'truncated', 'empty'].map((signature) => [
      `signature ${signature}`,
      (j: Jws) => void (j.signature = signature),
    ]),
  ),
};

const jwsArbitrary = fc
  .tuple(
    validTransaction,
    fc.oneof(
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom(...Object.keys(BREAKS)), { minLength: 1, maxLength: 2 }) },
    ),
  )
  .map(([payload, breaks]) => {
    const jws: Jws = { payload: { ...payload }, chain: 'good', alg: 'ES256', signature: 'valid' };
    for (const name of breaks) BREAKS[name]!(jws);
    return jws;
  });

/** A signature with SHA-256 (none for Ed25519, which hashes itself), in the encoding asked for ECDSA. */
const signWith = (key: KeyObject, input: string, dsaEncoding: 'ieee-p1363' | 'der' = 'ieee-p1363', hash = 'sha256') =>
  sign(key.asymmetricKeyType === 'ed25519' ? null : hash, Buffer.from(input), { key, dsaEncoding });

function makeJws({ payload, chain, alg, signature }: Jws): string {
  const input = `${part({ alg, x5c: CHAINS[chain] })}.${part(payload)}`;
  const signed = (key = LEAF_KEYS[chain] ?? leafKey, dsaEncoding: 'ieee-p1363' | 'der' = 'ieee-p1363') =>
    signWith(key, input, dsaEncoding);
  const bytes = {
    valid: () => signed(),
    'one bit flipped': () => {
      const flipped = signed();
      flipped[7] = flipped[7]! ^ 0x10;
      return flipped;
    },
    'by another key': () => signed(otherKey),
    'DER-encoded': () => signed(leafKey, 'der'),
    truncated: () => signed().subarray(0, 40),
    empty: () => Buffer.alloc(0),
  }[signature]!();
  return `${input}.${bytes.toString('base64url')}`;
}

describe('App Store signed data: the signing key and the certificate dates, case by case', () => {
  /** A transaction signed a day after the stand-in chain's certificates begin, by `key` with `hash`, under `alg`. */
  const jwsOf = (x5c: unknown, alg: string, key: KeyObject, hash = 'sha256') => {
    const input = `${part({ alg, x5c })}.${part({ bundleId: BUNDLE, environment: 'Sandbox', transactionId: '2000000000000001', signedDate: validFrom + 86_400_000 })}`;
    return `${input}.${signWith(key, input, 'ieee-p1363', hash).toString('base64url')}`;
  };
  const judge = async (jws: string) => ({
    theirs: await apple(jws, [ROOT], BUNDLE, 'Sandbox'),
    mine: ours(jws, [ROOT], BUNDLE, 'Sandbox'),
  });

  it.each([
    ['an RSA leaf, signing RSA-SHA256 under alg ES256', 'RSA leaf', 'ES256'],
    ['a P-384 leaf, signing ECDSA-SHA256 under alg ES256', 'P-384 leaf', 'ES256'],
    ['an Ed25519 leaf under alg ES256', 'Ed25519 leaf', 'ES256'],
    ['an Ed25519 leaf under alg EdDSA', 'Ed25519 leaf', 'EdDSA'],
  ])('%s: refused, as Apple refuses it, at the signature', async (_, chain, alg) => {
    const { theirs, mine } = await judge(jwsOf(CHAINS[chain], alg, LEAF_KEYS[chain]!));
    expect(theirs).toEqual({ accepted: false, reason: 'chain or signature' });
    expect(mine).toMatchObject({ ...theirs, rejection: 'signature' });
  });

  // Deliberate differences: Apple's library lets jsonwebtoken pick the algorithm from the header
  // and the leaf's key; the App Store signs ES256 only, so we accept nothing else.
  it.each([
    ['an RSA leaf under alg RS256', 'RSA leaf', 'RS256', 'sha256'],
    ['a P-384 leaf under alg ES384', 'P-384 leaf', 'ES384', 'sha384'],
  ])('%s: accepted by Apple, refused by us at the signature', async (_, chain, alg, hash) => {
    const { theirs, mine } = await judge(jwsOf(CHAINS[chain], alg, LEAF_KEYS[chain]!, hash));
    expect(theirs.accepted).toBe(true);
    expect(mine).toMatchObject({ accepted: false, rejection: 'signature' });
  });

  it('a leaf valid in the years 50 to 60: refused by both (Apple reads 1950 to 1960)', async () => {
    const { theirs, mine } = await judge(jwsOf(CHAINS['leaf valid in years 50 to 60'], 'ES256', leafKey));
    expect(theirs).toEqual({ accepted: false, reason: 'certificate' });
    expect(mine).toMatchObject({ ...theirs, rejection: 'certificate' });
  });

  // Deliberate differences: Apple's library compares new Date(validFrom/validTo), OpenSSL's text;
  // we compare the dates node parsed from the DER, and refuse a certificate without them.
  it.each([
    ['expired in the year 30 (Date.parse reads 2030)', 'leaf-expired-in-year-30'],
    ['valid from month 13 (OpenSSL prints "Bad time value", Date.parse NaN)', 'leaf-valid-from-month-13'],
    ['valid to February 30 (idem)', 'leaf-valid-to-february-30'],
  ])('a leaf %s: accepted by Apple, refused by us as a certificate', async (_, leaf) => {
    const { theirs, mine } = await judge(jwsOf(underGoodIntermediate(leaf), 'ES256', leafKey));
    expect(theirs.accepted).toBe(true);
    expect(mine).toMatchObject({ accepted: false, rejection: 'certificate' });
  });

  it("the good intermediate's key under another name than the leaf's issuer: refused at the chain", async () => {
    const { theirs, mine } = await judge(
      jwsOf(chainOf('leaf.pem', 'negative/intermediate-renamed.pem', 'root.pem'), 'ES256', leafKey),
    );
    expect(theirs).toEqual({ accepted: false, reason: 'chain or signature' });
    expect(mine).toMatchObject({ ...theirs, rejection: 'chain' });
  });

  it("a trusted root with the good root's key under another name does not issue the intermediate: refused at the chain", async () => {
    const jws = jwsOf(GOOD_CHAIN, 'ES256', leafKey);
    const renamed = certificate('app-store-standin/negative/root-renamed.pem');
    const theirs = await apple(jws, [renamed], BUNDLE, 'Sandbox');
    expect(theirs).toEqual({ accepted: false, reason: 'chain or signature' });
    expect(ours(jws, [renamed], BUNDLE, 'Sandbox')).toMatchObject({ ...theirs, rejection: 'chain' });
    expect(ours(jws, [renamed, ROOT], BUNDLE, 'Sandbox').accepted).toBe(true);
  });

  it('the good leaf under the same rules is accepted by both (the cases above differ from it in one thing)', async () => {
    const { theirs, mine } = await judge(jwsOf(GOOD_CHAIN, 'ES256', leafKey));
    expect(theirs.accepted).toBe(true);
    expect(mine).toEqual(theirs);
  });

  // A chain is verified once per process (a notification carries three JWS under one chain):
  // what is remembered must never stand in for the checks that belong to each JWS or each caller.
  it('a chain verified before still needs a trusted root, its dates at each signedDate and its signature', () => {
    const signedAt = (signedDate: number, key = leafKey) => {
      const input = `${part({ alg: 'ES256', x5c: GOOD_CHAIN })}.${part({ bundleId: BUNDLE, environment: 'Sandbox', transactionId: '2000000000000001', signedDate })}`;
      return `${input}.${signWith(key, input).toString('base64url')}`;
    };
    const dayOne = signedAt(validFrom + 86_400_000);
    expect(ours(dayOne, [ROOT], BUNDLE, 'Sandbox').accepted).toBe(true);
    expect(ours(dayOne, [APPLE_ROOT_CA_G3], BUNDLE, 'Sandbox')).toMatchObject({ accepted: false, rejection: 'chain' });
    expect(ours(dayOne, [], BUNDLE, 'Sandbox')).toMatchObject({ accepted: false, rejection: 'chain' });
    expect(ours(signedAt(validTo + 90_000), [ROOT], BUNDLE, 'Sandbox')).toMatchObject({
      accepted: false,
      rejection: 'certificate',
    });
    expect(ours(signedAt(validFrom + 86_400_000, otherKey), [ROOT], BUNDLE, 'Sandbox')).toMatchObject({
      accepted: false,
      rejection: 'signature',
    });
    expect(ours(dayOne, [ROOT], BUNDLE, 'Sandbox').accepted).toBe(true);
  });
});

describe("App Store signed data: generated transactions, ours against Apple's library", () => {
  it('accepts exactly what Apple accepts, with the same payload, and refuses the rest for the same reason', async () => {
    const tally = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(jwsArbitrary, async (generated) => {
        const jws = makeJws(generated);
        const theirs = await apple(jws, [ROOT], BUNDLE, 'Sandbox');
        const mine = ours(jws, [ROOT], BUNDLE, 'Sandbox');
        const key = theirs.accepted ? 'accepted' : theirs.reason;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        expect({ ...mine, rejection: undefined }).toEqual({ ...theirs, rejection: undefined });
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 600) },
    );
    console.log(`App Store differential: ${JSON.stringify(Object.fromEntries(tally))}`);
    // The generator reaches every outcome, so the agreement means something.
    expect([...tally.keys()].sort()).toEqual([
      'accepted',
      'app',
      'certificate',
      'chain or signature',
      'environment',
      'malformed',
    ]);
  }, 60_000);

  it("refuses a signedDate no Date can hold (Apple's library then skips the certificate dates)", async () => {
    const jws = makeJws({
      payload: { bundleId: BUNDLE, environment: 'Sandbox', signedDate: 1e20 },
      chain: 'good',
      alg: 'ES256',
      signature: 'valid',
    });
    expect((await apple(jws, [ROOT], BUNDLE, 'Sandbox')).accepted).toBe(true);
    expect(ours(jws, [ROOT], BUNDLE, 'Sandbox')).toMatchObject({ accepted: false, rejection: 'certificate' });
  });
});
