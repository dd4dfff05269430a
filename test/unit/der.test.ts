/**
 * The DER/BER reader (lib/stores/der.ts) on hostile input: it reads certificates and legacy app
 * receipts, which arrive from clients, so whatever the bytes, a call answers or throws DerError,
 * with work linear in the input (nesting is bounded by MAX_DEPTH, so the stack is too).
 *
 * Work is counted, not timed: the buffer is wrapped in a Proxy that counts the bytes read, and
 * Buffer.concat is spied on to count copies, so no assertion depends on the machine's load.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  childrenOf,
  DerError,
  type Element,
  elementAt,
  encodeOid,
  hasExtension,
  MAX_DEPTH,
  octetStringContents,
  readElement,
} from '../../lib/stores/der.js';
import { errorThrownBy } from '../support/assertions.js';

const OCTET_STRING = 0x04;
const CONSTRUCTED_OCTET_STRING = 0x24;

/** The length octets of a definite length. */
function lengthOctets(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/** One element: definite length, or indefinite (BER, constructed only) when asked. */
function tlv(tag: number, content: Uint8Array, indefinite = false): Buffer {
  if (indefinite) return Buffer.concat([Buffer.from([tag, 0x80]), content, Buffer.from([0, 0])]);
  return Buffer.concat([Buffer.from([tag, ...lengthOctets(content.length)]), content]);
}

/**
 * `levels` constructed OCTET STRINGs, each holding `chunk` and then the next level (the innermost
 * holds a primitive chunk only): built from the inside out with one copy, as deep nesting would
 * cost quadratic time through tlv().
 */
function nestedOctetStrings(levels: number, chunk: Uint8Array): Buffer {
  const primitive = tlv(OCTET_STRING, chunk);
  const headers: number[][] = [];
  let inner = primitive.length;
  for (let level = 0; level < levels; level++) {
    const content = primitive.length + inner;
    headers.push([CONSTRUCTED_OCTET_STRING, ...lengthOctets(content)]);
    inner = headers.at(-1)!.length + content;
  }
  // Outermost first: header, its own chunk, then the next level.
  const parts: Uint8Array[] = [];
  for (const header of headers.reverse()) parts.push(Buffer.from(header), primitive);
  parts.push(primitive);
  return Buffer.concat(parts);
}

/** The buffer behind a Proxy that counts indexed reads, so a test can bound the reader's work. */
function counting(buffer: Uint8Array): { buffer: Uint8Array; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(buffer, {
    get(target, property) {
      if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { buffer: proxy, reads: () => reads };
}

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** DerError, with this message (toEqual would not tell DerError from any Error with the message). */
function expectDerError(call: () => unknown, message: string): void {
  const error = thrown(call);
  expect(error).toBeInstanceOf(DerError);
  expect((error as Error).message).toBe(message);
}

afterEach(() => vi.restoreAllMocks());

// --- Regressions ------------------------------------------------------------------------------

describe('DER reader: nesting is bounded however the nesting is reached', () => {
  it.each([2_000, 5_000])(
    '%i nested constructed OCTET STRINGs throw DerError("nested too deep"), reading a bounded number of bytes',
    (levels) => {
      const { buffer, reads } = counting(nestedOctetStrings(levels, Buffer.from('chunk')));
      const error = thrown(() => octetStringContents(buffer, readElement(buffer, 0)));
      expect(error).toBeInstanceOf(DerError);
      expect((error as Error).message).toBe('nested too deep');
      // Not the input's size: the reader stops at MAX_DEPTH, whatever lies below.
      expect(reads()).toBeLessThan(40 * (MAX_DEPTH + 2));
    },
  );

  it('children read by childrenOf and elementAt are one level deeper than their parent, down to MAX_DEPTH', () => {
    let der = tlv(0x02, Buffer.from([1]));
    for (let level = 0; level < MAX_DEPTH + 8; level++) der = tlv(0x30, der);
    let element: Element = readElement(der, 0);
    let depth = 0;
    const error = thrown(() => {
      for (;;) {
        element = childrenOf(der, element)[0]!;
        depth++;
      }
    });
    expect(error).toEqual(new DerError('nested too deep'));
    expect(depth).toBe(MAX_DEPTH);
    expect(elementAt(der, Array(MAX_DEPTH).fill(0)).tag).toBe(0x30);
    expectDerError(() => elementAt(der, Array(MAX_DEPTH + 1).fill(0)), 'nested too deep');
  });

  it('definite and indefinite lengths count the same depth', () => {
    const chain = (levels: number, indefinite: (level: number) => boolean) => {
      let der = tlv(0x02, Buffer.from([1]));
      for (let level = 0; level < levels; level++) der = tlv(0x30, der, indefinite(level));
      return der;
    };
    // Mixed (the innermost definite): the INTEGER lies at depth MAX_DEPTH + 1, reached by elementAt.
    const mixed = chain(MAX_DEPTH + 1, (level) => level % 2 === 1);
    expect(elementAt(mixed, Array(MAX_DEPTH).fill(0)).depth).toBe(MAX_DEPTH);
    expectDerError(() => elementAt(mixed, Array(MAX_DEPTH + 1).fill(0)), 'nested too deep');
    // All indefinite: reading the outermost element reads them all, so it fails at once.
    expect(
      elementAt(
        chain(MAX_DEPTH, () => true),
        Array(MAX_DEPTH).fill(0),
      ).tag,
    ).toBe(0x02);
    expectDerError(
      () =>
        readElement(
          chain(MAX_DEPTH + 1, () => true),
          0,
        ),
      'nested too deep',
    );
  });
});

describe('DER reader: a chunked OCTET STRING is copied once', () => {
  it('200 KB in chunks nested 30 deep: one Buffer.concat of the chunks, in order', () => {
    const chunk = Buffer.alloc(6_600, 0xab);
    const der = nestedOctetStrings(30, chunk);
    const concat = vi.spyOn(Buffer, 'concat');
    const contents = octetStringContents(der, readElement(der, 0));
    expect(concat).toHaveBeenCalledTimes(1);
    expect(contents.length).toBe(31 * chunk.length);
    expect(Buffer.from(contents).equals(Buffer.alloc(31 * chunk.length, 0xab))).toBe(true);
  });

  it('the costliest chunking, MAX_DEPTH indefinite levels of one-byte chunks, reads each byte at most MAX_DEPTH + 2 times over', () => {
    const tiny = tlv(OCTET_STRING, Buffer.from([7]));
    let der = tlv(CONSTRUCTED_OCTET_STRING, Buffer.concat(Array(1_000).fill(tiny)), true);
    // MAX_DEPTH levels of constructed strings, so the innermost chunks lie at MAX_DEPTH.
    for (let level = 1; level < MAX_DEPTH; level++)
      der = tlv(CONSTRUCTED_OCTET_STRING, Buffer.concat([tiny, der, tiny]), true);
    const { buffer, reads } = counting(der);
    const element = readElement(buffer, 0);
    const before = reads();
    expect(octetStringContents(buffer, element).length).toBe(1_000 + 2 * (MAX_DEPTH - 1));
    expect(reads() - before).toBeLessThanOrEqual(2 * (MAX_DEPTH + 2) * der.length);
  });

  it('a primitive OCTET STRING is its contents, not a copy', () => {
    const der = tlv(OCTET_STRING, Buffer.from('abc'));
    const concat = vi.spyOn(Buffer, 'concat');
    expect(Buffer.from(octetStringContents(der, readElement(der, 0))).toString()).toBe('abc');
    expect(concat).not.toHaveBeenCalled();
  });

  it('refuses a chunk that is not an OCTET STRING', () => {
    const der = tlv(
      CONSTRUCTED_OCTET_STRING,
      Buffer.concat([tlv(OCTET_STRING, Buffer.from('a')), tlv(0x0c, Buffer.from('b'))]),
    );
    expectDerError(() => octetStringContents(der, readElement(der, 0)), 'not an OCTET STRING');
  });
});

describe('DER reader: the end-of-contents of an indefinite length lies within its container', () => {
  it('refuses an end-of-contents beyond the limit', () => {
    expectDerError(() => readElement(Buffer.from([0x30, 0x80, 0x00, 0x00]), 0, 3), 'missing end-of-contents');
    expectDerError(() => readElement(Buffer.from([0x30, 0x80, 0x00, 0x00]), 0, 2), 'missing end-of-contents');
  });

  it('refuses a child whose end-of-contents lies after its parent', () => {
    // SEQUENCE of length 2 holding an indefinite SEQUENCE whose 00 00 follows the parent.
    const der = Buffer.from([0x30, 0x02, 0x30, 0x80, 0x00, 0x00]);
    expectDerError(() => childrenOf(der, readElement(der, 0)), 'missing end-of-contents');
  });

  it('reads an end-of-contents that ends exactly at the limit', () => {
    expect(readElement(Buffer.from([0x30, 0x80, 0x00, 0x00]), 0, 4)).toEqual({
      tag: 0x30,
      start: 2,
      end: 2,
      next: 4,
      depth: 0,
    });
  });
});

// --- Fuzz -------------------------------------------------------------------------------------

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

/**
 * What one call may read, in bytes of the buffer: a readElement reads each element inside its
 * range once (identifier, length octets, and the end-of-contents check before it), which is at
 * most 2 reads per byte; childrenOf is readElement on each child. octetStringContents reads the
 * children of each chunked level, at most MAX_DEPTH + 1 levels over the same bytes.
 */
const READS_PER_BYTE = { readElement: 2, childrenOf: 2, octetStringContents: 2 * (MAX_DEPTH + 2) };

/**
 * Reads everything, on a buffer that counts its reads and with Buffer.concat spied on: each
 * element, the children of each constructed one, the contents of each OCTET STRING. Answers the
 * number of elements or the DerError thrown; anything else thrown fails the test, as does a call
 * that reads more than READS_PER_BYTE of its range, or a chunked OCTET STRING copied more than
 * once or more than the input.
 */
function walkWithinBounds(bytes: Uint8Array): number | DerError {
  const { buffer, reads } = counting(bytes);
  const bounded = <T>(call: keyof typeof READS_PER_BYTE, range: number, read: () => T): T => {
    const before = reads();
    try {
      return read();
    } finally {
      expect(reads() - before, call).toBeLessThanOrEqual(READS_PER_BYTE[call] * (range + 2));
    }
  };
  let elements = 0;
  let chunkedStrings = 0;
  const visit = (element: Element): void => {
    elements++;
    expect(element.start).toBeLessThanOrEqual(element.end);
    expect(element.end).toBeLessThanOrEqual(element.next);
    expect(element.depth).toBeLessThanOrEqual(MAX_DEPTH);
    if (element.tag === CONSTRUCTED_OCTET_STRING) chunkedStrings++;
    if (element.tag === OCTET_STRING || element.tag === CONSTRUCTED_OCTET_STRING) {
      bounded('octetStringContents', element.end - element.start, () => octetStringContents(buffer, element));
    }
    if (element.tag & 0x20) {
      let previous = element.start;
      for (const child of bounded('childrenOf', element.end - element.start, () => childrenOf(buffer, element))) {
        expect(child.depth).toBe(element.depth + 1);
        expect(child.next).toBeLessThanOrEqual(element.end);
        expect(child.start).toBeGreaterThan(previous);
        previous = child.next;
        visit(child);
      }
    }
  };
  const concat = vi.spyOn(Buffer, 'concat');
  let outcome: number | DerError;
  let copies: number[];
  try {
    for (let offset = 0; offset < buffer.length; ) {
      const element = bounded('readElement', buffer.length - offset, () => readElement(buffer, offset));
      expect(element.next).toBeLessThanOrEqual(buffer.length);
      visit(element);
      offset = element.next;
    }
    outcome = elements;
  } catch (error) {
    if (!(error instanceof DerError)) throw error;
    outcome = error;
  } finally {
    copies = concat.mock.results.map((result) => (result.value as Buffer).length);
    concat.mockRestore();
  }
  expect(copies.length).toBeLessThanOrEqual(chunkedStrings);
  for (const copied of copies) expect(copied).toBeLessThanOrEqual(bytes.length);
  return outcome;
}

/** A BER tree, as the generators make it. */
type Tree =
  | { kind: 'primitive'; tag: number; bytes: Uint8Array }
  | { kind: 'constructed'; tag: number; indefinite: boolean; children: Tree[] };

function encode(tree: Tree): Buffer {
  if (tree.kind === 'primitive') return tlv(tree.tag, tree.bytes);
  return tlv(tree.tag, Buffer.concat(tree.children.map(encode)), tree.indefinite);
}

const primitiveTags = fc.constantFrom(0x01, 0x02, 0x04, 0x05, 0x06, 0x0c, 0x13, 0x16, 0x17, 0x18, 0x80, 0x81);
const constructedTags = fc.constantFrom(0x30, 0x31, 0xa0, 0xa3, 0x2c);
const payload = fc.uint8Array({ maxLength: 300 });

/** Trees of any shape: tags of certificates and receipts, definite and indefinite lengths. */
const { tree: treeArbitrary } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('primitive' as const), tag: primitiveTags, bytes: payload }),
    fc.record({
      kind: fc.constant('constructed' as const),
      tag: constructedTags,
      indefinite: fc.boolean(),
      children: fc.array(tie('tree'), { maxLength: 5 }),
    }),
  ),
}));

