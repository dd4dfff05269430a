/**
 * The PKCS#7 structure of a legacy app receipt, one element at a time (lib/stores/app-receipt.ts):
 * a receipt of the stand-in receipt chain is read as a DER tree (test/support/der-tree.ts), one
 * element is added, removed, retagged or renamed, and the verdict is written down. What CMS allows
 * and Apple's receipts use (CRLs, unsigned attributes, absent algorithm parameters, other elements
 * among the certificates) is accepted; anything else is 'malformed' where the structure is wrong and
 * 'signature' where an algorithm or a signed attribute is. Where the signature would refuse the
 * change anyway, the receipt is signed again after it, so that the structure rule alone decides.
 */
import { sign, type X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppReceiptError, type AppReceiptRejection, verifyAppReceipt } from '../../lib/stores/app-receipt.js';
import {
  der,
  integer,
  OIDS,
  oid,
  RECEIPT_ROOT,
  receiptChainCertificate,
  receiptChainKey,
  receiptPayload,
  type SignOptions,
  signReceipt,
} from '../support/app-receipts.js';
import { at, cloneDer, type DerNode, encodeDer, parseDer } from '../support/der-tree.js';

type Verdict = 'accepted' | AppReceiptRejection;

function verdictOf(receipt: Buffer | string, roots: readonly X509Certificate[] = [RECEIPT_ROOT]): Verdict {
  try {
    verifyAppReceipt(typeof receipt === 'string' ? receipt : receipt.toString('base64'), roots);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof AppReceiptError)) throw error;
    return error.rejection;
  }
}

const LEAF_KEY = receiptChainKey('leaf.p8');
const PAYLOAD = receiptPayload({ bundleId: 'com.example.subs', purchases: [{ transactionId: '2000000000000001' }] });
const treeOf = (options?: SignOptions, payload = PAYLOAD) =>
  parseDer(Buffer.from(signReceipt(payload, options), 'base64'));

const NULL: DerNode = { tag: 0x05, contents: Buffer.alloc(0) };
const node = (bytes: Buffer): DerNode => parseDer(bytes);

// Paths in ContentInfo { contentType, [0] { SignedData } }.
const SIGNED_DATA = [1, 0];
const ENCAP = [...SIGNED_DATA, 2];
const CERTIFICATES = [...SIGNED_DATA, 3];
const SIGNER_INFOS = [...SIGNED_DATA, -1];
const SIGNER = [...SIGNER_INFOS, 0];
// SignerInfo { version, sid { issuer, serial }, digestAlgorithm, [signedAttrs], signatureAlgorithm, signature }
const SID = [...SIGNER, 1];
const DIGEST_ALGORITHM = [...SIGNER, 2];
const SIGNATURE_ALGORITHM = [...SIGNER, -2];

/** With signed attributes, the signature is over their SET: sign it again after a change. */
function signAttributesAgain(tree: DerNode, digest: 'sha1' | 'sha256' = 'sha256'): void {
  const attributes = at(tree, ...SIGNER, 3);
  at(tree, ...SIGNER).children!.splice(-1, 1, {
    tag: 0x04,
    contents: sign(digest, encodeDer({ ...attributes, tag: 0x31 }), LEAF_KEY),
  });
}

/** Each change, on a fresh receipt signed without (or with) signed attributes, and its verdict. */
/** Edits the tree in place, or returns the bytes to send instead. */
type Change = (tree: DerNode) => unknown;
const bytesAfter = (tree: DerNode, change: Change): Buffer => {
  const replaced = change(tree);
  return Buffer.isBuffer(replaced) ? replaced : encodeDer(tree);
};

