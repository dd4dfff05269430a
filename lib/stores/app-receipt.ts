/**
 * Legacy (StoreKit 1) app receipts: a PKCS#7 / CMS SignedData (RFC 5652) whose content is the
 * receipt, a SET of attributes. Nothing in a receipt counts until Apple's signature over it is
 * verified, with node:crypto (pkijs, which does the same, would take the verifying functions past
 * their bundle budget: docs/decisions/legacy-receipt-verifier.md; it checks this module in
 * test/unit/app-receipt.test.ts):
 *
 * - ContentInfo is signedData; SignedData version 1 with exactly one signer, identified by issuer
 *   and serial number, among the certificates the receipt carries;
 * - the signed content is id-data, an OCTET STRING holding the receipt's SET of attributes;
 * - the signature is RSA PKCS#1 v1.5 with SHA-1 (older receipts) or SHA-256, over the content
 *   or, when signed attributes are present, over their DER SET (whose content type must be
 *   id-data and whose message digest must be the content's);
 * - the signer (the leaf, with Apple's receipt-signing OID 1.2.840.113635.100.6.11.1) is signed
 *   by, and issued under the name of, an intermediate of the receipt that is a CA with Apple's
 *   WWDR OID 1.2.840.113635.100.6.2.1, itself signed by, and issued under the name of, one of our
 *   trusted roots (only a root we embed counts, never one the receipt carries);
 * - leaf, intermediate and root are valid at the receipt's creation date (attribute 12): Apple's
 *   receipt-signing certificates expire while the receipts they signed stay valid.
 *
 * Which app the receipt is for (attribute 2, the bundle id) is the caller's check.
 */
import { constants, createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import { isValidAt } from './certificates.js';
import {
  childrenOf,
  contentsOf,
  type Element,
  encodeOid,
  hasExtension,
  octetStringContents,
  readElement,
  sameBytes,
} from './der.js';

/** Why a receipt was refused; `chain` and `certificate` mean it is not Apple's. */
export type AppReceiptRejection = 'malformed' | 'signature' | 'chain' | 'certificate';

export class AppReceiptError extends Error {
  constructor(
    readonly rejection: AppReceiptRejection,
    options?: { cause?: unknown },
  ) {
    super(`app receipt rejected: ${rejection}`, options);
  }
}

/** An in-app purchase the receipt lists. */
export interface AppReceiptPurchase {
  transactionId: string;
  /** Every renewal of a subscription shares it (the transaction id when the receipt omits it). */
  originalTransactionId: string;
  productId: string | undefined;
  /** An auto-renewable subscription's expiration date (ms); undefined for other purchases. */
  expiresAt: number | undefined;
}

export interface AppReceipt {
  bundleId: string;
  /** The receipt's creation date (ms), at which its certificates were judged. */
  createdAt: number;
  purchases: AppReceiptPurchase[];
}

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRsa: '1.2.840.113549.1.1.5',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  leaf: '1.2.840.113635.100.6.11.1',
  intermediate: '1.2.840.113635.100.6.2.1',
} as const;

// Enums, not objects: esbuild writes their values where they are used (a DER tag is a byte).
enum TAG {
  integer = 0x02,
  octetString = 0x04,
  null = 0x05,
  oid = 0x06,
  utf8String = 0x0c,
  ia5String = 0x16,
  sequence = 0x30,
  set = 0x31,
  explicit0 = 0xa0,
}

enum ATTRIBUTE {
  bundleId = 2,
  creationDate = 12,
  inAppPurchase = 17,
  productId = 1702,
  transactionId = 1703,
  originalTransactionId = 1705,
  expiresDate = 1708,
}

const reject = (rejection: AppReceiptRejection, cause?: unknown): never => {
  throw new AppReceiptError(rejection, cause === undefined ? undefined : { cause });
};

/** An element and its encoding (identifier, length and contents). */
interface Node extends Element {
  der: Uint8Array;
}

function nodeAt(buffer: Uint8Array, offset: number): Node {
  const element = readElement(buffer, offset);
  return { ...element, der: buffer.subarray(offset, element.next) };
}

function nodesOf(buffer: Uint8Array, parent: Element): Node[] {
  let offset = parent.start;
  return childrenOf(buffer, parent).map((child) => {
    const node = { ...child, der: buffer.subarray(offset, child.next) };
    offset = child.next;
    return node;
  });
}

function expectTag(node: Node | undefined, tag: number): Node {
  if (node?.tag !== tag) reject('malformed');
  return node!;
}

const isOid = (buffer: Uint8Array, node: Node | undefined, dotted: string) =>
  node?.tag === TAG.oid && sameBytes(contentsOf(buffer, node), encodeOid(dotted));

