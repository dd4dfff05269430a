/**
 * Every table key of every entity: the map below, the builders of each entity's item in
 * entity-keys.ts and of the rest here. Each partition is scoped by app id, so
 * a request authenticated for app B cannot address app A's items: isolation by construction.
 *
 * | entity            | pk                          | sk                                  |
 * |-------------------|-----------------------------|-------------------------------------|
 * | app               | APP#<app>                   | APP                                 |
 * | app directory     | APPS                        | APP#<app> (every app: `admin apps list`, not requests) |
 * | app's key (list)  | APP#<app>                   | KEY#<kind>#<sha256>                 |
 * | product           | APP#<app>                   | PRODUCT#<product>                   |
 * | api key lookup    | APIKEY#<sha256>             | APIKEY  (+ this minute's request count) |
 * | mobile user's rate-limit window | RATE#<app>#<user> | WINDOW (request count; TTL)       |
 * | app's report quota | QUOTA#<app>                | REPORTS (events a minute, bytes a day; TTL) |
 * | subscription      | SUB#<app>#<sub>             | SUB        (listed by the GSIs)     |
 * | its payment info  | SUB#<app>#<sub>             | PAYMENT    (transaction, last payment) |
 * | its receipt       | SUB#<app>#<sub>             | RECEIPT    (deflated; written once) |
 * | its transfers     | SUB#<app>#<sub>             | TRANSFER#<at>#<event> (both subs)   |
 * | its history       | HISTORY#<app>#<sub>         | HIST#<version, 10 digits> (by the aggregator; its own partition: reads of the subscription's stay the same size) |
 * | list counts       | COUNT#<app>                 | LIST#<product|*>  (count#<status|*>#<platform|*>; by the aggregator) |
 * | transaction bind  | TXN#<app>#<transaction>     | TXN  (-> subscription id; an original's also -> owner, store state) |
 * | store notification| NOTIFICATION#<app>#<store>#<id> | NOTIFICATION (TTL; id = dedupe) |
 * | user profile      | USER#<app>#<user>           | PROFILE                             |
 * | user's activity   | USER#<app>#<user>           | ACTIVITY (first/last seen by events) |
 * | features used     | USER#<app>#<user>           | FEATURES (set of feature names)     |
 * | reported event    | EVENTS#<app>#<user>         | EVT#<event key> (TTL; key = dedupe) |
 * | reported session  | SESSIONS#<app>#<user>       | <session id> (TTL)                  |
 * | reported order    | ORDERS#<app>#<user>         | ORDER#<order id> (TTL; idempotent per buyer and order id) |
 * | other reports     | REPORTS#<app>#<user>        | <kind>#<received at>#<id> (TTL)     |
 * | revenue counters  | REV#<app>#<YYYY-MM>         | <day>#<product>#<currency>          |
 * | metrics counters  | METRICS#<app>#<YYYY-MM>     | <day>#<currency>  (by the aggregator) |
 * | metrics now       | METRICS#<app>               | NOW#<currency>  (MRR, active, trials; by the aggregator) |
 * | exchange rates    | FX#<to currency>#<YYYY-MM>  | <day>#<from currency>               |
 * | outbox event      | OUTBOX#<event>              | OUTBOX     (stream -> EventBridge)  |
 * | webhook endpoint  | APP#<app>                   | WEBHOOK                             |
 * | store settings    | APP#<app>                   | STORE#<store>  (AWS: credentials in Secrets Manager) |
 * | latest report     | USER#<app>#<user>           | REPORT#<type>                       |
 * | entitlement grant | USER#<app>#<user>           | GRANT#<entitlement> (sorts between ACTIVITY and PROFILE) |
 * | rule segments     | APP#<app>                   | SEGMENTS                            |
 * | entitlements      | APP#<app>                   | ENTITLEMENTS (the whole set, one item) |
 * | ad configuration  | APP#<app>                   | ADS                                 |
 * | webhook delivery  | DELIVERY#<event>            | DELIVERY                            |
 * | job checkpoint    | CHECKPOINT#<job>            | CHECKPOINT                          |
 * | Google's OIDC keys| GOOGLE_KEYS#<JWKS URL>      | KEYS (as last fetched, with the time) |
 * | erasure under way | ERASURE#<app>#<user>        | ERASURE (counts so far; due index ERA) |
 * | store call budget | STOREBUDGET#<app>#<store>   | BUDGET (token bucket, 429 back-off; TTL) |
 * | unknown to store  | STOREMISS#<app>#<store>#<sha256 of token/receipt> | MISS (the store did not know it; TTL) |
 * | events naming a user | USEREVENTS#<app>#<user>   | EVT#<event> (by the deliverer; for the erasure) |
 */