const STRUCTURE: [string, Change, Verdict, SignOptions?][] = [
  ['nothing changed', () => {}, 'accepted'],
  ['one byte after the ContentInfo', (t) => Buffer.concat([encodeDer(t), Buffer.of(0)]), 'malformed'],
  ['the ContentInfo a SET', (t) => void (t.tag = 0x31), 'malformed'],
  ['a third element in the ContentInfo', (t) => void t.children!.push(NULL), 'malformed'],
  ['a second element beside the SignedData', (t) => void at(t, 1).children!.push(NULL), 'malformed'],
  ['SignedData version 3', (t) => void at(t, ...SIGNED_DATA).children!.splice(0, 1, node(integer(3))), 'malformed'],
  ['the digest algorithms a SEQUENCE', (t) => void (at(t, ...SIGNED_DATA, 1).tag = 0x30), 'malformed'],
  [
    'CRLs ([1]) before the signer infos, as CMS allows',
    (t) => void at(t, ...SIGNED_DATA).children!.splice(-1, 0, { tag: 0xa1, children: [] }),
    'accepted',
  ],
  ['an element after the signer infos', (t) => void at(t, ...SIGNED_DATA).children!.push(NULL), 'malformed'],
  ['a third element in the EncapsulatedContentInfo', (t) => void at(t, ...ENCAP).children!.push(NULL), 'malformed'],
  ['no eContent in its [0]', (t) => void (at(t, ...ENCAP, 1).children = []), 'malformed'],
  [
    'a second OCTET STRING beside the eContent',
    (t) => void at(t, ...ENCAP, 1).children!.push({ tag: 0x04, contents: Buffer.of(1) }),
    'malformed',
  ],
  [
    'an element that is no certificate among the certificates (skipped)',
    (t) => void at(t, ...CERTIFICATES).children!.push({ tag: 0xa1, children: [] }),
    'accepted',
  ],
  [
    'a SEQUENCE among the certificates that is no certificate',
    (t) => void at(t, ...CERTIFICATES).children!.push({ tag: 0x30, children: [NULL] }),
    'malformed',
  ],
  [
    'unsigned attributes ([1]) after the signature',
    (t) => void at(t, ...SIGNER).children!.push({ tag: 0xa1, children: [] }),
    'accepted',
  ],
  [
    'two sets of unsigned attributes',
    (t) => void at(t, ...SIGNER).children!.push({ tag: 0xa1, children: [] }, { tag: 0xa1, children: [] }),
    'malformed',
  ],
  ['an element after the signature that is not [1]', (t) => void at(t, ...SIGNER).children!.push(NULL), 'malformed'],
  ['SignerInfo version 3', (t) => void at(t, ...SIGNER).children!.splice(0, 1, node(integer(3))), 'malformed'],
  ["a third element in the signer's id", (t) => void at(t, ...SID).children!.push(NULL), 'malformed'],
  ["the signer's issuer a SET", (t) => void (at(t, ...SID, 0).tag = 0x31), 'malformed'],
  ["the signer's serial an OCTET STRING", (t) => void (at(t, ...SID, 1).tag = 0x04), 'malformed'],
  [
    "the signer named by the leaf's serial under another issuer (the leaf's own subject)",
    (t) => {
      const leafSubject = at(parseDer(receiptChainCertificate('leaf.pem').raw), 0, 5);
      at(t, ...SID).children!.splice(0, 1, cloneDer(leafSubject));
    },
    'signature',
  ],
  // AlgorithmIdentifier { algorithm, parameters NULL or absent }, for the digest and the signature.
  ['the digest algorithm without parameters', (t) => void at(t, ...DIGEST_ALGORITHM).children!.pop(), 'accepted'],
  ['the signature algorithm without parameters', (t) => void at(t, ...SIGNATURE_ALGORITHM).children!.pop(), 'accepted'],
  [
    'the digest algorithm with a NULL that holds a byte',
    (t) => void at(t, ...DIGEST_ALGORITHM).children!.splice(1, 1, { tag: 0x05, contents: Buffer.of(0) }),
    'signature',
  ],
  [
    'the digest algorithm with an OID for parameters',
    (t) => void at(t, ...DIGEST_ALGORITHM).children!.splice(1, 1, node(oid(OIDS.data))),
    'signature',
  ],
  [
    'the digest algorithm with an empty SEQUENCE for parameters',
    (t) => void at(t, ...DIGEST_ALGORITHM).children!.splice(1, 1, { tag: 0x30, children: [] }),
    'signature',
  ],
  [
    'the signature algorithm with a third element',
    (t) => void at(t, ...SIGNATURE_ALGORITHM).children!.push(NULL),
    'signature',
  ],
  // Signed attributes: exactly one content type (id-data) and one message digest, each one value.
  ['signed attributes', () => {}, 'accepted', { signedAttributes: {} }],
  [
    'signed attributes in BER, of indefinite length (not the DER that was signed)',
    (t) => {
      at(t, ...SIGNER, 3).indefinite = true;
      signAttributesAgain(t);
    },
    'malformed',
    { signedAttributes: {} },
  ],
  ...(
    [
      ['a second value in the content type', 0],
      ['a second value in the message digest', 1],
    ] as const
  ).map(([name, index]): (typeof STRUCTURE)[number] => [
    name,
    (t) => {
      const values = at(t, ...SIGNER, 3, index, 1);
      values.children!.push(cloneDer(values.children![0]!));
      signAttributesAgain(t);
    },
    'signature',
    { signedAttributes: {} },
  ]),
  ...(
    [
      ['a second content type attribute', 0],
      ['a second message digest attribute', 1],
    ] as const
  ).map(([name, index]): (typeof STRUCTURE)[number] => [
    name,
    (t) => {
      const attributes = at(t, ...SIGNER, 3);
      attributes.children!.push(cloneDer(attributes.children![index]!));
      signAttributesAgain(t);
    },
    'signature',
    { signedAttributes: {} },
  ]),
];

