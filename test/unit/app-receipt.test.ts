/**
 * Legacy app receipts (lib/stores/app-receipt.ts, node:crypto) against pkijs, a CMS library kept
 * as a devDependency to be the oracle: on real receipts Apple signed, and on receipts signed by the
 * stand-in receipt chain (test/fixtures/app-store-standin/receipt-chain) and broken one rule at a
 * time, both must accept the same receipts, read the same contents, and refuse the rest. pkijs
 * judges the CMS signature and the certificate path at the receipt's creation date; Apple's own
 * rules (one signer, id-data, SHA-1 or SHA-256 with RSA, the receipt-signing and WWDR OIDs, a CA
 * intermediate) and the one CMS rule pkijs leaves to its caller (a signed content-type attribute
 * names the content's type) are added to its verdict from what pkijs parsed, and each break names
 * the rule it must be refused by.
 */

import { createHash, createPrivateKey, type X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import fc from 'fast-check';
import * as pkijs from 'pkijs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import {
  type AppReceipt,
  AppReceiptError,
  type AppReceiptRejection,
  purchaseToAsk,
  readSignedReceipt,
  verifyAppReceipt,
} from '../../lib/stores/app-receipt.js';
import {
  appleIncRootCertificate,
  appStoreVerifier,
  decodeAppReceipt,
  requireAppReceiptShape,
} from '../../lib/stores/app-store.js';
import {
  flipByte,
  OIDS,
  RECEIPT_ROOT,
  receiptChainCertificate,
  receiptChainKey,
  receiptPayload,
  type SignOptions,
  signedAppReceipt,
  signReceipt,
  unsignedAppReceipt,
} from '../support/app-receipts.js';
import { STAND_IN_ROOT } from '../support/app-store-standin.js';

const read = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8').trim();
const APPLE_INC_ROOT = appleIncRootCertificate();
const SANDBOX_2016 = read('apple/legacy-receipt-sandbox-2016.b64');
const PRODUCTION_2024 = read('apple/legacy-receipt-production-2024.b64');

type Outcome = { accepted: true; receipt: AppReceipt } | { accepted: false; rejection?: AppReceiptRejection };

function ours(receipt: string, roots: readonly X509Certificate[]): Outcome {
  try {
    return { accepted: true, receipt: verifyAppReceipt(receipt, roots) };
  } catch (error) {
    if (!(error instanceof AppReceiptError)) throw error;
    return { accepted: false, rejection: error.rejection };
  }
}

// --- The oracle: pkijs, plus Apple's rules read from what pkijs parsed ------------------------------

const hasExtension = (certificate: pkijs.Certificate, oid: string) =>
  (certificate.extensions ?? []).some((extension) => extension.extnID === oid);
const isCa = (certificate: pkijs.Certificate) =>
  (certificate.extensions ?? []).some(
    (extension) =>
      extension.extnID === '2.5.29.19' && (extension.parsedValue as pkijs.BasicConstraints | undefined)?.cA === true,
  );

/** The receipt's attributes, read with asn1js: [type, value OCTET STRING contents]. */
function attributesWithAsn1js(bytes: ArrayBuffer): [number, ArrayBuffer][] {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Set) || parsed.offset !== bytes.byteLength)
    throw new Error('not a SET');
  return parsed.result.valueBlock.value.map((attribute) => {
    const [type, , value] = (attribute as asn1js.Sequence).valueBlock.value as [
      asn1js.Integer,
      asn1js.Integer,
      asn1js.OctetString,
    ];
    return [type.valueBlock.valueDec, value.getValue()];
  });
}
const stringWithAsn1js = (bytes: ArrayBuffer) =>
  (asn1js.fromBER(bytes).result as asn1js.Utf8String | asn1js.IA5String).valueBlock.value;

