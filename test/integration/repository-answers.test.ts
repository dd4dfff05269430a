/**
 * What the repositories do with DynamoDB's answers, where DynamoDB Local never gives them by
 * itself (test/support/ddb-intercept.ts): a refused condition is an outcome the repository
 * decides on, any other failure reaches the caller unchanged (the handler answers 503, the store
 * retries); a conflict the service retries ends in CONCURRENT_MODIFICATION. And the reads that
 * must see the latest write ask for a strongly consistent read, which DynamoDB Local gives every
 * read anyway, so only the request shows it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, getApp, setTestStore } from '../../lib/data/apps.js';
import { getConsistent } from '../../lib/data/batch.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import * as keys from '../../lib/data/entity-keys.js';
import { deleteFromPartition, detachSubscription } from '../../lib/data/erasure-writes.js';
import { mergeProfileMaps } from '../../lib/data/profiles.js';
import { storeEvents, storeSession } from '../../lib/data/reports.js';
import { recordNotification } from '../../lib/data/store-notifications.js';
import { getSubscription, scanSubscriptions, subscriptionExists } from '../../lib/data/subscription-queries.js';
import type { StoreNotification } from '../../lib/domain/store-purchase.js';
import { grantEntitlement } from '../../lib/services/grants.js';
import { appErrorOf } from '../support/assertions.js';
import {
  conditionFailed,
  failCommands,
  interceptCommands,
  stopIntercepting,
  throttled,
} from '../support/ddb-intercept.js';
import { createTestApp } from '../support/fixtures.js';
import { seedSubscription } from '../support/subscriptions.js';

afterEach(stopIntercepting);

const NOW = new Date('2026-06-01T12:00:00.000Z');
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const context = (appId: string) => ({ appId, platform: 'ios', sdkVersion: '1.0.0' });
const session = () => ({ sessionId: `session-${unique()}`, startTime: NOW.getTime() - 60_000, duration: 60 });
/** A transaction cancelled because its first item's condition did not hold, as DynamoDB says it. */
const firstConditionFailed = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'None' }],
  });