/** The OID of an AlgorithmIdentifier whose parameters are absent or NULL. */
function algorithm(buffer: Uint8Array, node: Node | undefined, allowed: readonly string[]): string {
  const [id, parameters, ...rest] = nodesOf(buffer, expectTag(node, TAG.sequence));
  const found = allowed.find((dotted) => isOid(buffer, id, dotted));
  const plain =
    rest.length === 0 &&
    (parameters === undefined || (parameters.tag === TAG.null && parameters.end === parameters.start));
  return found !== undefined && plain ? found : reject('signature');
}

/** TBSCertificate's serialNumber and issuer (encodings), which a SignerInfo's sid names. */
function serialAndIssuer(certificate: Uint8Array): [Uint8Array, Uint8Array] {
  const [tbs] = nodesOf(certificate, readElement(certificate, 0));
  const fields = nodesOf(certificate, expectTag(tbs, TAG.sequence));
  const [serial, , issuer] = fields[0]?.tag === TAG.explicit0 ? fields.slice(1) : fields;
  return [expectTag(serial, TAG.integer).der, expectTag(issuer, TAG.sequence).der];
}

interface SignedReceipt {
  content: Uint8Array;
  certificates: X509Certificate[];
  signer: X509Certificate;
  digest: 'sha1' | 'sha256';
  /** What the signature covers: the content, or the DER SET of the signed attributes. */
  signedBytes: Uint8Array;
  signature: Uint8Array;
}

/**
 * The last receipt read (nothing reads it but its judges): a verification checks a receipt's
 * shape before it fetches the store credentials, then verifies it, and reads it once.
 */
let lastRead: { receiptData: string; signed: SignedReceipt } | undefined;

/**
 * The CMS structure of a base64 receipt, read but not yet judged: throws AppReceiptError
 * ('malformed' for what is not a signed receipt, 'signature' for an algorithm we do not accept).
 */
export function readSignedReceipt(receiptData: string): SignedReceipt {
  if (lastRead?.receiptData === receiptData) return lastRead.signed;
  try {
    // Base64 decoding skips whitespace (line breaks included).
    const signed = signedReceiptOf(Buffer.from(receiptData, 'base64'));
    lastRead = { receiptData, signed };
    return signed;
  } catch (error) {
    if (error instanceof AppReceiptError) throw error;
    return reject('malformed', error);
  }
}

function signedReceiptOf(der: Uint8Array): SignedReceipt {
  const contentInfo = nodeAt(der, 0);
  if (contentInfo.tag !== TAG.sequence || contentInfo.next !== der.length) reject('malformed');
  const [contentType, wrapped, ...extra] = nodesOf(der, contentInfo);
  if (!isOid(der, contentType, OID.signedData) || extra.length > 0) reject('malformed');
  const [signedData, ...more] = nodesOf(der, expectTag(wrapped, TAG.explicit0));
  if (more.length > 0) reject('malformed');
  // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, certificates [0] IMPLICIT OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET }
  const [version, digestAlgorithms, encapContentInfo, ...tail] = nodesOf(der, expectTag(signedData, TAG.sequence));
  if (!sameBytes(contentsOf(der, expectTag(version, TAG.integer)), Uint8Array.of(1))) reject('malformed');
  expectTag(digestAlgorithms, TAG.set);
  let next = 0;
  const certificateSet = tail[next]?.tag === TAG.explicit0 ? tail[next++] : undefined;
  if (tail[next]?.tag === 0xa1) next++; // CRLs: not needed to judge a receipt
  const signerInfos = expectTag(tail[next++], TAG.set);
  if (next !== tail.length) reject('malformed');

  // EncapsulatedContentInfo ::= SEQUENCE { eContentType id-data, eContent [0] EXPLICIT OCTET STRING }
  const [eContentType, eContentWrapper, ...encapExtra] = nodesOf(der, expectTag(encapContentInfo, TAG.sequence));
  if (!isOid(der, eContentType, OID.data) || encapExtra.length > 0) reject('malformed');
  const [eContent, ...contentExtra] = nodesOf(der, expectTag(eContentWrapper, TAG.explicit0));
  if (!eContent || contentExtra.length > 0) reject('malformed');
  const content = octetStringContents(der, eContent!);

  const certificates = (certificateSet ? nodesOf(der, certificateSet) : [])
    .filter((node) => node.tag === TAG.sequence)
    .map((node) => new X509Certificate(node.der));

  const signers = nodesOf(der, signerInfos);
  if (signers.length !== 1) reject('malformed');
  // SignerInfo ::= SEQUENCE { version 1, sid IssuerAndSerialNumber, digestAlgorithm, signedAttrs [0] IMPLICIT OPTIONAL, signatureAlgorithm, signature OCTET STRING, unsignedAttrs [1] OPTIONAL }
  const fields = nodesOf(der, expectTag(signers[0], TAG.sequence));
  const [signerVersion, sid, digestAlgorithm] = fields;
  const signedAttrs = fields[3]?.tag === TAG.explicit0 ? fields[3] : undefined;
  const [signatureAlgorithm, signatureValue, ...unsigned] = fields.slice(signedAttrs ? 4 : 3);
  if (unsigned.length > 1 || (unsigned[0] && unsigned[0].tag !== 0xa1)) reject('malformed');
  if (!sameBytes(contentsOf(der, expectTag(signerVersion, TAG.integer)), Uint8Array.of(1))) reject('malformed');
  const [issuer, serial, ...sidExtra] = nodesOf(der, expectTag(sid, TAG.sequence));
  if (sidExtra.length > 0) reject('malformed');
  expectTag(issuer, TAG.sequence);
  expectTag(serial, TAG.integer);
  const signer = certificates.find((certificate) => {
    const [certificateSerial, certificateIssuer] = serialAndIssuer(certificate.raw);
    return sameBytes(certificateSerial, serial!.der) && sameBytes(certificateIssuer, issuer!.der);
  });
  if (!signer) return reject('signature');

  const digest = algorithm(der, digestAlgorithm, [OID.sha1, OID.sha256]) === OID.sha1 ? 'sha1' : 'sha256';
  const signatureOid = algorithm(der, signatureAlgorithm, [OID.rsaEncryption, OID.sha1WithRsa, OID.sha256WithRsa]);
  if (signatureOid !== OID.rsaEncryption && signatureOid !== (digest === 'sha1' ? OID.sha1WithRsa : OID.sha256WithRsa))
    reject('signature');
  const signature = contentsOf(der, expectTag(signatureValue, TAG.octetString));
  const signedBytes = signedAttrs ? signedAttributes(der, signedAttrs, content, digest) : content;
  return { content, certificates, signer, digest, signedBytes, signature };
}