describe('legacy app receipts: the PKCS#7 structure, one element at a time', () => {
  it('the tree encodes back to the very bytes it was read from', () => {
    const receipt = Buffer.from(signReceipt(PAYLOAD, { signedAttributes: {} }), 'base64');
    expect(encodeDer(parseDer(receipt)).equals(receipt)).toBe(true);
  });

  it.each(STRUCTURE)('%s', (_name, change, verdict, options) => {
    expect(verdictOf(bytesAfter(treeOf(options), change))).toBe(verdict);
  });

  it('base64 with line breaks and spaces around it, as some clients send it, is the same receipt', () => {
    const receipt = signReceipt(PAYLOAD);
    const wrapped = `\n ${receipt.replace(/(.{76})/g, '$1\n')}\n`;
    expect(verdictOf(wrapped)).toBe('accepted');
  });
});

// --- The certificate path, one name or one key changed (receipt-chain/make-chain.sh) --------------

const signedWith = (certificates: string[]) => signReceipt(PAYLOAD, { certificates, signerCertificate: 'leaf.pem' });

describe('legacy app receipts: the intermediate and the root, by name and by key', () => {
  it.each<[string, string[], Verdict]>([
    ['the good chain', ['leaf.pem', 'intermediate.pem', 'root.pem'], 'accepted'],
    [
      'an intermediate of the good name whose key did not sign the leaf, alone',
      ['leaf.pem', 'negative/intermediate-other-key.pem', 'root.pem'],
      'chain',
    ],
    [
      'that intermediate listed before the good one: the good one is found',
      ['leaf.pem', 'negative/intermediate-other-key.pem', 'intermediate.pem', 'root.pem'],
      'accepted',
    ],
    [
      "the good intermediate's key under another name than the leaf's issuer",
      ['leaf.pem', 'negative/intermediate-renamed.pem', 'root.pem'],
      'chain',
    ],
    [
      'an intermediate of the good name and key under an untrusted root, listed before the good one',
      ['leaf.pem', 'negative/intermediate-under-untrusted-root.pem', 'intermediate.pem', 'root.pem'],
      'accepted',
    ],
    [
      'a version 1 certificate (no version field) listed first, beside the chain',
      ['negative/version-1.pem', 'leaf.pem', 'intermediate.pem', 'root.pem'],
      'accepted',
    ],
  ])('%s', (_name, certificates, verdict) => {
    expect(verdictOf(signedWith(certificates))).toBe(verdict);
  });

  it("a trusted certificate with both of Apple's extensions that signs the receipt itself is no chain", () => {
    const signer = 'negative/root-with-both-oids.pem';
    const receipt = signReceipt(PAYLOAD, {
      certificates: [signer],
      signerCertificate: signer,
      key: receiptChainKey('negative/untrusted-root.p8'),
    });
    expect(verdictOf(receipt, [receiptChainCertificate(signer)])).toBe('chain');
  });

  it("a trusted root with the good root's key under another name does not issue the intermediate", () => {
    const receipt = signedWith(['leaf.pem', 'intermediate.pem']);
    expect(verdictOf(receipt, [receiptChainCertificate('negative/root-renamed.pem')])).toBe('chain');
    expect(verdictOf(receipt, [receiptChainCertificate('negative/root-renamed.pem'), RECEIPT_ROOT])).toBe('accepted');
  });
});

