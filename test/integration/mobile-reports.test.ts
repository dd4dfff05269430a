/**
 * What the mobile reporting API stores (lib/data/reports.ts), the profile it keeps
 * (lib/data/profiles.ts) and the facts segments read from it (lib/data/user-facts.ts), against
 * DynamoDB Local, item by item: the end-to-end suites see these only through HTTP answers.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getUsageStats, mergeProfileMaps, readProfile } from '../../lib/data/profiles.js';
import {
  appendReport,
  MAX_FEATURES_PER_USER,
  type ReportContext,
  storeEvents,
  storeOrder,
  storeSession,
} from '../../lib/data/reports.js';
import { reportKeys } from '../../lib/data/table-keys.js';
import { loadUserFacts } from '../../lib/data/user-facts.js';
import type { NormalizedEvent } from '../../lib/domain/events.js';
import { interceptCommands, stopIntercepting } from '../support/ddb-intercept.js';
import { seedSubscription } from '../support/subscriptions.js';

const newApp = () => `app_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
const context = (appId: string): ReportContext => ({ appId, platform: 'ios', sdkVersion: '4.2.0' });
const NOW = new Date('2026-05-04T10:20:30.456Z');
const LATER = new Date('2026-05-05T08:00:00.000Z');
/** Epoch seconds of NOW plus the default retention (EVENT_RETENTION_DAYS, 90 days). */
const TTL_OF_NOW = Math.floor(NOW.getTime() / 1000) + 90 * 86_400;

const event = (overrides: Partial<NormalizedEvent> = {}): NormalizedEvent => ({
  key: randomUUID(),
  name: 'opened',
  session_id: null,
  timestamp: NOW.toISOString(),
  extra: {},
  ...overrides,
});

const get = async (key: { pk: string; sk: string }) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: key }))).Item;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('events', () => {
  it('stores what the key does not hold: session, time and extra only when there are some', async () => {
    const appId = newApp();
    const bare = event();
    const full = event({
      session_id: 's-1',
      timestamp: '2026-05-04T10:00:00.000Z',
      extra: { screen: 'paywall' },
    });
    await storeEvents(context(appId), 'u1', [bare, full], NOW);
    expect(await get(reportKeys.reportedEvent(appId, 'u1', bare.key))).toEqual({
      ...reportKeys.reportedEvent(appId, 'u1', bare.key),
      name: 'opened',
      platform: 'ios',
      sdk_version: '4.2.0',
      received_at: NOW.getTime(),
      ttl: TTL_OF_NOW,
    });
    expect(await get(reportKeys.reportedEvent(appId, 'u1', full.key))).toEqual({
      ...reportKeys.reportedEvent(appId, 'u1', full.key),
      name: 'opened',
      session_id: 's-1',
      timestamp: Date.parse('2026-05-04T10:00:00.000Z'),
      extra: { screen: 'paywall' },
      platform: 'ios',
      sdk_version: '4.2.0',
      received_at: NOW.getTime(),
      ttl: TTL_OF_NOW,
    });
  });

  it("records each user's activity: first seen once, last seen at the latest batch", async () => {
    const appId = newApp();
    await storeEvents(context(appId), 'a', [event(), event()], NOW);
    await storeEvents(context(appId), 'b', [event()], NOW);
    await storeEvents(context(appId), 'a', [event()], LATER);
    expect(await get(keys.userActivity(appId, 'a'))).toMatchObject({
      first_seen: NOW.toISOString(),
      last_seen: LATER.toISOString(),
    });
    expect(await get(keys.userActivity(appId, 'b'))).toMatchObject({
      first_seen: NOW.toISOString(),
      last_seen: NOW.toISOString(),
    });
  });

  it('counts the distinct features of feature_used events, names of 1 to 200 characters', async () => {
    const appId = newApp();
    const used = (feature_name: unknown, name = 'feature_used') => event({ name, extra: { feature_name } });
    await storeEvents(
      context(appId),
      'u1',
      [
        used('export'),
        used('export'),
        used('f'.repeat(200)),
        used('g'.repeat(201)),
        used(''),
        used(7),
        used('share', 'opened'),
      ],
      NOW,
    );
    await storeEvents(context(appId), 'other', [event()], NOW);
    const item = await get(keys.userFeatures(appId, 'u1'));
    expect(item?.features).toEqual(new Set(['export', 'f'.repeat(200)]));
    expect(await getUsageStats(appId, 'u1')).toEqual({
      features_used: 2,
      last_activity: NOW.toISOString(),
      total_sessions: 0,
    });
    // A batch without features writes no features item.
    expect(await get(keys.userFeatures(appId, 'other'))).toBeUndefined();
  });

  it(`keeps at most ${MAX_FEATURES_PER_USER} features; a batch beyond it is stored all the same`, async () => {
    const appId = newApp();
    const names = Array.from({ length: MAX_FEATURES_PER_USER }, (_, n) => `f${n}`);
    for (let start = 0; start < names.length; start += 100) {
      await storeEvents(
        context(appId),
        'u1',
        names.slice(start, start + 100).map((feature_name) => event({ name: 'feature_used', extra: { feature_name } })),
        NOW,
      );
    }
    const beyond = event({ name: 'feature_used', extra: { feature_name: 'one-too-many' } });
    await storeEvents(context(appId), 'u1', [beyond], LATER);
    expect((await get(keys.userFeatures(appId, 'u1')))?.features).toHaveProperty('size', MAX_FEATURES_PER_USER);
    expect(await get(reportKeys.reportedEvent(appId, 'u1', beyond.key))).toMatchObject({ name: 'feature_used' });
    expect(await get(keys.userActivity(appId, 'u1'))).toMatchObject({ last_seen: LATER.toISOString() });
  });
});