async function oracle(receipt: string, roots: readonly X509Certificate[]): Promise<Outcome> {
  let signedData: pkijs.SignedData;
  let content: ArrayBuffer;
  let receiptRead: AppReceipt;
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(Buffer.from(receipt, 'base64'));
    if (contentInfo.contentType !== pkijs.ContentInfo.SIGNED_DATA) return { accepted: false };
    signedData = new pkijs.SignedData({ schema: contentInfo.content });
    if (signedData.encapContentInfo.eContentType !== pkijs.ContentInfo.DATA || signedData.signerInfos.length !== 1)
      return { accepted: false };
    content = signedData.encapContentInfo.eContent!.getValue();
    const attributes = attributesWithAsn1js(content);
    const value = (type: number, within = attributes) => within.find(([found]) => found === type)?.[1];
    receiptRead = {
      bundleId: stringWithAsn1js(value(2)!),
      createdAt: Date.parse(stringWithAsn1js(value(12)!)),
      purchases: attributes
        .filter(([type]) => type === 17)
        .map(([, inApp]) => {
          const fields = attributesWithAsn1js(inApp);
          const transactionId = stringWithAsn1js(value(1703, fields)!);
          const original = value(1705, fields);
          const product = value(1702, fields);
          const expires = value(1708, fields);
          const expiresDate = expires && stringWithAsn1js(expires);
          return {
            transactionId,
            originalTransactionId: original ? stringWithAsn1js(original) : transactionId,
            productId: product && stringWithAsn1js(product),
            expiresAt: expiresDate ? Date.parse(expiresDate) : undefined,
          };
        }),
    };
  } catch {
    return { accepted: false };
  }
  const signer = signedData.signerInfos[0]!;
  const digest = signer.digestAlgorithm.algorithmId;
  const signatureAlgorithm = signer.signatureAlgorithm.algorithmId;
  const rsaFor = digest === OIDS.sha1 ? OIDS.sha1WithRsa : OIDS.sha256WithRsa;
  if (
    ![OIDS.sha1, OIDS.sha256].includes(digest as never) ||
    ![OIDS.rsaEncryption, rsaFor].includes(signatureAlgorithm as never)
  )
    return { accepted: false };
  // RFC 5652 5.3, which pkijs leaves to its caller: signed attributes state the content's type.
  const statedTypes = signer.signedAttrs?.attributes.filter((attribute) => attribute.type === OIDS.contentType);
  if (
    statedTypes &&
    (statedTypes.length !== 1 ||
      (statedTypes[0]!.values[0] as asn1js.ObjectIdentifier).getValue() !== pkijs.ContentInfo.DATA)
  )
    return { accepted: false };
  let path: pkijs.Certificate[];
  try {
    const result = await signedData.verify({
      signer: 0,
      trustedCerts: roots.map((root) => pkijs.Certificate.fromBER(root.raw)),
      checkChain: true,
      checkDate: new Date(receiptRead.createdAt),
      extendedMode: true,
    });
    if (!result.signatureVerified) return { accepted: false };
    path = result.certificatePath;
  } catch {
    return { accepted: false };
  }
  const [leaf, intermediate] = path;
  const apples =
    path.length === 3 &&
    hasExtension(leaf!, '1.2.840.113635.100.6.11.1') &&
    hasExtension(intermediate!, '1.2.840.113635.100.6.2.1') &&
    isCa(intermediate!);
  return apples ? { accepted: true, receipt: receiptRead } : { accepted: false };
}

/** Ours and the oracle on one receipt: the same verdict, and the same contents when accepted. */
async function judgedAlike(receipt: string, roots: readonly X509Certificate[]): Promise<Outcome> {
  const mine = ours(receipt, roots);
  const theirs = await oracle(receipt, roots);
  expect({ ...mine, rejection: undefined }).toEqual({ ...theirs, rejection: undefined });
  return mine;
}

// --- Real receipts Apple signed ---------------------------------------------------------------------

/** A real receipt changed through pkijs, whose encoding of the unchanged receipt is byte for byte Apple's. */
function changed(receipt: string, change: (signedData: pkijs.SignedData) => void): string {
  const contentInfo = pkijs.ContentInfo.fromBER(Buffer.from(receipt, 'base64'));
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  change(signedData);
  return Buffer.from(
    new pkijs.ContentInfo({ contentType: contentInfo.contentType, content: signedData.toSchema(true) })
      .toSchema()
      .toBER(),
  ).toString('base64');
}
const flipped = (octets: asn1js.OctetString, at: number) =>
  new asn1js.OctetString({ valueHex: flipByte(Buffer.from(octets.getValue()), at) });

describe('Apple Inc. Root, embedded', () => {
  it('is the RSA root that anchors legacy receipts (pinned SHA-256 fingerprint)', () => {
    expect(createHash('sha256').update(APPLE_INC_ROOT.raw).digest('hex').toUpperCase()).toBe(
      'B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024',
    );
    expect(APPLE_INC_ROOT.subject).toContain('CN=Apple Root CA');
    expect(APPLE_INC_ROOT.publicKey.asymmetricKeyType).toBe('rsa');
  });
});