/**
 * Signed attributes (RFC 5652 5.4): exactly one content type, id-data, and one message digest,
 * the content's; the signature covers their DER encoding as a SET.
 */
function signedAttributes(
  der: Uint8Array,
  attributes: Node,
  content: Uint8Array,
  digest: 'sha1' | 'sha256',
): Uint8Array {
  if (der[attributes.start - 1] === 0x80) reject('malformed'); // BER's indefinite length: not the DER that was signed
  const values = (oid: string) =>
    nodesOf(der, attributes)
      .map((attribute) => nodesOf(der, expectTag(attribute, TAG.sequence)))
      .filter(([type]) => isOid(der, type, oid))
      .map(([, set]) => nodesOf(der, expectTag(set, TAG.set)));
  const [contentTypes, ...otherContentTypes] = values(OID.contentType);
  const [digests, ...otherDigests] = values(OID.messageDigest);
  if (contentTypes?.length !== 1 || digests?.length !== 1 || otherContentTypes.length > 0 || otherDigests.length > 0)
    return reject('signature');
  if (!isOid(der, contentTypes[0], OID.data)) reject('signature');
  const messageDigest = contentsOf(der, expectTag(digests[0], TAG.octetString));
  if (!sameBytes(messageDigest, createHash(digest).update(content).digest())) reject('signature');
  return Buffer.concat([Uint8Array.of(TAG.set), attributes.der.subarray(1)]);
}

/** ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }: [type, value contents]. */
function attributesOf(buffer: Uint8Array): [number, Uint8Array][] {
  const set = nodeAt(buffer, 0);
  if (set.tag !== TAG.set || set.next !== buffer.length) reject('malformed');
  return nodesOf(buffer, set).map((attribute) => {
    const [type, , value] = nodesOf(buffer, expectTag(attribute, TAG.sequence));
    return [
      contentsOf(buffer, expectTag(type, TAG.integer)).reduce((n, byte) => n * 256 + byte, 0),
      contentsOf(buffer, expectTag(value, TAG.octetString)),
    ];
  });
}

/**
 * A string attribute's value: the ASN.1 string of that type inside the attribute's OCTET STRING.
 * UTF-8 reads an IA5String too (ASCII); a byte outside ASCII in one leaves no date to read.
 */
function stringIn(value: Uint8Array, tag: number): string {
  const string = nodeAt(value, 0);
  if (string.tag !== tag || string.next !== value.length) reject('malformed');
  return Buffer.from(contentsOf(value, string)).toString('utf8');
}

