/**
 * THE table definition: key attributes, global secondary indexes, stream and TTL. The CDK
 * data construct and the local bootstrap (DynamoDB Local) both build the table from this
 * object; nothing else names an index or a key attribute.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** Filters of GET /v1/subscriptions that are served by a dedicated index each (every combination). */
export const LIST_FACETS = ['status', 'product_id', 'platform'] as const;
export type ListFacet = (typeof LIST_FACETS)[number];

export interface IndexDefinition {
  partitionKey: string;
  sortKey: string;
}

/** Every subset of LIST_FACETS, in LIST_FACETS order; [] is the unfiltered list. */
export function facetCombinations(): ListFacet[][] {
  const combos: ListFacet[][] = [];
  for (let mask = 0; mask < 1 << LIST_FACETS.length; mask++) {
    combos.push(LIST_FACETS.filter((_, i) => mask & (1 << i)));
  }
  return combos;
}

/** Name of the index that lists an app's subscriptions filtered by exactly these facets. */
export function listIndexName(facets: readonly ListFacet[]): string {
  return facets.length === 0 ? 'subscriptionsByApp' : `subscriptionsBy_${facets.join('_')}`;
}

/** Newest-first sort key shared by every listing index: `${created_at}#${id}`. */
export const LIST_SORT_KEY = 'list_sk';

const listIndexes = Object.fromEntries(
  facetCombinations().map((facets) => [
    listIndexName(facets),
    { partitionKey: `${listIndexName(facets)}_pk`, sortKey: LIST_SORT_KEY },
  ]),
);

export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after (reported data, idempotency records). */
  ttlAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
  indexes: {
    /** A user's subscriptions in an app, newest first (user_id filter; segments; receipts). */
    subscriptionsByUser: { partitionKey: 'user_pk', sortKey: LIST_SORT_KEY },
    /** Sparse: work the clock makes due (expiries, pause ends, webhook retries), by kind and day. */
    dueByDay: { partitionKey: 'due_pk', sortKey: 'due_sk' },
    /** Webhook deliveries of an app, newest first (`admin webhooks deliveries`). */
    deliveriesByApp: { partitionKey: 'deliveries_pk', sortKey: 'deliveries_sk' },
    /** The 8 listing indexes: unfiltered and every combination of status/product_id/platform. */
    ...listIndexes,
  } as Record<string, IndexDefinition>,
} as const;

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

const STORAGE_ATTRIBUTES = new Set([...keyAttributeNames(), 'type']);

/** An item without its table and index keys and its entity type: the entity as the code knows it. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.has(name))) as T;
}

/** CreateTable input for DynamoDB Local (on-demand billing, ALL projections, stream on). */
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
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream },
  };
}