import { sha256Hex } from '../core/ids.js';
import { PLATFORMS } from '../schemas/common.js';
import { LIST_FACETS, LISTING_FACET_SETS, type ListFacet, type ListIndexName, listIndexName } from './table.js';

export interface TableKey {
  pk: string;
  sk: string;
}

/** One string per item key, for maps and sets of keys (an item's own pk and sk are keys too). */
export const keyIdOf = (key: { pk?: unknown; sk?: unknown }): string => `${String(key.pk)}\n${String(key.sk)}`;

const ANY = '*';
/** Partition of the app directory (keys.appDirectory). */
export const APP_DIRECTORY_PK = 'APPS';
/** Sort key of a subscription's state item (the one the listing indexes and the aggregator follow). */
export const SUBSCRIPTION_SK = 'SUB';
/** Sort key prefix of a subscription's history entries. */
export const HISTORY_SK_PREFIX = 'HIST#';

/** Keys of what the mobile API's reports write (events, sessions, orders, reports): only the reporting functions carry them. */
export const reportKeys = {
  reportedEvent: (appId: string, userId: string, eventKey: string): TableKey => ({
    pk: `EVENTS#${appId}#${userId}`,
    sk: `EVT#${eventKey}`,
  }),
  reportedSession: (appId: string, userId: string, sessionId: string): TableKey => ({
    pk: `SESSIONS#${appId}#${userId}`,
    sk: sessionId,
  }),
  /** In the buyer's partition: an order id another user reported first is no claim on this buyer's order. */
  reportedOrder: (appId: string, userId: string, orderId: string): TableKey => ({
    pk: `ORDERS#${appId}#${userId}`,
    sk: `ORDER#${orderId}`,
  }),
  reportHistory: (appId: string, userId: string, kind: string, receivedAt: string, id: string): TableKey => ({
    pk: `REPORTS#${appId}#${userId}`,
    sk: `${kind}#${receivedAt}#${id}`,
  }),
  /** The latest body a user reported to /report/{type}, next to the profile. */
  latestReport: (appId: string, userId: string, type: string): TableKey => ({
    pk: `USER#${appId}#${userId}`,
    sk: `REPORT#${type}`,
  }),
};

// Keys of the items only history, grants, erasure and metrics use.

/** A day's changes of the app's metrics in one currency (lib/domain/metrics.ts). */
export const metricsDayKey = (appId: string, day: string, currency: string): TableKey => ({
  pk: metricsMonthPartition(appId, day.slice(0, 7)),
  sk: `${day}#${currency}`,
});
export const metricsMonthPartition = (appId: string, month: string): string => `METRICS#${appId}#${month}`;
/** The app's metric levels now (MRR, active subscriptions, trials) in one currency. */
export const metricsNowKey = (appId: string, currency: string): TableKey => ({
  pk: metricsNowPartition(appId),
  sk: `${METRICS_NOW_SK_PREFIX}${currency}`,
});
export const metricsNowPartition = (appId: string): string => `METRICS#${appId}`;
export const METRICS_NOW_SK_PREFIX = 'NOW#';

/** One change of the subscription (its write's version), written from the table's stream. */
export const historyKey = (appId: string, subscriptionId: string, version: number): TableKey => ({
  pk: `HISTORY#${appId}#${subscriptionId}`,
  sk: `${HISTORY_SK_PREFIX}${String(version).padStart(10, '0')}`,
});
/**
 * A user's grant of an entitlement. `GRANT#` sorts between `ACTIVITY` and `PROFILE`, so the one
 * Query that reads the profile (readUserItems) reads the user's grants too.
 */
export const grantKey = (appId: string, userId: string, entitlementId: string): TableKey => ({
  pk: `USER#${appId}#${userId}`,
  sk: `GRANT#${entitlementId}`,
});
/** An erasure of the user that is under way (DELETE /v1/customers/{user_id}): deleted when it is done. */
export const erasureKey = (appId: string, userId: string): TableKey => ({
  pk: `ERASURE#${appId}#${userId}`,
  sk: 'ERASURE',
});
/**
 * An event whose payload names the user, recorded when its delivery is (a status change's or a
 * grant's user, either user of a transfer): how an erasure finds the event's outbox item and
 * delivery record, which are keyed by the event alone.
 */
