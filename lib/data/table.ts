/**
 * THE table definition: key attributes, global secondary indexes, stream and TTL. The CDK
 * data construct and the local bootstrap (DynamoDB Local) both build the table from this
 * object; nothing else names an index or a key attribute.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** Filters of GET /v1/subscriptions that have a counter for each combination (list-counters.ts). */
export const LIST_FACETS = ['status', 'product_id', 'platform'] as const;
export type ListFacet = (typeof LIST_FACETS)[number];

/**
 * What an index entry holds besides its keys: KEYS_ONLY (the table's and the index's keys), a few
 * more attributes (INCLUDE), or the whole item (ALL). An entry is rewritten only when its keys or
 * projected attributes change, at 1 write unit per started KB.
 */
export type Projection = 'ALL' | 'KEYS_ONLY' | readonly string[];

export interface IndexDefinition {
  partitionKey: string;
  sortKey: string;
  projection: Projection;
}

/** Every subset of LIST_FACETS, in LIST_FACETS order; [] is the unfiltered list. */
export function facetCombinations(): ListFacet[][] {
  const combos: ListFacet[][] = [];
  for (let mask = 0; mask < 1 << LIST_FACETS.length; mask++) {
    combos.push(LIST_FACETS.filter((_, i) => mask & (1 << i)));
  }
  return combos;
}

/**
 * The facets the listing indexes are keyed by: every combination of status and product_id, each
 * with the platform. A list without a platform filter reads each platform's partition (a few fixed
 * values) and merges them newest first, so four indexes serve the eight filter combinations and a
 * status change rewrites two of them (docs/decisions/keys-only-indexes.md).
 */
export const LISTING_FACET_SETS: readonly (readonly ListFacet[])[] = [
  ['platform'],
  ['status', 'platform'],
  ['product_id', 'platform'],
  ['status', 'product_id', 'platform'],
];

const FACET_ABBREVIATIONS: Record<ListFacet, string> = { status: 'st', product_id: 'pr', platform: 'pl' };

/** A listing index's name (listIndexName). */
export type ListIndexName = `listBy_${string}`;

/** Name of the listing index keyed by exactly these facets (one of LISTING_FACET_SETS). */
export function listIndexName(facets: readonly ListFacet[]): ListIndexName {
  return `listBy_${facets.join('_')}`;
}

/** Its partition key attribute: short, since every subscription item carries one per listing index. */
const listPartitionAttribute = (facets: readonly ListFacet[]): string =>
  `l_${facets.map((facet) => FACET_ABBREVIATIONS[facet]).join('_')}`;

/** Newest-first sort key shared by the listing indexes and the user index: `${created_at}#${id}`. */
export const LIST_SORT_KEY = 'list_sk';

const listIndexes: Record<ListIndexName, IndexDefinition> = Object.fromEntries(
  LISTING_FACET_SETS.map((facets) => [
    listIndexName(facets),
    { partitionKey: listPartitionAttribute(facets), sortKey: LIST_SORT_KEY, projection: 'KEYS_ONLY' },
  ]),
);

/** The indexes named in code; the listing indexes are named by their facets (listIndexName). */
const NAMED_INDEXES = {
  /** A user's subscriptions in an app, newest first (user_id filter; segments; receipts); keys only. */
  subscriptionsOfUser: { partitionKey: 'user_pk', sortKey: LIST_SORT_KEY, projection: 'KEYS_ONLY' },
  /**
   * Sparse: work the clock makes due (expiries, pause ends, webhook retries), by kind and day,
   * with the ids the jobs read the item by (these never change: an entry moves only with its due time).
   */
  workDueByDay: { partitionKey: 'due_pk', sortKey: 'due_sk', projection: ['app_id', 'id', 'event_id'] },
  /** Webhook deliveries of an app, newest first (`admin webhooks deliveries`). */
  deliveriesByApp: { partitionKey: 'deliveries_pk', sortKey: 'deliveries_sk', projection: 'ALL' },
  /** The same, of one status (`<app>#<status>`): keys only, a page is then read by key. */
  deliveriesByStatus: { partitionKey: 'deliveries_status_pk', sortKey: 'deliveries_sk', projection: 'KEYS_ONLY' },
  /**
   * The customers of an app by user id (GET /v1/customers?prefix=): its subscriptions and user
   * profiles, by attributes they carry anyway (their app, and the user index's `<app>#<user>`), so
   * no subscription item grows for it; a user with both has several entries. Keys only.
   */
  customersOfApp: { partitionKey: 'app_id', sortKey: 'user_pk', projection: 'KEYS_ONLY' },
} satisfies Record<string, IndexDefinition>;

/** Every index by name, the 4 listing indexes (LISTING_FACET_SETS) too: a name that is none of them does not compile. */
const INDEXES: typeof NAMED_INDEXES & Record<ListIndexName, IndexDefinition> = { ...NAMED_INDEXES, ...listIndexes };

export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after (reported data, idempotency records). */
  ttlAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
  indexes: INDEXES,
} as const;

/** The name of one of the table's indexes: a query naming another does not compile. */
export type IndexName = keyof typeof TABLE.indexes;

/** Attribute names that carry index keys; all are strings. */
export function keyAttributeNames(): string[] {
  const names = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const index of Object.values(TABLE.indexes)) {
    names.add(index.partitionKey);
    names.add(index.sortKey);
  }
  return [...names];
}

/** Index keys that are fields of the entities too (an item's app): an entity keeps them. */
const ENTITY_FIELDS = new Set(['app_id']);
const STORAGE_ATTRIBUTES = new Set([...keyAttributeNames().filter((name) => !ENTITY_FIELDS.has(name)), 'type']);

/** An item without its table and index keys and its entity type: the entity as the code knows it. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.has(name))) as T;
}

/** An index's projection as CreateTable and CloudFormation spell it. */
export function projectionOf(index: IndexDefinition): {
  ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  NonKeyAttributes?: string[];
} {
  if (typeof index.projection === 'string') return { ProjectionType: index.projection };
  return { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] };
}

/** CreateTable input for DynamoDB Local (on-demand billing, the indexes' projections, stream on). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributeNames().map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: Object.entries(TABLE.indexes).map(([IndexName, index]) => ({
      IndexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: projectionOf(index),
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream },
  };
}
