import { createHash } from 'node:crypto';
/**
 * The table's key layout, written out as lib/data/table-keys.ts documents it. Items already stored in an
 * operator's table are found by these keys: a key that changes shape orphans them (a subscription
 * no longer listed, a purchase no longer owned, a notification applied twice), however consistently
 * the code then writes and reads the new shape. So every key is pinned here by value, not derived.
 */
import { describe, expect, it } from 'vitest';
import * as keys from '../../lib/data/entity-keys.js';
import { createTableInput, TABLE, withoutKeys } from '../../lib/data/table.js';
import {
  boundedDueId,
  DUE_ID_MAX_BYTES,
  dueAttributes,
  duePartition,
  erasureKey,
  grantKey,
  HISTORY_SK_PREFIX,
  historyKey,
  listCountCell,
  listCountsPartition,
  listPartitions,
  listPartitionValue,
  listSortKey,
  METRICS_NOW_SK_PREFIX,
  metricsDayKey,
  metricsMonthPartition,
  metricsNowKey,
  metricsNowPartition,
  reportKeys,
  SUBSCRIPTION_SK,
  type TableKey,
  userPartitionsOf,
} from '../../lib/data/table-keys.js';

const A = 'app_1';
const U = 'user-1';
const S = 'sub_1';

describe('table keys: the documented layout', () => {
  it('every entity has its documented key', () => {
    const documented: [string, TableKey, TableKey][] = [
      ['app', keys.app(A), { pk: 'APP#app_1', sk: 'APP' }],
      ["app's key", keys.appKey(A, 'sdk', 'h1'), { pk: 'APP#app_1', sk: 'KEY#sdk#h1' }],
      ['api key lookup', keys.apiKey('h1'), { pk: 'APIKEY#h1', sk: 'APIKEY' }],
      ['rate-limit window', keys.rateLimitWindow(A, U), { pk: 'RATE#app_1#user-1', sk: 'WINDOW' }],
      ['product', keys.product(A, 'pro'), { pk: 'APP#app_1', sk: 'PRODUCT#pro' }],
      ['subscription', keys.subscription(A, S), { pk: 'SUB#app_1#sub_1', sk: 'SUB' }],
      ['payment info', keys.subscriptionPayment(A, S), { pk: 'SUB#app_1#sub_1', sk: 'PAYMENT' }],
      ['receipt', keys.subscriptionReceipt(A, S), { pk: 'SUB#app_1#sub_1', sk: 'RECEIPT' }],
      [
        'transfer',
        keys.subscriptionTransfer(A, S, '2026-01-02T03:04:05.000Z', 'evt_1'),
        { pk: 'SUB#app_1#sub_1', sk: 'TRANSFER#2026-01-02T03:04:05.000Z#evt_1' },
      ],
      ['transaction binding', keys.transaction(A, '2000'), { pk: 'TXN#app_1#2000', sk: 'TXN' }],
      ['purchase (its original transaction)', keys.purchase(A, '1000'), { pk: 'TXN#app_1#1000', sk: 'TXN' }],
      [
        'former purchase owner',
        keys.formerPurchaseOwner(A, 'app_store', '1000'),
        { pk: 'OWNER#app_1#app_store#1000', sk: 'OWNER' },
      ],
      [
        'store notification',
        keys.storeNotification(A, 'google_play', 'm-1'),
        { pk: 'NOTIFICATION#app_1#google_play#m-1', sk: 'NOTIFICATION' },
      ],
      [
        'revenue counter',
        keys.revenue(A, '2026-03-09', 'pro', 'EUR'),
        { pk: 'REV#app_1#2026-03', sk: '2026-03-09#pro#EUR' },
      ],
      ['exchange rate', keys.fxRate('USD', '2026-03-09', 'EUR'), { pk: 'FX#USD#2026-03', sk: '2026-03-09#EUR' }],
      ['outbox event', keys.outbox('evt_1'), { pk: 'OUTBOX#evt_1', sk: 'OUTBOX' }],
      ['webhook endpoint', keys.webhook(A), { pk: 'APP#app_1', sk: 'WEBHOOK' }],
      ['rule segments', keys.segments(A), { pk: 'APP#app_1', sk: 'SEGMENTS' }],
      ['entitlements', keys.entitlements(A), { pk: 'APP#app_1', sk: 'ENTITLEMENTS' }],
      ['ad configuration', keys.adsConfig(A), { pk: 'APP#app_1', sk: 'ADS' }],
      ['store settings', keys.storeSettings(A, 'app_store'), { pk: 'APP#app_1', sk: 'STORE#app_store' }],
      ['webhook delivery', keys.delivery('evt_1'), { pk: 'DELIVERY#evt_1', sk: 'DELIVERY' }],
      ['job checkpoint', keys.checkpoint('expiry'), { pk: 'CHECKPOINT#expiry', sk: 'CHECKPOINT' }],
      [
        "Google's OIDC keys",
        keys.googleOidcKeys('https://www.googleapis.com/oauth2/v3/certs'),
        { pk: 'GOOGLE_KEYS#https://www.googleapis.com/oauth2/v3/certs', sk: 'KEYS' },
      ],
      ['user profile', keys.userProfile(A, U), { pk: 'USER#app_1#user-1', sk: 'PROFILE' }],
      ["user's activity", keys.userActivity(A, U), { pk: 'USER#app_1#user-1', sk: 'ACTIVITY' }],
      ['features used', keys.userFeatures(A, U), { pk: 'USER#app_1#user-1', sk: 'FEATURES' }],
      ['reported event', reportKeys.reportedEvent(A, U, 'k1'), { pk: 'EVENTS#app_1#user-1', sk: 'EVT#k1' }],
      ['reported session', reportKeys.reportedSession(A, U, 'sess-1'), { pk: 'SESSIONS#app_1#user-1', sk: 'sess-1' }],
      ['reported order', reportKeys.reportedOrder(A, 'user-1', 'o-1'), { pk: 'ORDERS#app_1#user-1', sk: 'ORDER#o-1' }],
      [
        'other report',
        reportKeys.reportHistory(A, U, 'ads', '2026-03-09T00:00:00.000Z', 'r1'),
        { pk: 'REPORTS#app_1#user-1', sk: 'ads#2026-03-09T00:00:00.000Z#r1' },
      ],
      ['latest report', reportKeys.latestReport(A, U, 'ads'), { pk: 'USER#app_1#user-1', sk: 'REPORT#ads' }],
      [
        'metrics of a day',
        metricsDayKey(A, '2026-03-09', 'EUR'),
        { pk: 'METRICS#app_1#2026-03', sk: '2026-03-09#EUR' },
      ],
      ['metrics now', metricsNowKey(A, 'EUR'), { pk: 'METRICS#app_1', sk: 'NOW#EUR' }],
      ['history entry', historyKey(A, S, 42), { pk: 'HISTORY#app_1#sub_1', sk: 'HIST#0000000042' }],
      ['entitlement grant', grantKey(A, U, 'premium'), { pk: 'USER#app_1#user-1', sk: 'GRANT#premium' }],
      ['erasure under way', erasureKey(A, U), { pk: 'ERASURE#app_1#user-1', sk: 'ERASURE' }],
    ];
    for (const [entity, key, expected] of documented) expect(key, entity).toEqual(expected);
  });

  it('prefixes and partitions read by Query', () => {
    expect(keys.appKeyPrefix(A)).toEqual({ pk: 'APP#app_1', skPrefix: 'KEY#' });
    expect(keys.appKeyPrefix(A, 'secret')).toEqual({ pk: 'APP#app_1', skPrefix: 'KEY#secret#' });
    expect(keys.productPrefix(A)).toEqual({ pk: 'APP#app_1', skPrefix: 'PRODUCT#' });
    expect(keys.revenueMonth(A, '2026-03')).toBe('REV#app_1#2026-03');
    expect(keys.fxMonth('USD', '2026-03')).toBe('FX#USD#2026-03');
    expect(keys.userSubscriptions(A, U)).toBe('app_1#user-1');
    expect(metricsMonthPartition(A, '2026-03')).toBe('METRICS#app_1#2026-03');
    expect(metricsNowPartition(A)).toBe('METRICS#app_1');
    expect(listCountsPartition(A)).toBe('COUNT#app_1');
    expect([SUBSCRIPTION_SK, HISTORY_SK_PREFIX, METRICS_NOW_SK_PREFIX]).toEqual(['SUB', 'HIST#', 'NOW#']);
    expect(userPartitionsOf(A, U)).toEqual({
      user: 'USER#app_1#user-1',
      events: 'EVENTS#app_1#user-1',
      sessions: 'SESSIONS#app_1#user-1',
      orders: 'ORDERS#app_1#user-1',
      reports: 'REPORTS#app_1#user-1',
      rate_limit: 'RATE#app_1#user-1',
    });
  });

  it('history sort keys sort as their versions do (10 digits)', () => {
    expect(historyKey(A, S, 9).sk < historyKey(A, S, 10).sk).toBe(true);
    expect(historyKey(A, S, 1_234_567_890).sk).toBe('HIST#1234567890');
  });

  it('a grant sorts between the activity and the profile, so the profile Query reads it', () => {
    const { sk } = grantKey(A, U, 'premium');
    expect(keys.userActivity(A, U).sk < sk && sk < keys.userProfile(A, U).sk).toBe(true);
  });

  it('list counts: one item per product (or any), one attribute per status and platform (or any)', () => {
    expect(listCountCell(A, {})).toEqual({ key: { pk: 'COUNT#app_1', sk: 'LIST#*' }, attribute: 'count#*#*' });
    expect(listCountCell(A, { product_id: 'pro', status: 'active', platform: 'ios' })).toEqual({
      key: { pk: 'COUNT#app_1', sk: 'LIST#pro' },
      attribute: 'count#active#ios',
    });
    expect(listCountCell(A, { status: 'paused' }).attribute).toBe('count#paused#*');
  });

  it('listing partitions: app id and facet values joined by #, one partition per platform unless filtered', () => {
    expect(listPartitionValue(A, ['status', 'platform'], { status: 'active', platform: 'ios' })).toBe(
      'app_1#active#ios',
    );
    expect(listPartitions(A, {})).toEqual({
      indexName: 'listBy_platform',
      pkValues: ['app_1#ios', 'app_1#android', 'app_1#web'],
    });
    expect(listPartitions(A, { platform: 'ios', status: 'active' })).toEqual({
      indexName: 'listBy_status_platform',
      pkValues: ['app_1#active#ios'],
    });
    expect(listPartitions(A, { product_id: 'pro', platform: 'web' })).toEqual({
      indexName: 'listBy_product_id_platform',
      pkValues: ['app_1#pro#web'],
    });
    expect(listPartitions(A, { status: 'expired', product_id: 'pro' })).toEqual({
      indexName: 'listBy_status_product_id_platform',
      pkValues: ['app_1#expired#pro#ios', 'app_1#expired#pro#android', 'app_1#expired#pro#web'],
    });
    expect(listSortKey('2026-03-09T00:00:00.000Z', S)).toBe('2026-03-09T00:00:00.000Z#sub_1');
  });

  it('due work: filed under the day it is due, or the day it was written when that is later', () => {
    expect(dueAttributes('SUB', '2026-03-10T05:00:00.000Z', '2026-03-09T00:00:00.000Z', S)).toEqual({
      due_pk: 'DUE#SUB#2026-03-10',
      due_sk: '2026-03-10T05:00:00.000Z#sub_1',
    });
    expect(dueAttributes('DLV', '2026-03-01T05:00:00.000Z', '2026-03-09T10:00:00.000Z', 'evt_1')).toEqual({
      due_pk: 'DUE#DLV#2026-03-09',
      due_sk: '2026-03-01T05:00:00.000Z#evt_1',
    });
    expect(duePartition('ERA', '2026-03-09')).toBe('DUE#ERA#2026-03-09');
  });

  it.each([
    ['a user id of 255 emoji and an entitlement (1,024 bytes and more)', `${'😀'.repeat(255)}#pro`, true],
    ['an id of 512 bytes exactly', 'é'.repeat(256), false],
    ['an id of 513 bytes', `${'é'.repeat(256)}a`, true],
  ])('due work of %s: the sort key stays within its 1,024 bytes', (_, id, hashed) => {
    const { due_sk } = dueAttributes('GRT', '2026-03-10T05:00:00.000Z', '2026-03-09T00:00:00.000Z', boundedDueId(id));
    expect(Buffer.byteLength(due_sk)).toBeLessThanOrEqual(24 + 1 + DUE_ID_MAX_BYTES);
    expect(due_sk).toBe(`2026-03-10T05:00:00.000Z#${hashed ? createHash('sha256').update(id).digest('hex') : id}`);
  });
});