/** OCTET STRINGs in BER chunks, constructed ones holding primitive or constructed chunks. */
const { chunked: chunkedArbitrary } = fc.letrec<{ chunked: Tree }>((tie) => ({
  chunked: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('primitive' as const), tag: fc.constant(OCTET_STRING), bytes: payload }),
    fc.record({
      kind: fc.constant('constructed' as const),
      tag: fc.constant(CONSTRUCTED_OCTET_STRING),
      indefinite: fc.boolean(),
      children: fc.array(tie('chunked'), { maxLength: 6 }),
    }),
  ),
}));

const leaves = (tree: Tree): Uint8Array[] => (tree.kind === 'primitive' ? [tree.bytes] : tree.children.flatMap(leaves));
const depthOf = (tree: Tree): number =>
  tree.kind === 'primitive' ? 0 : 1 + Math.max(0, ...tree.children.map(depthOf));
const count = (tree: Tree): number =>
  tree.kind === 'primitive' ? 1 : 1 + tree.children.reduce((sum, child) => sum + count(child), 0);

/** A chain `levels` deep, each level definite or indefinite. */
const deepArbitrary = fc
  .array(fc.tuple(constructedTags, fc.boolean()), { minLength: 1, maxLength: MAX_DEPTH + 12 })
  .map(
    (levels): Tree =>
      levels.reduceRight<Tree>(
        (inner, [tag, indefinite]) => ({ kind: 'constructed', tag, indefinite, children: [inner] }),
        { kind: 'primitive', tag: 0x02, bytes: Uint8Array.of(1) },
      ),
  );

