/** The app's report quota item against DynamoDB Local (lib/data/report-quotas.ts): counted, refused, and shared by instances. */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { QUOTA_FLUSH_AGE_MS } from '../../lib/domain/report-quota.js';

const newApp = () => `app_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
const NOW = 1_800_000_000_000;
const LIMITS = { events: 100, bytes: 10_000 };

/**
 * The module as a separate Lambda instance has it: nothing remembered of any app, its own client;
 * `writes()` counts the UpdateItems it has sent (the intercept of that client).
 */
async function instance() {
  vi.resetModules();
  const quotas = await import('../../lib/data/report-quotas.js');
  const sent = (await import('../support/ddb-intercept.js')).interceptCommands();
  return { ...quotas, writes: () => sent.filter(({ command }) => command === 'UpdateItemCommand').length };
}

/** Limits of a busy app: shares of 100 events and 10,000 bytes (1 %). */
const BUSY = { events: 10_000, bytes: 1_000_000 };

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
    // Another joins the open window, learns from the failed condition that it has no room, and refuses.
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

  it("an instance's first report joins the windows open: one write; a closed minute costs a second", async () => {
    const appId = newApp();
    const opener = await instance();
    expect(await opener.chargeReportQuota(appId, { events: 10, bytes: 100 }, LIMITS, NOW)).toBeUndefined();
    const joining = await instance();
    expect(await joining.chargeReportQuota(appId, { events: 20, bytes: 200 }, LIMITS, NOW + 10_000)).toBeUndefined();
    expect(joining.writes()).toBe(1);
    expect(await quotaItem(appId)).toMatchObject({
      events_used: 30,
      events_window_ends_at: NOW + 60_000,
      bytes_used: 300,
      bytes_window_ends_at: NOW + 86_400_000,
    });
    // An instance that refused an oversized report first, without a write, still joins the open windows.
    const refusing = await instance();
    expect(await refusing.chargeReportQuota(appId, { events: 101, bytes: 1 }, LIMITS, NOW + 20_000)).toMatchObject({
      allowed: false,
      counter: 'events',
    });
    expect(await refusing.chargeReportQuota(appId, { events: 1, bytes: 1 }, LIMITS, NOW + 20_000)).toBeUndefined();
    expect(refusing.writes()).toBe(1);
    // The minute over: the join is refused by its condition, and the item it returns opens a new minute.
    const late = await instance();
    expect(await late.chargeReportQuota(appId, { events: 5, bytes: 50 }, LIMITS, NOW + 61_000)).toBeUndefined();
    expect(late.writes()).toBe(2);
    expect(await quotaItem(appId)).toMatchObject({
      events_used: 5,
      events_window_ends_at: NOW + 121_000,
      bytes_used: 351,
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

  it('reports within the age cost a write per share, not one each; the item at most one share behind per instance', async () => {
    const appId = newApp();
    const [first, second] = [await instance(), await instance()];
    const report = { events: 1, bytes: 100 };
    // 150 reports each, 10 ms apart, interleaved: within QUOTA_FLUSH_AGE_MS of each instance's last write.
    for (let i = 0; i < 150; i++) {
      expect(await first.chargeReportQuota(appId, report, BUSY, NOW + i * 10)).toBeUndefined();
      expect(await second.chargeReportQuota(appId, report, BUSY, NOW + i * 10 + 5)).toBeUndefined();
    }
    // Each: its first report (the first finds no window to join and opens one, the second joins it), then one per 100 events.
    expect(first.writes()).toBe(3);
    expect(second.writes()).toBe(2);
    const item = await quotaItem(appId);
    const accepted = { events: 300, bytes: 30_000 };
    expect(item).toMatchObject({ events_used: 202, bytes_used: 20_200 });
    // Behind by less than one share (100 events, 10,000 bytes) for each instance.
    expect(accepted.events - (item?.events_used as number)).toBeLessThan(2 * 100);
    expect(accepted.bytes - (item?.bytes_used as number)).toBeLessThan(2 * 10_000);
    // A report once its last write (the 101st report) is QUOTA_FLUSH_AGE_MS old writes what the instance holds: 49 and this one.
    expect(await first.chargeReportQuota(appId, report, BUSY, NOW + 1_000 + QUOTA_FLUSH_AGE_MS)).toBeUndefined();
    expect(first.writes()).toBe(4);
    expect(await quotaItem(appId)).toMatchObject({ events_used: 202 + 50, bytes_used: 20_200 + 5_000 });
  });

  it('refuses once the item plus what the instance holds reach the limit; another instance counts only what was written', async () => {
    const appId = newApp();
    const limits = { events: 1_000, bytes: 1_000_000 }; // a share of 10 events
    const [first, second] = [await instance(), await instance()];
    // No window to join yet: the first report's join is refused by its condition, then opens both windows.
    expect(await first.chargeReportQuota(appId, { events: 990, bytes: 1 }, limits, NOW)).toBeUndefined();
    for (let i = 1; i <= 5; i++)
      expect(await first.chargeReportQuota(appId, { events: 1, bytes: 1 }, limits, NOW + i)).toBeUndefined();
    expect(first.writes()).toBe(2);
    expect(await quotaItem(appId)).toMatchObject({ events_used: 990 });
    // 990 written and 5 held: 6 more are past the limit, refused without a write.
    expect(await first.chargeReportQuota(appId, { events: 6, bytes: 1 }, limits, NOW + 10)).toMatchObject({
      allowed: false,
      counter: 'events',
    });
    expect(first.writes()).toBe(2);
    // The other instance sees the 990 written, not the 5 held: its 10 fit (the bound: a share per instance).
    expect(await second.chargeReportQuota(appId, { events: 10, bytes: 1 }, limits, NOW + 20)).toBeUndefined();
    expect(await quotaItem(appId)).toMatchObject({ events_used: 1_000 });
    // Reaching its share, the first writes; the item full, that report is refused and nothing of it counted.
    expect(await first.chargeReportQuota(appId, { events: 5, bytes: 1 }, limits, NOW + 30)).toMatchObject({
      allowed: false,
      counter: 'events',
    });
    expect(first.writes()).toBe(3);
    expect(await quotaItem(appId)).toMatchObject({ events_used: 1_000, bytes_used: 2 });
    // Knowing the window full now, it refuses without a write until it closes.
    expect(await first.chargeReportQuota(appId, { events: 1, bytes: 1 }, limits, NOW + 40)).toMatchObject({
      allowed: false,
      retryAfterSeconds: 60,
    });
    expect(first.writes()).toBe(3);
  });

  it('reports accepted while a write is on its way (the local gateway, one process) are written once, none lost', async () => {
    const appId = newApp();
    const limits = { events: 1_000, bytes: 1_000_000 }; // a share of 10 events
    const { chargeReportQuota, writes } = await instance();
    expect(await chargeReportQuota(appId, { events: 1, bytes: 10 }, limits, NOW)).toBeUndefined();
    const refusals = await Promise.all(
      Array.from({ length: 95 }, (_, i) => chargeReportQuota(appId, { events: 1, bytes: 10 }, limits, NOW + 1 + i)),
    );
    expect(refusals.filter(Boolean)).toHaveLength(0);
    // Once its last write is QUOTA_FLUSH_AGE_MS old, one more report writes all it holds: every report counted once.
    expect(
      await chargeReportQuota(appId, { events: 1, bytes: 10 }, limits, NOW + 100 + QUOTA_FLUSH_AGE_MS),
    ).toBeUndefined();
    expect(await quotaItem(appId)).toMatchObject({ events_used: 97, bytes_used: 970 });
    // The first (a refused join, then the windows opened), one per share of 10 events, and the last.
    expect(writes()).toBe(2 + 9 + 1);
  });

  it('a write refused for another reason than its condition fails the report, which is not counted; the next one is', async () => {
    const appId = newApp();
    vi.resetModules();
    const { chargeReportQuota } = await import('../../lib/data/report-quotas.js');
    const { interceptCommands, throttled } = await import('../support/ddb-intercept.js');
    let refusals = 0;
    interceptCommands(async ({ command }, send) => {
      if (command === 'UpdateItemCommand' && refusals++ === 0) throw throttled();
      return send();
    });
    await expect(chargeReportQuota(appId, { events: 30, bytes: 300 }, LIMITS, NOW)).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    expect(await quotaItem(appId)).toBeUndefined();
    expect(await chargeReportQuota(appId, { events: 20, bytes: 200 }, LIMITS, NOW + 1000)).toBeUndefined();
    expect(await quotaItem(appId)).toMatchObject({ events_used: 20, bytes_used: 200 });
  });
});