describe('legacy app receipts: real receipts Apple signed, ours against pkijs', () => {
  it.each([
    [
      'the 2016 sandbox receipt (SHA-1, first WWDR intermediate)',
      SANDBOX_2016,
      {
        bundleId: 'com.zhihu.test',
        createdAt: Date.parse('2016-07-23T06:21:11Z'),
        purchases: [
          {
            transactionId: '1000000225325901',
            originalTransactionId: '1000000225325901',
            productId: 'com.zhihu.test.test_1',
            expiresAt: undefined,
          },
        ],
      },
    ],
    [
      'the 2024 production receipt (SHA-256, G5 intermediate)',
      PRODUCTION_2024,
      {
        bundleId: 'com.xiaoqi.videoget',
        createdAt: Date.parse('2024-02-25T09:35:13Z'),
        purchases: [
          {
            transactionId: '570001459824088',
            originalTransactionId: '570001459824088',
            productId: 'com.xiaoqi.videoget.monthly',
            expiresAt: Date.parse('2024-02-28T08:59:28Z'),
          },
        ],
      },
    ],
  ])('%s verifies under Apple Inc. Root, with the same contents', async (_name, receipt, expected) => {
    expect(await judgedAlike(receipt, [APPLE_INC_ROOT])).toEqual({ accepted: true, receipt: expected });
    expect(decodeAppReceipt(receipt, { bundleId: expected.bundleId }, [APPLE_INC_ROOT])).toEqual(expected);
  });

  it("passes a verifier's default roots, which then needs the App Store Server API; another app's verifier refuses it", async () => {
    const verify = (bundleId: string) =>
      appStoreVerifier({ bundleId, environment: 'Production' })
        .verify(PRODUCTION_2024)
        .catch((error: unknown) => error);
    expect(await verify('com.xiaoqi.videoget')).toMatchObject({
      kind: 'VERIFICATION_FAILED',
      message: expect.stringContaining('App Store Server API credentials'),
    });
    expect(await verify('com.example.subs')).toMatchObject({
      kind: 'INVALID_RECEIPT',
      message: expect.stringContaining('another app'),
    });
  });

  it("is judged at the receipt's creation date: the 2016 signing certificate has long expired", () => {
    const signer = new pkijs.SignedData({
      schema: pkijs.ContentInfo.fromBER(Buffer.from(SANDBOX_2016, 'base64')).content,
    }).certificates![0] as pkijs.Certificate;
    expect(signer.notAfter.value.getTime()).toBeLessThan(Date.now());
    expect(ours(SANDBOX_2016, [APPLE_INC_ROOT]).accepted).toBe(true);
  });

  it('is refused for another app (bundle id)', () => {
    for (const receipt of [SANDBOX_2016, PRODUCTION_2024]) {
      expect(() => decodeAppReceipt(receipt, { bundleId: 'com.example.subs' }, [APPLE_INC_ROOT])).toThrow(
        expect.objectContaining({ kind: 'INVALID_RECEIPT', message: expect.stringContaining('another app') }),
      );
    }
  });

  it.each<[string, (signedData: pkijs.SignedData) => void, AppReceiptRejection]>([
    [
      'one byte of the content changed',
      (s) => void (s.encapContentInfo.eContent = flipped(s.encapContentInfo.eContent!, 200)),
      'signature',
    ],
    [
      'the last byte of the content changed',
      (s) => void (s.encapContentInfo.eContent = flipped(s.encapContentInfo.eContent!, -1)),
      'signature',
    ],
    [
      'the signature changed',
      (s) => void (s.signerInfos[0]!.signature = flipped(s.signerInfos[0]!.signature, 100)),
      'signature',
    ],
    ['the certificates removed', (s) => void (s.certificates = undefined), 'signature'],
    ['the intermediate and root removed', (s) => void (s.certificates = s.certificates!.slice(0, 1)), 'chain'],
    [
      "the other receipt's certificates in their place",
      (s) =>
        void (s.certificates = certificatesOf(
          s.digestAlgorithms[0]!.algorithmId === OIDS.sha1 ? PRODUCTION_2024 : SANDBOX_2016,
        )),
      'signature',
    ],
    [
      "the stand-in receipt chain's certificates in their place",
      (s) =>
        void (s.certificates = ['leaf.pem', 'intermediate.pem', 'root.pem'].map((name) =>
          pkijs.Certificate.fromBER(receiptChainCertificate(name).raw),
        )),
      'signature',
    ],
    [
      "the other receipt's intermediate in place of its own",
      (s) =>
        void (s.certificates = [
          s.certificates![0]!,
          certificatesOf(s.digestAlgorithms[0]!.algorithmId === OIDS.sha1 ? PRODUCTION_2024 : SANDBOX_2016)[1]!,
        ]),
      'chain',
    ],
  ])('is refused with %s, as pkijs refuses it', async (_name, change, rejection) => {
    for (const receipt of [SANDBOX_2016, PRODUCTION_2024]) {
      const broken = changed(receipt, change);
      expect(await judgedAlike(broken, [APPLE_INC_ROOT])).toEqual({ accepted: false, rejection });
    }
  });

  it("is refused under another root (the stand-in's), as pkijs refuses it", async () => {
    for (const receipt of [SANDBOX_2016, PRODUCTION_2024])
      expect(await judgedAlike(receipt, [RECEIPT_ROOT])).toEqual({ accepted: false, rejection: 'chain' });
  });
});

