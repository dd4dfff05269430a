/**
 * Customer info against DynamoDB Local: the bounded read (one profile Query, one key Query of the
 * user index, one batch read of at most MAX_CUSTOMER_SUBSCRIPTIONS) and the warm function's cache
 * of the app's entitlement definitions (ENTITLEMENTS_CACHE_TTL_SECONDS).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.ENTITLEMENTS_CACHE_TTL_SECONDS = '60';
});

import { readConfig } from '../../lib/core/config.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { bulkInsertSubscriptions } from '../../lib/data/subscription-writes.js';
import { MAX_CUSTOMER_SUBSCRIPTIONS } from '../../lib/schemas/entitlement.js';
import { customerInfo } from '../../lib/services/customer-info.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp } from '../support/fixtures.js';
import { buildSubscription, seedSubscription } from '../support/subscriptions.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('customer info', () => {
  it('reads at most the newest 100 subscriptions of a user, in one key query and one batch read', async () => {
    const app = await createTestApp();
    await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const records = Array.from({ length: MAX_CUSTOMER_SUBSCRIPTIONS + 5 }, (_, i) => {
      const at = new Date(start + i * 60_000).toISOString();
      // The five oldest are the only active ones: past the bound, they are not read.
      return buildSubscription(app.appId, {
        user_id: 'collector',
        status: i < 5 ? 'active' : 'expired',
        created_at: at,
        started_at: at,
      });
    });
    await bulkInsertSubscriptions(
      records.map((record) => ({
        record,
        payment: { transaction_id: null, receipt_data: null, payment_method: 'app_store', last_payment: null },
      })),
    );
    await customerInfo(app.appId, 'collector'); // the definitions are read once per warm function
    let info: Awaited<ReturnType<typeof customerInfo>>;
    const trips = await dynamoDbRoundTrips(async () => {
      info = await customerInfo(app.appId, 'collector');
    });
    // The profile and the user's keys in parallel, then the subscriptions once the keys are in: the
    // batch read may start while the profile's Query is still out, so the two may share a trip.
    expect(trips.flat().sort()).toEqual(['BatchGetItem', 'Query', 'Query']);
    expect(trips[0]!.slice(0, 2)).toEqual(['Query', 'Query']);
    expect(trips.length).toBeLessThanOrEqual(2);
    expect(info!.subscriptions).toHaveLength(100);
    expect(info!.subscriptions[0]!.id).toBe(records.at(-1)!.id);
    expect(info!.subscriptions.at(-1)!.id).toBe(records[5]!.id);
    expect(info!.entitlements.pro!.active).toBe(false);
  });

  it('a warm function keeps the entitlement definitions for ENTITLEMENTS_CACHE_TTL_SECONDS', async () => {
    const app = await createTestApp();
    await seedSubscription(app.appId, { user_id: 'subscriber' });
    await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect(Object.keys((await customerInfo(app.appId, 'subscriber'))!.entitlements)).toEqual(['pro']);
    await putEntitlements(app.appId, [{ id: 'plus', name: 'Plus', products: ['premium_monthly'] }]);
    vi.advanceTimersByTime(59_000);
    expect(Object.keys((await customerInfo(app.appId, 'subscriber'))!.entitlements)).toEqual(['pro']);
    vi.advanceTimersByTime(2_000);
    expect(Object.keys((await customerInfo(app.appId, 'subscriber'))!.entitlements)).toEqual(['plus']);
  });

  it('ENTITLEMENTS_CACHE_TTL_SECONDS is at most 300, 0 turning the cache off', () => {
    expect(readConfig({}).entitlementsCacheTtlSeconds).toBe(60);
    expect(readConfig({ ENTITLEMENTS_CACHE_TTL_SECONDS: '0' }).entitlementsCacheTtlSeconds).toBe(0);
    expect(readConfig({ ENTITLEMENTS_CACHE_TTL_SECONDS: '300' }).entitlementsCacheTtlSeconds).toBe(300);
    expect(() => readConfig({ ENTITLEMENTS_CACHE_TTL_SECONDS: '301' })).toThrow(/at most 300/);
  });
});