/** An encoding damaged as a transfer or an attacker would: cut, a byte changed, bytes added. */
const damaged = (encoded: fc.Arbitrary<Buffer>) =>
  encoded.chain((bytes) =>
    fc.oneof(
      fc.integer({ min: 0, max: bytes.length }).map((cut) => bytes.subarray(0, cut)),
      fc
        .tuple(fc.integer({ min: 0, max: Math.max(0, bytes.length - 1) }), fc.integer({ min: 0, max: 255 }))
        .map(([at, value]) => {
          const copy = Buffer.from(bytes);
          if (copy.length > 0) copy[at] = value;
          return copy;
        }),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((extra) => Buffer.concat([bytes, extra])),
    ),
  );

describe('DER reader: fuzzed input answers or throws DerError, in linear work', () => {
  it('arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => void walkWithinBounds(bytes)),
      { numRuns: RUNS },
    );
  });

  it('arbitrary bytes behind a plausible header (a constructed tag, an indefinite length)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0x30, 0x24, 0xa0),
        fc.uint8Array({ maxLength: 600 }),
        (tag, rest) => void walkWithinBounds(Buffer.concat([Buffer.from([tag, 0x80]), rest])),
      ),
      { numRuns: RUNS },
    );
  });

  it('well-formed trees within MAX_DEPTH are read back element for element', () => {
    fc.assert(
      fc.property(treeArbitrary, (tree) => {
        fc.pre(depthOf(tree) <= MAX_DEPTH);
        expect(walkWithinBounds(encode(tree))).toBe(count(tree));
      }),
      { numRuns: RUNS },
    );
  });

  it('damaged trees', () => {
    fc.assert(
      fc.property(damaged(treeArbitrary.map(encode)), (bytes) => void walkWithinBounds(bytes)),
      { numRuns: RUNS },
    );
  });

  it('deep chains: read to MAX_DEPTH, refused as "nested too deep" below it', () => {
    fc.assert(
      fc.property(deepArbitrary, (tree) => {
        const outcome = walkWithinBounds(encode(tree));
        if (depthOf(tree) <= MAX_DEPTH) expect(outcome).toBe(count(tree));
        else expect(outcome).toEqual(new DerError('nested too deep'));
      }),
      { numRuns: RUNS },
    );
  });

  it('a chunked OCTET STRING reads as the concatenation of its chunks, with one copy', () => {
    fc.assert(
      fc.property(chunkedArbitrary, (tree) => {
        fc.pre(depthOf(tree) <= MAX_DEPTH);
        const der = encode(tree);
        const concat = vi.spyOn(Buffer, 'concat');
        let contents: Uint8Array;
        let copies: number;
        try {
          contents = octetStringContents(der, readElement(der, 0));
        } finally {
          copies = concat.mock.calls.length;
          concat.mockRestore();
        }
        expect(copies).toBeLessThanOrEqual(1);
        expect(Buffer.from(contents).equals(Buffer.concat(leaves(tree)))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('damaged chunked OCTET STRINGs', () => {
    fc.assert(
      fc.property(damaged(chunkedArbitrary.map(encode)), (bytes) => {
        try {
          octetStringContents(bytes, readElement(bytes, 0));
        } catch (error) {
          expect(error).toBeInstanceOf(DerError);
        }
        void walkWithinBounds(bytes);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('DER reader: each malformation, at its bound, with its reason', () => {
  const bytes = (hex: string) => Buffer.from(hex.replace(/\s/g, ''), 'hex');
  const refusalOf = (read: () => unknown) => errorThrownBy(read, DerError).message;

  it.each<[string, string, string]>([
    ['one byte', '30', 'truncated element'],
    ['a high tag number', '1f 00', 'high tag numbers are not supported'],
    ['a high tag number, constructed', '3f 00', 'high tag numbers are not supported'],
    ['an indefinite length on a primitive', '04 80 00 00', 'indefinite length on a primitive element'],
    ['an indefinite length without its end', '30 80 05 00', 'missing end-of-contents'],
    ['a length in five bytes', '04 85 00 00 00 00 01 00', 'length too long'],
    ['a length cut short', '04 82 01', 'truncated length'],
    ['contents longer than the buffer', '04 03 01 02', 'element longer than its container'],
  ])('refuses %s', (_, hex, reason) => {
    expect(refusalOf(() => readElement(bytes(hex), 0))).toBe(reason);
  });

  it.each<[string, string, { tag: number; start: number; end: number; next: number }]>([
    ['a two-byte element that fills its buffer', '05 00', { tag: 0x05, start: 2, end: 2, next: 2 }],
    ['a short length of 127', `04 7f ${'00'.repeat(127)}`, { tag: 0x04, start: 2, end: 129, next: 129 }],
    ['a long length of one byte (0x81)', `04 81 80 ${'00'.repeat(128)}`, { tag: 0x04, start: 3, end: 131, next: 131 }],
    ['a long length in four bytes', '04 84 00 00 00 01 aa', { tag: 0x04, start: 6, end: 7, next: 7 }],
    ['a long length that ends the buffer, with no contents', '04 81 00', { tag: 0x04, start: 3, end: 3, next: 3 }],
    ['an indefinite length holding a zero tag', '30 80 05 00 00 00', { tag: 0x30, start: 2, end: 4, next: 6 }],
  ])('reads %s', (_, hex, element) => {
    expect(readElement(bytes(hex), 0)).toEqual({ ...element, depth: 0 });
  });

  it('an end-of-contents is two zero bytes: a lone zero byte is an element', () => {
    // 30 80 | 00 01 ff | 00 00: the child 00 01 ff (tag 0, one byte) comes before the end-of-contents.
    expect(readElement(bytes('30 80 00 01 ff 00 00'), 0)).toEqual({ tag: 0x30, start: 2, end: 5, next: 7, depth: 0 });
  });

  it('children only of a constructed element; a missing child by index and depth', () => {
    const primitive = bytes('04 01 aa');
    expect(refusalOf(() => childrenOf(primitive, readElement(primitive, 0)))).toBe('not a constructed element');
    expect(refusalOf(() => elementAt(bytes('30 03 02 01 01'), [1]))).toBe('no element 1 at depth 1');
    expect(refusalOf(() => elementAt(bytes('30 05 30 03 02 01 01'), [0, 2]))).toBe('no element 2 at depth 2');
  });
});

describe('hasExtension: whether a certificate carries an extension, by its OID', () => {
  // The leaf and intermediate Apple signed a real sandbox transaction with (test/fixtures/apple/).
  const jws = readFileSync(new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url), 'utf8');
  const [leaf, intermediate] = (
    JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString('utf8')).x5c as string[]
  ).map((der) => Buffer.from(der, 'base64'));
  const RECEIPT_SIGNING = '1.2.840.113635.100.6.11.1';
  const WWDR_INTERMEDIATE = '1.2.840.113635.100.6.2.1';
  /** DER of a tag around contents. */
  const der = (tag: number, ...contents: number[][]) => {
    const body = contents.flat();
    return [tag, ...lengthOctets(body.length), ...body];
  };
  /** A certificate of this TBSCertificate (the reader looks no further than its fields). */
  const certificate = (...tbsFields: number[][]) => Uint8Array.from(der(0x30, der(0x30, ...tbsFields)));
  const VERSION_3 = der(0xa0, der(0x02, [2]));

  it.each([
    ['the leaf, its receipt-signing OID', leaf, RECEIPT_SIGNING, true],
    ['the intermediate, its WWDR OID', intermediate, WWDR_INTERMEDIATE, true],
    ['the leaf, the intermediate’s OID', leaf, WWDR_INTERMEDIATE, false],
    ['the intermediate, the leaf’s OID', intermediate, RECEIPT_SIGNING, false],
    ['the leaf, a prefix of its OID', leaf, '1.2.840.113635.100.6.11', false],
    ['the leaf, its OID one arc longer', leaf, `${RECEIPT_SIGNING}.1`, false],
  ])('%s: %s', (_name, cert, oid, expected) => {
    expect(hasExtension(cert!, oid as string)).toBe(expected);
  });

  it('a certificate without extensions, with an empty [3], or with an extension not named by an OID has none', () => {
    const oid = [...encodeOid(RECEIPT_SIGNING)];
    const named = (idTag: number) => der(0xa3, der(0x30, der(0x30, der(idTag, oid), der(0x04, [0x05, 0x00]))));
    // The same tree with the OID as its first child is read as carrying it.
    expect(hasExtension(certificate(VERSION_3, der(0x02, [1]), named(0x06)), RECEIPT_SIGNING)).toBe(true);
    expect(hasExtension(certificate(VERSION_3, der(0x02, [1])), RECEIPT_SIGNING)).toBe(false);
    expect(hasExtension(certificate(VERSION_3, der(0x02, [1]), der(0xa3)), RECEIPT_SIGNING)).toBe(false);
    expect(hasExtension(certificate(VERSION_3, der(0x02, [1]), named(0x04)), RECEIPT_SIGNING)).toBe(false);
  });
});