export const userEventKey = (appId: string, userId: string, eventId: string): TableKey => ({
  pk: userEventsPartition(appId, userId),
  sk: `EVT#${eventId}`,
});
export const userEventsPartition = (appId: string, userId: string): string => `USEREVENTS#${appId}#${userId}`;
/** Every partition that holds this user's data and nothing else: an erasure deletes them whole. */
export const userPartitionsOf = (appId: string, userId: string) =>
  ({
    user: `USER#${appId}#${userId}`,
    events: `EVENTS#${appId}#${userId}`,
    sessions: `SESSIONS#${appId}#${userId}`,
    orders: `ORDERS#${appId}#${userId}`,
    reports: `REPORTS#${appId}#${userId}`,
    rate_limit: `RATE#${appId}#${userId}`,
  }) as const;

export type FacetValues = Partial<Record<ListFacet, string>>;

/**
 * The listing index that serves these filter values and its partitions to read: one, or one per
 * platform (merged newest first) when the platform is not filtered. Values are joined without
 * labels: in each index only product_id is free text, between an app id and enums without '#'.
 */
export function listPartitions(appId: string, values: FacetValues): { indexName: ListIndexName; pkValues: string[] } {
  const facets = LISTING_FACET_SETS.find((set) =>
    LIST_FACETS.every((facet) => facet === 'platform' || set.includes(facet) === (values[facet] !== undefined)),
  )!;
  const platforms = values.platform === undefined ? PLATFORMS : [values.platform];
  return {
    indexName: listIndexName(facets),
    pkValues: platforms.map((platform) => listPartitionValue(appId, facets, { ...values, platform })),
  };
}

/** Partition key value of a subscription (or of a filter with every facet of the index) in a listing index. */
export const listPartitionValue = (appId: string, facets: readonly ListFacet[], values: FacetValues): string =>
  [appId, ...facets.map((facet) => values[facet])].join('#');

/** The partition of an app's list count items. */
export const listCountsPartition = (appId: string): string => `COUNT#${appId}`;

/**
 * Where the count of subscriptions matching these filter values (absent facets match any) is kept:
 * one item per product (and one for any product) holds the counts of every status and platform
 * combination, so a change of one subscription moves counts in two items, not eight.
 */
export function listCountCell(appId: string, values: FacetValues): { key: TableKey; attribute: string } {
  return {
    key: { pk: listCountsPartition(appId), sk: `LIST#${values.product_id ?? ANY}` },
    attribute: `count#${values.status ?? ANY}#${values.platform ?? ANY}`,
  };
}

/** Newest-first sort key of the listing indexes and the user index. */
export const listSortKey = (createdAt: string, subscriptionId: string): string => `${createdAt}#${subscriptionId}`;

/** Kinds of work the clock makes due, each in its own partitions of the dueByDay index. */
export type DueKind = 'SUB' | 'DLV' | 'GRT' | 'ERA';

/**
 * Key attributes in the sparse dueByDay index: one partition per kind and UTC day, sorted by
 * the due time. An item due in the past is filed under the day it was written, so a sweeper that
 * has processed every day before today never needs to look back at them again.
 */
/** The longest id a due entry's sort key keeps as it is (the rest of the key is under 40 bytes). */
export const DUE_ID_MAX_BYTES = 512;

/**
 * The id of due work whose id carries a user id (grants, erasures): a sort key holds 1,024 bytes,
 * and a user id of 255 emoji is 1,020, so a longer id is filed by its hash. The id only orders
 * ties; nothing reads it back.
 */
export const boundedDueId = (id: string): string => (Buffer.byteLength(id) > DUE_ID_MAX_BYTES ? sha256Hex(id) : id);

export function dueAttributes(
  kind: DueKind,
  dueAt: string,
  writtenAt: string,
  id: string,
): { due_pk: string; due_sk: string } {
  const day = (dueAt > writtenAt ? dueAt : writtenAt).slice(0, 10);
  return { due_pk: duePartition(kind, day), due_sk: `${dueAt}#${id}` };
}

export const duePartition = (kind: DueKind, day: string): string => `DUE#${kind}#${day}`;