describe('sessions and orders: each counted once', () => {
  it('a session is stored once and counted once; a repeat still marks the user as seen', async () => {
    const appId = newApp();
    const session = { sessionId: 's-9', startTime: Date.parse('2026-05-04T10:00:00.000Z'), duration: 42 };
    expect(await storeSession(context(appId), 'u1', session, NOW)).toEqual({ counted: true });
    expect(await get(reportKeys.reportedSession(appId, 'u1', 's-9'))).toEqual({
      ...reportKeys.reportedSession(appId, 'u1', 's-9'),
      type: 'reported_session',
      session_id: 's-9',
      start_time: '2026-05-04T10:00:00.000Z',
      duration: 42,
      platform: 'ios',
      received_at: NOW.toISOString(),
      ttl: TTL_OF_NOW,
    });
    expect(await storeSession(context(appId), 'u1', { ...session, duration: 99 }, LATER)).toEqual({ counted: false });
    expect(await get(reportKeys.reportedSession(appId, 'u1', 's-9'))).toMatchObject({ duration: 42 });
    expect(await get(keys.userProfile(appId, 'u1'))).toMatchObject({
      type: 'user_profile',
      app_id: appId,
      user_id: 'u1',
      total_sessions: 1,
      first_seen: NOW.toISOString(),
      last_seen: LATER.toISOString(),
    });
    expect(await getUsageStats(appId, 'u1')).toEqual({
      features_used: 0,
      last_activity: LATER.toISOString(),
      total_sessions: 1,
    });
  });

  it('an order is recorded once per order id and counted on the buyer', async () => {
    const appId = newApp();
    const order = { orderId: 'o-1', productId: 'pro', price: 4.99, currency: 'EUR' };
    expect(await storeOrder(context(appId), 'buyer', order, NOW)).toEqual({ recorded: true });
    expect(await storeOrder(context(appId), 'buyer', { ...order, price: 1 }, LATER)).toEqual({ recorded: false });
    expect(await get(reportKeys.reportedOrder(appId, 'buyer', 'o-1'))).toEqual({
      ...reportKeys.reportedOrder(appId, 'buyer', 'o-1'),
      type: 'reported_order',
      order_id: 'o-1',
      product_id: 'pro',
      price: 4.99,
      currency: 'EUR',
      user_id: 'buyer',
      platform: 'ios',
      received_at: NOW.toISOString(),
      ttl: TTL_OF_NOW,
    });
    expect(await get(keys.userProfile(appId, 'buyer'))).toMatchObject({ order_count: 1 });
  });
});