function first(attributes: [number, Uint8Array][], type: number): Uint8Array | undefined {
  return attributes.find(([found]) => found === type)?.[1];
}

/**
 * Apple's form of a date, as the start of the text: Date.parse also reads other forms (an extended
 * year, an offset), and reads nothing after the Z (NaN, refused or read as no date where it is used).
 */
function isAppleDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/.test(text);
}

function checkDates(certificate: X509Certificate, at: number): void {
  if (!isValidAt(certificate, at)) reject('certificate');
}

/**
 * Verifies a base64 app receipt signed under one of `roots` and returns what it says; throws
 * AppReceiptError.
 */
export function verifyAppReceipt(receiptData: string, roots: readonly X509Certificate[]): AppReceipt {
  try {
    return verified(readSignedReceipt(receiptData), roots);
  } catch (error) {
    if (error instanceof AppReceiptError) throw error;
    return reject('malformed', error);
  }
}

/** Signature first, then the chain; what the content says is read once its signer is Apple's. */
function verified(
  { content, certificates, signer, digest, signedBytes, signature }: SignedReceipt,
  roots: readonly X509Certificate[],
): AppReceipt {
  if (signer.publicKey.asymmetricKeyType !== 'rsa') reject('signature');
  let valid: boolean;
  try {
    valid = verifySignature(
      digest,
      signedBytes,
      { key: signer.publicKey, padding: constants.RSA_PKCS1_PADDING },
      signature,
    );
  } catch (error) {
    return reject('signature', error);
  }
  if (!valid) reject('signature');

  // The root whose dates count is the last trusted one that issued the intermediate.
  let root: X509Certificate | undefined;
  const intermediate = certificates.find((candidate) => {
    if (
      candidate === signer ||
      candidate.subject !== signer.issuer ||
      !candidate.ca ||
      !hasExtension(candidate.raw, OID.intermediate)
    )
      return false;
    if (!signer.verify(candidate.publicKey)) return false;
    root = roots
      .filter((trusted) => candidate.issuer === trusted.subject && candidate.verify(trusted.publicKey))
      .at(-1);
    return root !== undefined;
  });
  if (!intermediate || !root || !hasExtension(signer.raw, OID.leaf)) return reject('chain');

  const receipt = receiptOf(content);
  for (const certificate of [signer, intermediate, root]) checkDates(certificate, receipt.createdAt);
  return receipt;
}

function receiptOf(content: Uint8Array): AppReceipt {
  const attributes = attributesOf(content);
  const bundleId = first(attributes, ATTRIBUTE.bundleId);
  const creationDate = first(attributes, ATTRIBUTE.creationDate);
  if (!bundleId || !creationDate) return reject('malformed');
  const created = stringIn(creationDate, TAG.ia5String);
  if (!isAppleDate(created) || Number.isNaN(Date.parse(created))) reject('malformed');
  const purchases = attributes
    .filter(([type]) => type === ATTRIBUTE.inAppPurchase)
    .map(([, value]) => {
      const fields = attributesOf(value);
      const text = (type: number) => {
        const found = first(fields, type);
        return found && stringIn(found, TAG.utf8String);
      };
      const transactionId = text(ATTRIBUTE.transactionId);
      if (!transactionId) return reject('malformed');
      // Empty for purchases that are not subscriptions.
      const expires = first(fields, ATTRIBUTE.expiresDate);
      const expiresDate = expires && stringIn(expires, TAG.ia5String);
      const expiresAt = expiresDate && isAppleDate(expiresDate) ? Date.parse(expiresDate) : undefined;
      return {
        transactionId,
        originalTransactionId: text(ATTRIBUTE.originalTransactionId) || transactionId,
        productId: text(ATTRIBUTE.productId),
        expiresAt: Number.isNaN(expiresAt) ? undefined : expiresAt,
      };
    });
  return { bundleId: stringIn(bundleId, TAG.utf8String), createdAt: Date.parse(created), purchases };
}

/**
 * The purchase of a receipt to ask the App Store about: its latest subscription (the one whose
 * period ends last, the first listed of a tie; the App Store then answers with that subscription's
 * latest renewal), or the first purchase when it lists no subscription. A receipt also lists
 * consumables and older, ended subscriptions, in no particular order.
 */
export function purchaseToAsk(purchases: readonly AppReceiptPurchase[]): AppReceiptPurchase | undefined {
  const subscriptions = purchases.filter((purchase) => purchase.expiresAt !== undefined);
  if (subscriptions.length === 0) return purchases[0];
  return subscriptions.reduce((latest, purchase) => (purchase.expiresAt! > latest.expiresAt! ? purchase : latest));
}
