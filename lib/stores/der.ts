/**
 * Just enough of ASN.1 BER/DER to read what App Store verification needs: the extensions of an
 * X.509 certificate (node:crypto parses certificates but does not list their extensions) and the
 * attributes of a legacy app receipt (PKCS#7, whose Xcode-made variant uses BER's indefinite
 * lengths and chunked OCTET STRINGs). It reads; it never judges a signature.
 *
 * The input comes from clients, so every element knows its depth and nothing is read deeper
 * than MAX_DEPTH, however the nesting is reached (indefinite lengths, childrenOf, chunked OCTET
 * STRINGs): hostile input ends in a DerError, never in a stack overflow, and the work stays
 * linear in the input (test/unit/der.test.ts fuzzes it).
 */

export interface Element {
  /** The identifier octet: class, constructed bit and (low-form) tag number, e.g. 0x30 for SEQUENCE. */
  tag: number;
  /** Where the contents start and end in the buffer (for an indefinite length, before its end-of-contents). */
  start: number;
  end: number;
  /** Where the next element starts. */
  next: number;
  /** How deep it lies below the element reading started from (0). */
  depth: number;
}

export class DerError extends Error {}

const CONSTRUCTED = 0x20;
const OCTET_STRING = 0x04;
/** Deeper than any certificate or receipt nests: a bound, so that hostile input cannot exhaust the stack. */
export const MAX_DEPTH = 32;

/** The element that starts at `offset`, at `depth`, and must end by `limit`. */
export function readElement(buffer: Uint8Array, offset: number, limit = buffer.length, depth = 0): Element {
  if (depth > MAX_DEPTH) throw new DerError('nested too deep');
  if (offset + 2 > limit) throw new DerError('truncated element');
  const tag = buffer[offset]!;
  // High-tag-number form (tag numbers >= 31) does not occur in certificates or receipts.
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
  const first = buffer[offset + 1]!;
  let start = offset + 2;
  if (first === 0x80) {
    // Indefinite length (BER, constructed only): the contents run to an end-of-contents 00 00.
    if ((tag & CONSTRUCTED) === 0) throw new DerError('indefinite length on a primitive element');
    let cursor = start;
    for (;;) {
      if (cursor + 2 > limit) throw new DerError('missing end-of-contents');
      if (buffer[cursor] === 0 && buffer[cursor + 1] === 0) break;
      cursor = readElement(buffer, cursor, limit, depth + 1).next;
    }
    return { tag, start, end: cursor, next: cursor + 2, depth };
  }
  let length = first;
  // Stryker disable next-line EqualityOperator: 0x80 (an indefinite length) has returned above, so >= is >
  if (first > 0x80) {
    const count = first & 0x7f;
    if (count > 4) throw new DerError('length too long');
    if (start + count > limit) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buffer[start + i]!;
    start += count;
  }
  const end = start + length;
  if (end > limit) throw new DerError('element longer than its container');
  return { tag, start, end, next: end, depth };
}

/** The elements inside a constructed element, one level deeper. */
export function childrenOf(buffer: Uint8Array, parent: Element): Element[] {
  if ((parent.tag & CONSTRUCTED) === 0) throw new DerError('not a constructed element');
  const children: Element[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const child = readElement(buffer, offset, parent.end, parent.depth + 1);
    children.push(child);
    offset = child.next;
  }
  return children;
}

/** Follows child indexes down from the element at the start of the buffer, as ASN1HEX.getVbyList does. */
export function elementAt(buffer: Uint8Array, path: readonly number[]): Element {
  let element = readElement(buffer, 0);
  for (const index of path) {
    const child = childrenOf(buffer, element)[index];
    if (!child) throw new DerError(`no element ${index} at depth ${element.depth + 1}`);
    element = child;
  }
  return element;
}

export const contentsOf = (buffer: Uint8Array, element: Element): Uint8Array =>
  buffer.subarray(element.start, element.end);

/**
 * The payload of an OCTET STRING, also when BER splits it into chunks, themselves OCTET STRINGs
 * (Xcode's receipts): the chunks are gathered in one walk and copied once, so a chunked string
 * costs time linear in its size however its chunks nest.
 */
export function octetStringContents(buffer: Uint8Array, element: Element): Uint8Array {
  if (element.tag === OCTET_STRING) return contentsOf(buffer, element);
  const chunks: Uint8Array[] = [];
  const gather = (string: Element): void => {
    if (string.tag === OCTET_STRING) chunks.push(contentsOf(buffer, string));
    else if (string.tag === (OCTET_STRING | CONSTRUCTED)) for (const chunk of childrenOf(buffer, string)) gather(chunk);
    else throw new DerError('not an OCTET STRING');
  };
  gather(element);
  return Buffer.concat(chunks);
}

/** The DER contents of an OBJECT IDENTIFIER given in dotted form, e.g. 1.2.840.113635.100.6.11.1. */
export function encodeOid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [];
  const base128 = (value: number) => {
    const groups = [value & 0x7f];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128))
      groups.unshift((rest & 0x7f) | 0x80);
    bytes.push(...groups);
  };
  base128(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) base128(arc);
  return Uint8Array.from(bytes);
}

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * Whether a DER certificate carries an extension with this OID. Certificate ::= SEQUENCE {
 * tbsCertificate SEQUENCE { ..., [3] EXPLICIT SEQUENCE OF Extension } ... }, and
 * Extension ::= SEQUENCE { extnID OBJECT IDENTIFIER, critical BOOLEAN OPTIONAL, extnValue OCTET STRING }.
 */
export function hasExtension(certificate: Uint8Array, oid: string): boolean {
  const wanted = encodeOid(oid);
  const tbs = elementAt(certificate, [0]);
  const extensions = childrenOf(certificate, tbs).find((element) => element.tag === 0xa3);
  if (!extensions) return false;
  const [list] = childrenOf(certificate, extensions);
  if (!list) return false;
  return childrenOf(certificate, list).some((extension) => {
    const [id] = childrenOf(certificate, extension);
    return id !== undefined && id.tag === 0x06 && sameBytes(contentsOf(certificate, id), wanted);
  });
}