describe('reports', () => {
  it('appends each report to the history, keeps the latest of a type apart, and applies the profile change', async () => {
    const appId = newApp();
    await appendReport(
      context(appId),
      'u1',
      'report:attribution',
      { network: 'ads' },
      { setIfAbsent: { attribution_first: { network: 'ads' } }, set: { attribution_latest: { network: 'ads' } } },
      NOW,
      { keepLatestOfType: { type: 'attribution', typesPerUser: 32 } },
    );
    await appendReport(
      context(appId),
      'u1',
      'report:attribution',
      { network: 'search' },
      { setIfAbsent: { attribution_first: { network: 'search' } }, set: { attribution_latest: { network: 'search' } } },
      LATER,
      { keepLatestOfType: { type: 'attribution', typesPerUser: 32 } },
    );
    await appendReport(context(appId), 'u1', 'conversion', { value: 1 }, { add: { conversion_count: 1 } }, LATER);
    const { Items = [] } = await ddb.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REPORTS#${appId}#u1` },
      }),
    );
    expect(Items.map(({ sk, ...item }) => ({ sk: (sk as string).split('#').slice(0, 2).join('#'), ...item }))).toEqual([
      {
        sk: `conversion#${LATER.toISOString()}`,
        pk: `REPORTS#${appId}#u1`,
        type: 'report',
        kind: 'conversion',
        payload: { value: 1 },
        platform: 'ios',
        received_at: LATER.toISOString(),
        ttl: Math.floor(LATER.getTime() / 1000) + 90 * 86_400,
      },
      expect.objectContaining({
        sk: `report:attribution#${NOW.toISOString()}`,
        payload: { network: 'ads' },
        ttl: TTL_OF_NOW,
      }),
      expect.objectContaining({ sk: `report:attribution#${LATER.toISOString()}`, payload: { network: 'search' } }),
    ]);
    expect(Items.map((item) => (item.sk as string).split('#')[2])).toSatisfy((ids: string[]) =>
      ids.every((id) => /^[0-9a-f]{12}$/.test(id)),
    );
    expect(await get(reportKeys.latestReport(appId, 'u1', 'attribution'))).toEqual({
      ...reportKeys.latestReport(appId, 'u1', 'attribution'),
      type: 'latest_report',
      app_id: appId,
      user_id: 'u1',
      kind: 'report:attribution',
      payload: { network: 'search' },
      platform: 'ios',
      received_at: LATER.toISOString(),
      // Expires with the history: a type no longer reported leaves nothing behind.
      ttl: Math.floor(LATER.getTime() / 1000) + 90 * 86_400,
    });
    expect(await get(keys.userProfile(appId, 'u1'))).toMatchObject({
      report_types: new Set(['attribution']),
      attribution_first: { network: 'ads' },
      attribution_latest: { network: 'search' },
      conversion_count: 1,
      first_seen: NOW.toISOString(),
      last_seen: LATER.toISOString(),
    });
    // A report without keepLatestOfType keeps no latest item.
    expect(await get(reportKeys.latestReport(appId, 'u1', 'conversion'))).toBeUndefined();
  });
});

describe('report types per user', () => {
  it('a user reporting as many types as the cap may report those again, and a new one writes nothing', async () => {
    const appId = newApp();
    const report = (type: string, at: Date) =>
      appendReport(context(appId), 'u1', `report:${type}`, { type }, {}, at, {
        keepLatestOfType: { type, typesPerUser: 2 },
      });
    expect(await report('device_info', NOW)).toBe('recorded');
    expect(await report('app_info', NOW)).toBe('recorded');
    const history = async () =>
      (
        await ddb.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `REPORTS#${appId}#u1` },
          }),
        )
      ).Items ?? [];
    const profile = await get(keys.userProfile(appId, 'u1'));
    expect(profile?.report_types).toEqual(new Set(['device_info', 'app_info']));
    expect(await report('one_too_many', LATER)).toBe('too_many_types');
    expect(await get(reportKeys.latestReport(appId, 'u1', 'one_too_many'))).toBeUndefined();
    expect(await history()).toHaveLength(2);
    expect(await get(keys.userProfile(appId, 'u1'))).toEqual(profile);
    expect(await report('device_info', LATER)).toBe('recorded');
    expect(await history()).toHaveLength(3);
  });
});

