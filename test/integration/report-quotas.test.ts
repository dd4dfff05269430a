/** The app's report quota item against DynamoDB Local (lib/data/report-quotas.ts): counted, refused, and shared by instances. */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import { keys } from '../../lib/data/keys.js';

const newApp = () => `app_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
const NOW = 1_800_000_000_000;
const LIMITS = { events: 100, bytes: 10_000 };

/** The module as a separate Lambda instance has it: nothing remembered of any app. */
async function instance() {
  vi.resetModules();
  return import('../../lib/data/report-quotas.js');
}

const quotaItem = async (appId: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.reportQuota(appId), ConsistentRead: true }))).Item;

describe("an app's report quota", () => {
  it('counts events in a minute window and bytes in a day window, the item gone by TTL with the day', async () => {
    const appId = newApp();
    const { chargeReportQuota } = await instance();
    expect(await chargeReportQuota(appId, { events: 60, bytes: 4_000 }, LIMITS, NOW)).toBeUndefined();
    expect(await chargeReportQuota(appId, { events: 0, bytes: 1_000 }, LIMITS, NOW + 1000)).toBeUndefined();
    expect(await quotaItem(appId)).toEqual({
      ...keys.reportQuota(appId),
      events_used: 60,
      events_window_ends_at: NOW + 60_000,
      bytes_used: 5_000,
      bytes_window_ends_at: NOW + 86_400_000,
      ttl: (NOW + 86_400_000) / 1000,
    });
  });

  it('refuses a report past a window and counts nothing of it; another instance, knowing nothing, refuses it too', async () => {
    const appId = newApp();
    const first = await instance();
    expect(await first.chargeReportQuota(appId, { events: 90, bytes: 100 }, LIMITS, NOW)).toBeUndefined();
    const before = await quotaItem(appId);
    // This instance saw the window: refused without a write.
    expect(await first.chargeReportQuota(appId, { events: 11, bytes: 100 }, LIMITS, NOW + 20_000)).toEqual({
      allowed: false,
      counter: 'events',
      limit: 100,
      retryAfterSeconds: 40,
    });
    // Another guesses the window closed, learns it from the failed condition, and refuses.
    const second = await instance();
    expect(await second.chargeReportQuota(appId, { events: 11, bytes: 100 }, LIMITS, NOW + 30_000)).toMatchObject({
      allowed: false,
      counter: 'events',
      retryAfterSeconds: 30,
    });
    expect(await quotaItem(appId)).toEqual(before);
    // What still fits is counted, by either.
    expect(await second.chargeReportQuota(appId, { events: 10, bytes: 100 }, LIMITS, NOW + 30_000)).toBeUndefined();
    expect(await quotaItem(appId)).toMatchObject({ events_used: 100, bytes_used: 200 });
    // The minute over, a new window opens; the day's bytes go on.
    expect(await first.chargeReportQuota(appId, { events: 5, bytes: 100 }, LIMITS, NOW + 60_000)).toBeUndefined();
    expect(await quotaItem(appId)).toMatchObject({
      events_used: 5,
      events_window_ends_at: NOW + 120_000,
      bytes_used: 300,
      bytes_window_ends_at: NOW + 86_400_000,
    });
  });

  it('instances reporting at once are all counted, in one window', async () => {
    const appId = newApp();
    const instances = [await instance(), await instance(), await instance()];
    const refusals = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        instances[i % 3]!.chargeReportQuota(appId, { events: 10, bytes: 10 }, LIMITS, NOW),
      ),
    );
    expect(refusals.filter(Boolean)).toHaveLength(2);
    expect(await quotaItem(appId)).toMatchObject({ events_used: 100, bytes_used: 100 });
  });
});