function certificatesOf(receipt: string): pkijs.Certificate[] {
  return new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(Buffer.from(receipt, 'base64')).content })
    .certificates as pkijs.Certificate[];
}

// --- Receipts of the stand-in receipt chain, broken one rule at a time ---------------------------------

const LEAF = receiptChainCertificate('leaf.pem');
const validFrom = Date.parse(LEAF.validFrom);
const validTo = Date.parse(LEAF.validTo);
const chain = (leaf: string, intermediate: string, root = 'root.pem') => ({
  certificates: [leaf, intermediate, root],
  signerCertificate: leaf,
});

/** Variants Apple's receipts (or CMS) allow: both must accept them. */
const VARIANTS: Record<string, SignOptions> = {
  'SHA-256, rsaEncryption': {},
  'SHA-1, rsaEncryption': { digest: 'sha1' },
  'SHA-256, sha256WithRSAEncryption': { signatureOid: OIDS.sha256WithRsa },
  'SHA-1, sha1WithRSAEncryption': { digest: 'sha1', signatureOid: OIDS.sha1WithRsa },
  'signed attributes': { signedAttributes: {} },
  'certificates in another order': {
    certificates: ['root.pem', 'intermediate.pem', 'leaf.pem'],
    signerCertificate: 'leaf.pem',
  },
  'no root included': { certificates: ['leaf.pem', 'intermediate.pem'] },
};

/** One rule broken, and the rejection ours must give for it. */
const BREAKS: Record<string, { options?: SignOptions; createdAt?: number; rejection: AppReceiptRejection }> = {
  'one content byte changed': {
    options: { tamperContent: (content) => flipByte(content, 20) },
    rejection: 'signature',
  },
  'one signature bit changed': {
    options: { tamperSignature: (signature) => flipByte(signature, 9) },
    rejection: 'signature',
  },
  'signed by another key': { options: { key: receiptChainKey('intermediate.p8') }, rejection: 'signature' },
  'no certificates': { options: { certificates: [] }, rejection: 'signature' },
  'signer certificate not included': {
    options: { certificates: ['intermediate.pem', 'root.pem'], signerCertificate: 'leaf.pem' },
    rejection: 'signature',
  },
  'SHA-384': { options: { digestOid: OIDS.sha384 }, rejection: 'signature' },
  'SHA-256 digest with sha1WithRSAEncryption': {
    options: { digest: 'sha256', signatureOid: OIDS.sha1WithRsa },
    rejection: 'signature',
  },
  'signed attributes with another digest': {
    options: { signedAttributes: { messageDigest: Buffer.alloc(32, 7) } },
    rejection: 'signature',
  },
  'signed attributes with another content type': {
    options: { signedAttributes: { contentType: OIDS.envelopedData } },
    rejection: 'signature',
  },
  'content not id-data': { options: { eContentType: OIDS.envelopedData }, rejection: 'malformed' },
  'not signedData': { options: { contentType: OIDS.data }, rejection: 'malformed' },
  'two signers': { options: { signerInfos: 2 }, rejection: 'malformed' },
  'no signer': { options: { signerInfos: 0 }, rejection: 'malformed' },
  'leaf without the receipt-signing OID': {
    options: chain('negative/leaf-without-oid.pem', 'intermediate.pem'),
    rejection: 'chain',
  },
  'intermediate without the WWDR OID': {
    options: chain('negative/leaf-under-intermediate-without-oid.pem', 'negative/intermediate-without-oid.pem'),
    rejection: 'chain',
  },
  'intermediate not a CA': {
    options: chain('negative/leaf-under-not-ca.pem', 'negative/intermediate-not-ca.pem'),
    rejection: 'chain',
  },
  'under an untrusted root': {
    options: chain(
      'negative/leaf-under-untrusted-root.pem',
      'negative/intermediate-under-untrusted-root.pem',
      'negative/untrusted-root.pem',
    ),
    rejection: 'chain',
  },
  'created before the certificates': { createdAt: validFrom - 86_400_000, rejection: 'certificate' },
  'created after them': { createdAt: validTo + 86_400_000, rejection: 'certificate' },
};