describe('a report whose transaction DynamoDB cancels', () => {
  afterEach(stopIntercepting);
  const canceled = (...codes: string[]) =>
    Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: codes.map((Code) => ({ Code })),
    });
  const failTransactions = (error: () => Error) =>
    interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand') throw error();
      return send();
    });

  it("is too many types only when it keeps the latest of a type and the profile's condition failed", async () => {
    const appId = newApp();
    const typed = () =>
      appendReport(context(appId), 'u1', 'report:app_info', {}, {}, NOW, {
        keepLatestOfType: { type: 'app_info', typesPerUser: 2 },
      });
    failTransactions(() => canceled('None', 'None', 'ConditionalCheckFailed'));
    expect(await typed()).toBe('too_many_types');
    // Another reason on the profile: a failure, thrown.
    stopIntercepting();
    failTransactions(() => canceled('None', 'None', 'TransactionConflict'));
    await expect(typed()).rejects.toThrow('Transaction cancelled');
  });

  it('a report that keeps no latest of a type is never too many types: the failure is thrown', async () => {
    const appId = newApp();
    failTransactions(() => canceled('None', 'ConditionalCheckFailed'));
    await expect(appendReport(context(appId), 'u1', 'conversion', {}, {}, NOW)).rejects.toThrow(
      'Transaction cancelled',
    );
  });
});

describe('profile maps: read, merge, written if unchanged meanwhile', () => {
  it('creates the profile of a new user and bumps its version with each change', async () => {
    const appId = newApp();
    const merged = await mergeProfileMaps(
      appId,
      'u1',
      (current) => {
        expect(current).toEqual({ attributes: {}, custom_properties: {} });
        return { attributes: { name: 'Ann' }, custom_properties: { plan: 'x' } };
      },
      NOW,
    );
    expect(merged).toEqual({ attributes: { name: 'Ann' }, custom_properties: { plan: 'x' } });
    await mergeProfileMaps(
      appId,
      'u1',
      (current) => ({ ...current, attributes: { ...current.attributes, city: 'Oslo' } }),
      LATER,
    );
    expect(await get(keys.userProfile(appId, 'u1'))).toMatchObject({
      type: 'user_profile',
      attributes: { name: 'Ann', city: 'Oslo' },
      custom_properties: { plan: 'x' },
      maps_version: 2,
      first_seen: NOW.toISOString(),
      last_seen: LATER.toISOString(),
    });
  });

  /**
   * Another writer changes the profile between a read and its write, before each of the first
   * `times` writes: it sets an attribute and bumps the version, as mergeProfileMaps itself does.
   */
  function raceBeforeWrites(appId: string, times: number): void {
    let raced = 0;
    let racing = false;
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand' && !racing && raced < times) {
          raced++;
          racing = true;
          try {
            await ddb.send(
              new UpdateCommand({
                TableName: tableName,
                Key: keys.userProfile(appId, 'u1'),
                UpdateExpression: 'SET attributes.#other = :n, maps_version = maps_version + :one',
                ExpressionAttributeNames: { '#other': `other${raced}` },
                ExpressionAttributeValues: { ':n': raced, ':one': 1 },
              }),
            );
          } finally {
            racing = false;
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'profileRacer' },
    );
  }
  afterEach(() => {
    ddb.middlewareStack.remove('profileRacer');
  });

  it('a change made between the read and the write is read again and merged, not overwritten', async () => {
    const appId = newApp();
    await mergeProfileMaps(appId, 'u1', () => ({ attributes: { a: 1 }, custom_properties: {} }), NOW);
    raceBeforeWrites(appId, 2);
    const seen: unknown[] = [];
    const result = await mergeProfileMaps(
      appId,
      'u1',
      (current) => {
        seen.push(current.attributes);
        return { ...current, attributes: { ...current.attributes, mine: true } };
      },
      LATER,
    );
    expect(seen).toEqual([{ a: 1 }, { a: 1, other1: 1 }, { a: 1, other1: 1, other2: 2 }]);
    expect(result.attributes).toEqual({ a: 1, other1: 1, other2: 2, mine: true });
    // Version 1 (first write), 2 and 3 (the other writer), 4 (this write).
    expect(await get(keys.userProfile(appId, 'u1'))).toMatchObject({ attributes: result.attributes, maps_version: 4 });
  });

  it('after three attempts that all lost the race: CONCURRENT_MODIFICATION, retryable, nothing of its own written', async () => {
    const appId = newApp();
    await mergeProfileMaps(appId, 'u1', () => ({ attributes: {}, custom_properties: {} }), NOW);
    raceBeforeWrites(appId, 3);
    let attempts = 0;
    const error = await mergeProfileMaps(
      appId,
      'u1',
      (current) => {
        attempts++;
        return { ...current, attributes: { ...current.attributes, mine: true } };
      },
      LATER,
    ).catch((thrown: unknown) => thrown);
    expect(attempts).toBe(3);
    expect(error).toMatchObject({ kind: 'CONCURRENT_MODIFICATION', retryable: true });
    expect(await get(keys.userProfile(appId, 'u1'))).toMatchObject({
      attributes: { other1: 1, other2: 2, other3: 3 },
      maps_version: 4,
    });
  });
});

