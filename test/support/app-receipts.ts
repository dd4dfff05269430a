/**
 * Legacy (StoreKit 1) app receipts for tests: PKCS#7 SignedData made as Apple makes them (SET of
 * receipt attributes as id-data content, RSA PKCS#1 v1.5, no signed attributes, the signer, WWDR
 * intermediate and root certificates included), signed by the stand-in's receipt chain
 * (test/fixtures/app-store-standin/receipt-chain, "Test only, not Apple"), which verifiers trust
 * when given RECEIPT_ROOT. Every part can be changed, so that tests can break one rule at a time.
 */
import { createHash, createPrivateKey, type KeyObject, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/app-store-standin/receipt-chain/${name}`, import.meta.url));
export const receiptChainCertificate = (name: string) => new X509Certificate(fixture(name));
export const receiptChainKey = (name: string) => createPrivateKey(fixture(name));
export const RECEIPT_ROOT = receiptChainCertificate('root.pem');
const LEAF_KEY = receiptChainKey('leaf.p8');

/** DER of one element (definite length). */
export function der(tag: number, ...content: Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length =
    n < 0x80
      ? [n]
      : n < 0x100
        ? [0x81, n]
        : n < 0x10000
          ? [0x82, n >> 8, n & 0xff]
          : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
export const integer = (n: number) => {
  const hex = n.toString(16);
  const bytes = Buffer.from(hex.padStart(hex.length + (hex.length % 2), '0'), 'hex');
  return der(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
};
export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [a! * 40 + b!, ...rest]) {
    const groups = [arc & 0x7f];
    for (let left = Math.floor(arc / 128); left > 0; left = Math.floor(left / 128))
      groups.unshift((left & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}
const utf8 = (text: string) => der(0x0c, Buffer.from(text));
const ia5 = (text: string) => der(0x16, Buffer.from(text, 'latin1'));
const attribute = (type: number, value: Uint8Array) => der(0x30, integer(type), integer(1), der(0x04, value));
const NULL = der(0x05);

export const OIDS = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  envelopedData: '1.2.840.113549.1.7.3',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRsa: '1.2.840.113549.1.1.5',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  md5: '1.2.840.113549.2.5',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
} as const;

export interface ReceiptPurchase {
  transactionId: string;
  originalTransactionId?: string;
  productId?: string;
  /** Attribute 1708, a subscription's expiration date; absent, it is empty as for other purchases. */
  expiresAt?: Date;
}

export interface ReceiptContent {
  bundleId: string;
  purchases: ReceiptPurchase[];
  /** Attribute 12; default now. */
  createdAt?: Date;
}

/** The receipt payload: the SET of receipt attributes, in-app purchases as nested SETs. */
export function receiptPayload({ bundleId, purchases, createdAt = new Date() }: ReceiptContent): Buffer {
  const inApps = purchases.map(
    ({ transactionId, originalTransactionId = transactionId, productId = 'premium_monthly', expiresAt }) =>
      attribute(
        17,
        der(
          0x31,
          attribute(1702, utf8(productId)),
          attribute(1703, utf8(transactionId)),
          attribute(1705, utf8(originalTransactionId)),
          attribute(1708, ia5(expiresAt ? expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') : '')),
        ),
      ),
  );
  return der(
    0x31,
    attribute(0, utf8('ProductionSandbox')),
    attribute(2, utf8(bundleId)),
    attribute(3, utf8('1')),
    attribute(12, ia5(createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'))),
    ...inApps,
  );
}

export interface SignOptions {
  digest?: 'sha1' | 'sha256';
  /** The digest algorithm's OID as written (default: the digest's). */
  digestOid?: string;
  signatureOid?: string;
  /** Certificates to include, by file name under receipt-chain/ (default leaf, intermediate, root, as Apple does). */
  certificates?: string[];
  /** Which included certificate the SignerInfo names (default the first). */
  signerCertificate?: string;
  key?: KeyObject;
  /** Signed attributes (CMS): the content type and message digest to state (default: the right ones). */
  signedAttributes?: { contentType?: string; messageDigest?: Buffer } | undefined;
  eContentType?: string;
  contentType?: string;
  /** Changes the signature (after signing). */
  tamperSignature?: (signature: Buffer) => Buffer;
  /** Changes the content (after signing). */
  tamperContent?: (content: Buffer) => Buffer;
  signerInfos?: 0 | 1 | 2;
}

/** A base64 PKCS#7 receipt of this payload, signed by the stand-in receipt chain unless told otherwise. */
export function signReceipt(payload: Buffer, options: SignOptions = {}): string {
  const digest = options.digest ?? 'sha256';
  const digestOid = options.digestOid ?? (digest === 'sha1' ? OIDS.sha1 : OIDS.sha256);
  const names = options.certificates ?? ['leaf.pem', 'intermediate.pem', 'root.pem'];
  const certificates = names.map(receiptChainCertificate);
  const signerCertificate = options.signerCertificate
    ? receiptChainCertificate(options.signerCertificate)
    : (certificates[0] ?? receiptChainCertificate('leaf.pem'));
  let signedAttrs: Buffer | undefined;
  if (options.signedAttributes) {
    const { contentType = OIDS.data, messageDigest = createHash(digest).update(payload).digest() } =
      options.signedAttributes;
    signedAttrs = der(
      0x31,
      der(0x30, oid(OIDS.contentType), der(0x31, oid(contentType))),
      der(0x30, oid(OIDS.messageDigest), der(0x31, der(0x04, messageDigest))),
    );
  }
  let signature: Buffer = sign(digest, signedAttrs ?? payload, options.key ?? LEAF_KEY);
  if (options.tamperSignature) signature = options.tamperSignature(signature);
  const content = options.tamperContent ? options.tamperContent(payload) : payload;
  const algorithm = (dotted: string) => der(0x30, oid(dotted), NULL);
  const signerInfo = der(
    0x30,
    integer(1),
    der(0x30, issuerOf(signerCertificate), serialOf(signerCertificate)),
    algorithm(digestOid),
    ...(signedAttrs ? [Buffer.concat([Buffer.from([0xa0]), signedAttrs.subarray(1)])] : []),
    algorithm(options.signatureOid ?? OIDS.rsaEncryption),
    der(0x04, signature),
  );
  const signedData = der(
    0x30,
    integer(1),
    der(0x31, algorithm(digestOid)),
    der(0x30, oid(options.eContentType ?? OIDS.data), der(0xa0, der(0x04, content))),
    ...(certificates.length > 0 ? [der(0xa0, ...certificates.map((c) => c.raw))] : []),
    der(0x31, ...Array.from({ length: options.signerInfos ?? 1 }, () => signerInfo)),
  );
  return der(0x30, oid(options.contentType ?? OIDS.signedData), der(0xa0, signedData)).toString('base64');
}

/** A copy with one bit of one byte changed (negative offsets count from the end). */
export function flipByte(bytes: Buffer, at = -1): Buffer {
  const copy = Buffer.from(bytes);
  const index = at < 0 ? copy.length + at : at;
  copy[index] = copy[index]! ^ 0x01;
  return copy;
}

/** A receipt signed by the stand-in receipt chain, as Apple signs one. */
export const signedAppReceipt = (content: ReceiptContent, options?: SignOptions) =>
  signReceipt(receiptPayload(content), options);

/**
 * A receipt's shape without a signature (no certificates, no signer): what an attacker who knows
 * only someone's transaction id can make. Apple's ReceiptUtility reads the id out of it.
 */
export function unsignedAppReceipt(bundleId: string, transactionId: string): string {
  const payload = receiptPayload({ bundleId, purchases: [{ transactionId }] });
  const signedData = der(
    0x30,
    integer(1),
    der(0x31),
    der(0x30, oid(OIDS.data), der(0xa0, der(0x04, payload))),
    der(0x31),
  );
  return der(0x30, oid(OIDS.signedData), der(0xa0, signedData)).toString('base64');
}

/** TBSCertificate's issuer and serialNumber encodings, read with a tiny DER walk. */
function tbsFields(certificate: X509Certificate): Buffer[] {
  const raw = certificate.raw;
  const header = (offset: number) => {
    const first = raw[offset + 1]!;
    const lengthBytes = first < 0x80 ? 0 : first & 0x7f;
    let length = first < 0x80 ? first : 0;
    for (let i = 0; i < lengthBytes; i++) length = length * 256 + raw[offset + 2 + i]!;
    return { start: offset + 2 + lengthBytes, end: offset + 2 + lengthBytes + length };
  };
  const tbs = header(header(0).start);
  const fields: Buffer[] = [];
  for (let offset = tbs.start; offset < tbs.end; ) {
    const { end } = header(offset);
    fields.push(raw.subarray(offset, end));
    offset = end;
  }
  return raw[tbs.start] === 0xa0 ? fields.slice(1) : fields;
}
const serialOf = (certificate: X509Certificate) => tbsFields(certificate)[0]!;
const issuerOf = (certificate: X509Certificate) => tbsFields(certificate)[2]!;