const transactionId = fc.bigInt({ min: 1_000_000_000_000_000n, max: 2_999_999_999_999_999n }).map(String);
const receiptArbitrary = fc.record({
  bundleId: fc.constantFrom('com.example.subs', 'com.example.другое', 'c'),
  purchases: fc.array(
    fc.record({
      transactionId,
      originalTransactionId: transactionId,
      productId: fc.constantFrom('premium_monthly', 'pro_yearly'),
    }),
    { maxLength: 3 },
  ),
  // Whole seconds, as receipts state them, while the stand-in chain is valid.
  createdAt: fc
    .integer({
      min: Math.ceil(validFrom / 1000),
      max: Math.floor(Math.min(validTo, validFrom + 3650 * 86_400_000) / 1000),
    })
    .map((s) => s * 1000),
  variant: fc.constantFrom(...Object.keys(VARIANTS)),
  breaks: fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as string[]) },
    { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom(...Object.keys(BREAKS)), { minLength: 1, maxLength: 1 }) },
  ),
});

describe('legacy app receipts: generated receipts of the stand-in receipt chain, ours against pkijs', () => {
  it("accepts exactly what pkijs (with Apple's rules) accepts, reads the same contents, and refuses each break for its rule", async () => {
    const tally = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(receiptArbitrary, async ({ bundleId, purchases, createdAt, variant, breaks }) => {
        const broken = breaks.map((name) => BREAKS[name]!);
        const options = Object.assign({}, VARIANTS[variant], ...broken.map((b) => b.options ?? {})) as SignOptions;
        const created = broken.find((b) => b.createdAt !== undefined)?.createdAt ?? createdAt;
        const receipt = signReceipt(receiptPayload({ bundleId, purchases, createdAt: new Date(created) }), options);
        const mine = await judgedAlike(receipt, [RECEIPT_ROOT]);
        if (broken.length === 0)
          expect(mine).toEqual({ accepted: true, receipt: { bundleId, createdAt: created, purchases } });
        else expect(mine).toEqual({ accepted: false, rejection: broken[0]!.rejection });
        const key = mine.accepted ? 'accepted' : mine.rejection!;
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    console.log(`legacy receipt differential: ${JSON.stringify(Object.fromEntries(tally))}`);
    expect([...tally.keys()].sort()).toEqual(['accepted', 'certificate', 'chain', 'malformed', 'signature']);
  }, 120_000);

  it.each(Object.entries(BREAKS))(
    '%s: refused, as pkijs refuses it',
    async (_name, { options, createdAt, rejection }) => {
      const receipt = signReceipt(
        receiptPayload({
          bundleId: 'com.example.subs',
          purchases: [{ transactionId: '2000000000000001' }],
          createdAt: createdAt === undefined ? undefined : new Date(createdAt),
        }),
        options,
      );
      expect(await judgedAlike(receipt, [RECEIPT_ROOT])).toEqual({ accepted: false, rejection });
    },
  );

  it('an ECDSA signer (the JWS stand-in chain, which carries the same OIDs) is refused at the signature', () => {
    const ecdsa = {
      certificates: ['../leaf.pem', '../intermediate.pem', '../root.pem'],
      key: createPrivateKey(readFileSync(new URL('../fixtures/app-store-standin/leaf.p8', import.meta.url))),
    };
    for (const signatureOid of [OIDS.rsaEncryption, '1.2.840.10045.4.3.2']) {
      const receipt = signReceipt(receiptPayload({ bundleId: 'com.example.subs', purchases: [] }), {
        ...ecdsa,
        signatureOid,
      });
      expect(ours(receipt, [STAND_IN_ROOT])).toEqual({ accepted: false, rejection: 'signature' });
    }
  });

  it('a receipt is read once: the shape check and the verification that follows share the reading', () => {
    const sandbox = readSignedReceipt(SANDBOX_2016);
    expect(readSignedReceipt(SANDBOX_2016)).toBe(sandbox);
    // Another receipt is read afresh, and so is the first one after it: only the last is remembered.
    expect(readSignedReceipt(PRODUCTION_2024)).not.toBe(sandbox);
    const reread = readSignedReceipt(SANDBOX_2016);
    expect(reread).not.toBe(sandbox);
    expect(reread).toEqual(sandbox);
  });

  it('an unsigned receipt (what anyone can make from a transaction id) is refused whatever roots are trusted', async () => {
    const receipt = unsignedAppReceipt('com.example.subs', '2000000000000001');
    expect(() => requireAppReceiptShape(receipt)).toThrow(expect.objectContaining({ kind: 'INVALID_RECEIPT' }));
    for (const roots of [[RECEIPT_ROOT], [APPLE_INC_ROOT], []])
      expect(await judgedAlike(receipt, roots)).toEqual({ accepted: false, rejection: 'malformed' });
  });

  it('cut-off receipts and garbage are refused with an AppReceiptError (INVALID_RECEIPT), never anything else', () => {
    const bytes = Buffer.from(
      signReceipt(receiptPayload({ bundleId: 'com.example.subs', purchases: [{ transactionId: '2000000000000001' }] })),
      'base64',
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.integer({ min: 0, max: bytes.length - 1 }),
        (cut, garbage, at) => {
          const [cutOff, noise, flipped] = [bytes.subarray(0, cut), Buffer.from(garbage), flipByte(bytes, at)].map(
            (b) => b.toString('base64'),
          ) as [string, string, string];
          expect(ours(cutOff, [RECEIPT_ROOT]).accepted).toBe(false);
          expect(ours(noise, [RECEIPT_ROOT]).accepted).toBe(false);
          // A flipped byte the verification does not depend on (769 of the 3,356 positions, measured)
          // leaves the receipt valid, but never changes what it says.
          const outcome = ours(flipped, [RECEIPT_ROOT]);
          expect(outcome.accepted ? outcome.receipt.bundleId : 'refused').toMatch(/^(com\.example\.subs|refused)$/);
          for (const receipt of [cutOff, noise, flipped]) {
            try {
              requireAppReceiptShape(receipt);
            } catch (error) {
              expect(error).toBeInstanceOf(AppError);
              expect((error as AppError).kind).toBe('INVALID_RECEIPT');
            }
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });
});

describe('which purchase of a receipt the App Store is asked about', () => {
  const purchase = (transactionId: string, expiresAt?: string) => ({
    transactionId,
    originalTransactionId: transactionId,
    productId: 'p',
    expiresAt: expiresAt === undefined ? undefined : Date.parse(expiresAt),
  });

  it.each([
    [
      'the subscription whose period ends last, wherever it is listed',
      [
        purchase('consumable'),
        purchase('old', '2026-01-01T00:00:00Z'),
        purchase('latest', '2026-12-01T00:00:00Z'),
        purchase('middle', '2026-06-01T00:00:00Z'),
      ],
      'latest',
    ],
    [
      'the only subscription after a consumable',
      [purchase('consumable'), purchase('subscription', '2026-01-01T00:00:00Z')],
      'subscription',
    ],
    [
      'of two ending at the same time, the first listed',
      [purchase('first', '2026-12-01T00:00:00Z'), purchase('second', '2026-12-01T00:00:00Z')],
      'first',
    ],
    ['the first purchase when none is a subscription', [purchase('first'), purchase('second')], 'first'],
    ['nothing when there is no purchase', [], undefined],
  ])('%s', (_name, purchases, asked) => {
    expect(purchaseToAsk(purchases)?.transactionId).toBe(asked);
  });

  it("a signed receipt reads each purchase's expiration date (attribute 1708), empty for other purchases", () => {
    const receipt = signedAppReceipt({
      bundleId: 'com.example',
      purchases: [
        { transactionId: 'consumable-1' },
        { transactionId: 'sub-1', expiresAt: new Date('2026-12-01T00:00:00Z') },
      ],
    });
    const { purchases } = decodeAppReceipt(receipt, { bundleId: 'com.example' }, [RECEIPT_ROOT]);
    expect(purchases.map((p) => [p.transactionId, p.expiresAt])).toEqual([
      ['consumable-1', undefined],
      ['sub-1', Date.parse('2026-12-01T00:00:00Z')],
    ]);
    expect(purchaseToAsk(purchases)?.transactionId).toBe('sub-1');
  });
});
