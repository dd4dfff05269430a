/**
 * DER as a tree a test can edit: read an encoding (definite lengths), change one element, encode it
 * again. Constructed elements (bit 6 of the tag) hold children, the others their contents; an
 * unedited tree encodes to the same bytes. `indefinite` writes BER's indefinite length instead.
 */
import { der } from './app-receipts.js';

export interface DerNode {
  tag: number;
  children?: DerNode[];
  contents?: Buffer;
  indefinite?: boolean;
}

const CONSTRUCTED = 0x20;

function readAt(buffer: Buffer, offset: number): { node: DerNode; next: number } {
  const tag = buffer[offset]!;
  const first = buffer[offset + 1]!;
  let length = first;
  let start = offset + 2;
  if (first > 0x80) {
    length = 0;
    for (let i = 0; i < (first & 0x7f); i++) length = length * 256 + buffer[start + i]!;
    start += first & 0x7f;
  } else if (first === 0x80) throw new Error('parseDer reads definite lengths only');
  const end = start + length;
  if (end > buffer.length) throw new Error(`element at ${offset} runs past the end`);
  if ((tag & CONSTRUCTED) === 0) return { node: { tag, contents: buffer.subarray(start, end) }, next: end };
  const children: DerNode[] = [];
  for (let at = start; at < end; ) {
    const child = readAt(buffer, at);
    children.push(child.node);
    at = child.next;
  }
  return { node: { tag, children }, next: end };
}

export function parseDer(buffer: Buffer): DerNode {
  const { node, next } = readAt(buffer, 0);
  if (next !== buffer.length) throw new Error('bytes after the element');
  return node;
}

export function encodeDer(node: DerNode): Buffer {
  const body = node.children ? Buffer.concat(node.children.map(encodeDer)) : (node.contents ?? Buffer.alloc(0));
  if (!node.indefinite) return der(node.tag, body);
  return Buffer.concat([Buffer.from([node.tag, 0x80]), body, Buffer.from([0, 0])]);
}

/** The child at each index in turn (negative: from the end). */
export function at(node: DerNode, ...path: number[]): DerNode {
  let current = node;
  for (const index of path) {
    const child = current.children?.at(index);
    if (!child) throw new Error(`no child ${index} on the path ${path.join('/')}`);
    current = child;
  }
  return current;
}

/** A deep copy, to edit while the original stays as it was. */
export const cloneDer = (node: DerNode): DerNode => ({
  ...node,
  ...(node.children ? { children: node.children.map(cloneDer) } : {}),
});
