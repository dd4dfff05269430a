/** DynamoDB's item size rules (no side effects: tests import it without the capacity meter). */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** DynamoDB's documented item size: attribute names plus values (numbers: 1 byte per 2 digits + 1). */
export function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((size, [name, value]) => size + Buffer.byteLength(name) + valueSize(value), 0);
}

function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.SS !== undefined) return value.SS.reduce((size, s) => size + Buffer.byteLength(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((size, n) => size + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((size, b) => size + b.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((size, element) => size + 1 + valueSize(element), 0);
  if (value.M !== undefined)
    return (
      3 +
      Object.entries(value.M).reduce(
        (size, [name, element]) => size + 1 + Buffer.byteLength(name) + valueSize(element),
        0,
      )
    );
  return 1; // BOOL, NULL
}