describe('table definition: what CreateTable and the stack build', () => {
  const gsi = (IndexName: string, hash: string, range: string, Projection: Record<string, unknown>) => ({
    IndexName,
    KeySchema: [
      { AttributeName: hash, KeyType: 'HASH' },
      { AttributeName: range, KeyType: 'RANGE' },
    ],
    Projection,
  });
  const KEYS_ONLY = { ProjectionType: 'KEYS_ONLY' };

  it('keys, indexes, projections and stream as documented', () => {
    expect(createTableInput('subscriptions')).toEqual({
      TableName: 'subscriptions',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        'pk',
        'sk',
        'user_pk',
        'list_sk',
        'due_pk',
        'due_sk',
        'deliveries_pk',
        'deliveries_sk',
        'deliveries_status_pk',
        'app_id',
        'l_pl',
        'l_st_pl',
        'l_pr_pl',
        'l_st_pr_pl',
      ].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        gsi('subscriptionsOfUser', 'user_pk', 'list_sk', KEYS_ONLY),
        gsi('workDueByDay', 'due_pk', 'due_sk', {
          ProjectionType: 'INCLUDE',
          NonKeyAttributes: ['app_id', 'id', 'event_id'],
        }),
        gsi('deliveriesByApp', 'deliveries_pk', 'deliveries_sk', { ProjectionType: 'ALL' }),
        gsi('deliveriesByStatus', 'deliveries_status_pk', 'deliveries_sk', KEYS_ONLY),
        gsi('customersOfApp', 'app_id', 'user_pk', KEYS_ONLY),
        gsi('listBy_platform', 'l_pl', 'list_sk', KEYS_ONLY),
        gsi('listBy_status_platform', 'l_st_pl', 'list_sk', KEYS_ONLY),
        gsi('listBy_product_id_platform', 'l_pr_pl', 'list_sk', KEYS_ONLY),
        gsi('listBy_status_product_id_platform', 'l_st_pr_pl', 'list_sk', KEYS_ONLY),
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(TABLE.ttlAttribute).toBe('ttl');
  });

  it('an item without its keys is the entity: table and index keys and the type go, the rest (its app too) stays', () => {
    const item = {
      pk: 'SUB#a#s',
      sk: 'SUB',
      user_pk: 'a#u',
      list_sk: 'x',
      due_pk: 'DUE#SUB#d',
      due_sk: 'y',
      deliveries_pk: 'a',
      deliveries_sk: 'b',
      deliveries_status_pk: 'c',
      l_pl: 'a#ios',
      l_st_pl: 'a#active#ios',
      l_pr_pl: 'a#pro#ios',
      l_st_pr_pl: 'a#active#pro#ios',
      type: 'subscription',
      // The customers index's partition key, and a field of every item of an app.
      app_id: 'a',
      id: 's',
      status: 'active',
      ttl: 5,
    };
    expect(withoutKeys(item)).toEqual({ app_id: 'a', id: 's', status: 'active', ttl: 5 });
  });
});
