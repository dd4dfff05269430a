/**
 * DynamoDB's item size and index write rules, as the capacity meter applies them (no side effects:
 * tests import it without the meter).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type IndexDefinition, projectionOf, TABLE } from '../../lib/data/table.js';

export type Image = Record<string, AttributeValue>;

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

/** An item's entry in an index (undefined when the item lacks the index's keys), and its key. */
function indexEntry(image: Image | undefined, index: IndexDefinition): { key: string; entry: Image } | undefined {
  if (!image?.[index.partitionKey] || !image[index.sortKey]) return undefined;
  const { ProjectionType, NonKeyAttributes = [] } = projectionOf(index);
  const names =
    ProjectionType === 'ALL'
      ? Object.keys(image)
      : [TABLE.partitionKey, TABLE.sortKey, index.partitionKey, index.sortKey, ...NonKeyAttributes];
  const entry = Object.fromEntries(
    names.filter((name) => image[name] !== undefined).map((name) => [name, image[name]!]),
  );
  return { key: JSON.stringify([image[index.partitionKey], image[index.sortKey]]), entry };
}

/** JSON with object keys sorted: DynamoDB returns an item's attributes in no particular order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v) && !(v instanceof Uint8Array)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

const indexWriteUnits = (entry: Image) => Math.max(1, Math.ceil(itemSize(entry) / 1024));

/** Write units of the index entries of one item changed from `before` to `after` (see above). */
export function indexUnits(before: Image | undefined, after: Image | undefined): number {
  let units = 0;
  for (const index of Object.values(TABLE.indexes)) {
    const [old, next] = [indexEntry(before, index), indexEntry(after, index)];
    if (old && next && old.key === next.key) {
      if (canonical(old.entry) !== canonical(next.entry)) units += indexWriteUnits(next.entry);
    } else {
      if (old) units += indexWriteUnits(old.entry);
      if (next) units += indexWriteUnits(next.entry);
    }
  }
  return units;
}