// --- The receipt's own attributes (the signed content) --------------------------------------------

/** The payload's attributes: SET { SEQUENCE { type, version, OCTET STRING value } ... }. */
const payloadTree = () => parseDer(PAYLOAD);
const attributeValue = (payload: DerNode, type: number): DerNode => {
  const found = payload.children!.find(
    (attribute) => at(attribute, 0).contents!.readUIntBE(0, at(attribute, 0).contents!.length) === type,
  );
  if (!found) throw new Error(`no attribute ${type}`);
  return at(found, 2);
};
const ia5 = (text: string) => der(0x16, Buffer.from(text, 'latin1'));

describe("legacy app receipts: the content's attributes, signed as changed", () => {
  it.each<[string, Change, Verdict]>([
    ['the attributes a SEQUENCE', (p) => void (p.tag = 0x30), 'malformed'],
    ['one byte after the SET of attributes', (p) => Buffer.concat([encodeDer(p), Buffer.of(0)]), 'malformed'],
    ['the bundle id an IA5String', (p) => void (attributeValue(p, 2).contents = ia5('com.example.subs')), 'malformed'],
    [
      'one byte after the bundle id in its attribute',
      (p) => {
        const value = attributeValue(p, 2);
        value.contents = Buffer.concat([value.contents!, Buffer.of(0)]);
      },
      'malformed',
    ],
    [
      'a creation date in month 13',
      (p) => void (attributeValue(p, 12).contents = ia5('2026-13-01T00:00:00Z')),
      'malformed',
    ],
    [
      'a creation date in the extended-year form Date.parse reads',
      (p) => void (attributeValue(p, 12).contents = ia5('+002026-12-01T00:00:00Z')),
      'malformed',
    ],
  ])('%s', (_name, change, verdict) => {
    expect(verdictOf(signReceipt(bytesAfter(payloadTree(), change)))).toBe(verdict);
  });

  it.each([
    ['in the extended-year form', '+002026-12-01T00:00:00Z'],
    ['with a character after it', '2026-12-01T00:00:00Z!'],
  ])('an expiration date %s is no date: the purchase is no subscription', (_name, date) => {
    const payload = receiptPayload({
      bundleId: 'com.example.subs',
      purchases: [{ transactionId: '2000000000000001', expiresAt: new Date('2026-12-01T00:00:00Z') }],
    });
    const edited = parseDer(payload);
    const inApp = parseDer(attributeValue(edited, 17).contents!);
    attributeValue(inApp, 1708).contents = ia5(date);
    attributeValue(edited, 17).contents = encodeDer(inApp);
    const read = verifyAppReceipt(signReceipt(encodeDer(edited)), [RECEIPT_ROOT]);
    expect(read.purchases.map((p) => p.expiresAt)).toEqual([undefined]);
    expect(verifyAppReceipt(signReceipt(payload), [RECEIPT_ROOT]).purchases.map((p) => p.expiresAt)).toEqual([
      Date.parse('2026-12-01T00:00:00Z'),
    ]);
  });
});