describe('a failure other than a refused condition reaches the caller', () => {
  it('a session report: a throttled transaction is not taken for a repeat', async () => {
    const { appId } = await createTestApp([]);
    failCommands('TransactWriteItemsCommand', throttled);
    await expect(storeSession(context(appId), 'user-1', session(), NOW)).rejects.toThrow('throughput exceeded');
  });

  it("an event batch: a throttled update of the user's features is not taken for a full set", async () => {
    const { appId } = await createTestApp([]);
    const featureUsed = {
      key: `e-${unique()}`,
      name: 'feature_used',
      session_id: null,
      timestamp: NOW.toISOString(),
      extra: { feature_name: 'export' },
    };
    interceptCommands(async ({ command, input }, send) => {
      if (command === 'UpdateItemCommand' && input.Key?.sk === 'FEATURES') throw throttled();
      return send();
    });
    await expect(storeEvents(context(appId), 'user-1', [featureUsed], NOW)).rejects.toThrow('throughput exceeded');
  });

  it('the test store turned on: a key pair another command gave first is kept; any other failure reaches the operator', async () => {
    const newApp = async () =>
      (await createApp({ name: 'race', reportingCurrency: 'USD', testStore: false })).app.app_id;
    const refuseKeyPair = (error: () => Error) =>
      interceptCommands(async ({ command, input }, send) => {
        if (command === 'UpdateItemCommand' && String(input.ConditionExpression).includes('test_store_public_key'))
          throw error();
        return send();
      });
    const raced = await newApp();
    const sent = refuseKeyPair(conditionFailed);
    expect(await setTestStore(raced, true)).toEqual({ test_store: true, generated_key: false });
    // The app was read consistently before the pair was made; the flag is set after the lost race.
    expect(sent.find(({ command }) => command === 'GetItemCommand')?.input.ConsistentRead).toBe(true);
    stopIntercepting();
    expect(await getApp(raced, true)).toMatchObject({ test_store: true });

    const failing = await newApp();
    refuseKeyPair(throttled);
    await expect(setTestStore(failing, true)).rejects.toThrow('throughput exceeded');
  });

  it('a store notification record: a throttled put is not taken for a redelivery', async () => {
    const { appId } = await createTestApp([]);
    const notification: StoreNotification = {
      store: 'app_store',
      notification_id: `n-${unique()}`,
      type: 'TEST',
      subtype: null,
      environment: 'Sandbox',
      sent_at: NOW.toISOString(),
      state: null,
    };
    failCommands('PutItemCommand', throttled);
    await expect(recordNotification(appId, notification, 'recorded', NOW)).rejects.toThrow('throughput exceeded');
    stopIntercepting();
    expect(await recordNotification(appId, notification, 'recorded', NOW)).toBe(true);
    expect(await recordNotification(appId, notification, 'recorded', NOW)).toBe(false);
  });

  it("an erasure's move of a subscription: a throttled transaction is not taken for another owner", async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: null });
    failCommands('TransactWriteItemsCommand', throttled);
    await expect(
      detachSubscription(keys.subscription(appId, subscription.id), appId, 'user-1', 'erased_1'),
    ).rejects.toThrow('throughput exceeded');
    stopIntercepting();
    expect(await getConsistent(keys.subscription(appId, subscription.id))).toMatchObject({ user_id: 'user-1' });
  });

  it('a profile merge: a throttled update is not retried as a race', async () => {
    const { appId } = await createTestApp([]);
    const sent = failCommands('UpdateItemCommand', throttled);
    await expect(mergeProfileMaps(appId, 'user-1', (maps) => maps, NOW)).rejects.toThrow('throughput exceeded');
    expect(sent.map(({ command }) => command)).toEqual(['GetItemCommand', 'UpdateItemCommand']);
  });

  it('a profile merge that loses every race is CONCURRENT_MODIFICATION, retryable', async () => {
    const { appId } = await createTestApp([]);
    const sent = failCommands('UpdateItemCommand', conditionFailed);
    expect(await appErrorOf(mergeProfileMaps(appId, 'user-1', (maps) => maps, NOW))).toMatchObject({
      code: 'CONCURRENT_MODIFICATION',
      message: 'The user profile is being changed concurrently; retry',
      retryable: true,
    });
    expect(sent.filter(({ command }) => command === 'UpdateItemCommand').length).toBeGreaterThan(1);
  });

  it('a grant: a refused condition is read again and, every time refused, CONCURRENT_MODIFICATION; a throttle is itself', async () => {
    const { appId } = await createTestApp([]);
    await putEntitlements(appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    const raced = failCommands('TransactWriteItemsCommand', firstConditionFailed);
    expect(await appErrorOf(grantEntitlement(appId, 'user-1', 'pro', { duration: 'P1M' }, NOW))).toMatchObject({
      code: 'CONCURRENT_MODIFICATION',
      message: 'The grant is being changed concurrently; retry',
      retryable: true,
    });
    expect(raced.filter(({ command }) => command === 'TransactWriteItemsCommand').length).toBeGreaterThan(1);
    stopIntercepting();

    const throttledWrites = failCommands('TransactWriteItemsCommand', throttled);
    await expect(grantEntitlement(appId, 'user-1', 'pro', { duration: 'P1M' }, NOW)).rejects.toThrow(
      'throughput exceeded',
    );
    expect(throttledWrites.filter(({ command }) => command === 'TransactWriteItemsCommand')).toHaveLength(1);
  });
});

describe('a repeated session report', () => {
  it('is one transaction the first time; a repeat writes nothing but the profile seen now', async () => {
    const { appId } = await createTestApp([]);
    const reported = session();
    const first = interceptCommands();
    expect(await storeSession(context(appId), 'user-1', reported, NOW)).toEqual({ counted: true });
    expect(first.map(({ command }) => command)).toEqual(['TransactWriteItemsCommand']);
    stopIntercepting();
    const again = interceptCommands();
    expect(await storeSession(context(appId), 'user-1', reported, NOW)).toEqual({ counted: false });
    expect(again.map(({ command }) => command)).toEqual(['TransactWriteItemsCommand', 'UpdateItemCommand']);
  });
});

describe('reads that decide on the latest write are strongly consistent', () => {
  it('by key, a profile merge, whether a subscription exists, a page of the operator scan and an erasure', async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId);
    const sent = interceptCommands();
    expect(await getConsistent(keys.subscription(appId, subscription.id))).toMatchObject({ id: subscription.id });
    await mergeProfileMaps(appId, 'user-1', (maps) => maps, NOW);
    expect(await subscriptionExists(appId, subscription.id)).toBe(true);
    expect((await getSubscription(appId, subscription.id))?.record.id).toBe(subscription.id);
    // The first page only: the shared table may hold many pages of other files' items.
    await scanSubscriptions(appId).next();
    // An erasure deletes what was written just before it too.
    expect(await deleteFromPartition(`NOTHING#${appId}`, 10)).toEqual({ sortKeys: [], more: false });
    const reads = sent.filter(({ command }) => command !== 'UpdateItemCommand');
    expect(reads.map(({ command }) => command)).toEqual([
      'GetItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
      'ScanCommand',
      'QueryCommand',
    ]);
    for (const read of reads) expect(read.input.ConsistentRead, read.command).toBe(true);
  });
});