describe('user facts (what segments read)', () => {
  it('a user the app never heard of has none', async () => {
    expect(await loadUserFacts(newApp(), 'nobody')).toBeUndefined();
  });

  it('a user with a profile and no subscription: the profile, counters at what was reported', async () => {
    const appId = newApp();
    await storeSession(context(appId), 'u1', { sessionId: 's', startTime: NOW.getTime(), duration: 1 }, NOW);
    await storeOrder(context(appId), 'u1', { orderId: 'o', productId: 'p', price: 1, currency: 'USD' }, NOW);
    await storeEvents(context(appId), 'u1', [event({ name: 'feature_used', extra: { feature_name: 'x' } })], NOW);
    await appendReport(
      context(appId),
      'u1',
      'report:attribution',
      {},
      { set: { attribution_latest: { network: 'search' } } },
      LATER,
    );
    expect(await loadUserFacts(appId, 'u1')).toEqual({
      first_seen: NOW.toISOString(),
      last_seen: LATER.toISOString(),
      attributes: {},
      custom_properties: {},
      counters: { total_sessions: 1, order_count: 1, conversion_count: 0, features_used: 1 },
      attribution_network: 'search',
      attribution_first: null,
      attribution_latest: { network: 'search' },
      subscriptions: [],
    });
  });

  it('a user with subscriptions and no profile: first seen when the oldest subscription was created', async () => {
    const appId = newApp();
    await seedSubscription(appId, { user_id: 'u2', created_at: '2026-01-01T00:00:00.000Z', trial_period: false });
    await seedSubscription(appId, {
      user_id: 'u2',
      created_at: '2026-02-01T00:00:00.000Z',
      status: 'expired',
      trial_period: false,
    });
    await seedSubscription(appId, {
      user_id: 'u2',
      created_at: '2026-03-01T00:00:00.000Z',
      status: 'cancelled',
      trial_period: true,
      trial_expires_at: '2026-03-08T00:00:00.000Z',
    });
    expect(await readProfile(appId, 'u2')).toBeUndefined();
    expect(await loadUserFacts(appId, 'u2')).toEqual({
      first_seen: '2026-01-01T00:00:00.000Z',
      last_seen: null,
      attributes: {},
      custom_properties: {},
      counters: { total_sessions: 0, order_count: 0, conversion_count: 0, features_used: 0 },
      attribution_network: null,
      attribution_first: null,
      attribution_latest: null,
      subscriptions: [
        { status: 'cancelled', trial_period: true, trial_expires_at: '2026-03-08T00:00:00.000Z' },
        { status: 'expired', trial_period: false, trial_expires_at: null },
        { status: 'active', trial_period: false, trial_expires_at: null },
      ],
    });
    // Another user of the same app: the subscriptions are u2's, not the app's.
    expect(await loadUserFacts(appId, 'nobody')).toBeUndefined();
  });
});
