import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the sweeper's checkpoint is one item per kind, which the shared table's other
  // sweeps (at the real time) would move.
  process.env.TABLE_NAME = `sweeper-clock-${process.pid}`;
});

import { ddb, tableName } from '../../lib/data/client.js';
import { advanceCheckpoint, findDueItems } from '../../lib/data/due.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { processDueWork } from '../../lib/services/due-work.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { failCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

/**
 * The clock is injected by faking Date alone (timers stay real): every `new Date()` in lib/ (the
 * state machine's now, the records' updated_at, the day a due item is filed under) reads it, so
 * "midnight" is a value of the test, not a moment to wait for, and a run crossing the real UTC
 * midnight changes nothing.
 */
const clockAt = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

const checkpoint = async (): Promise<string | undefined> =>
  (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.checkpoint('due-SUB'), ConsistentRead: true }))).Item
    ?.day as string | undefined;

const statusOf = async (appId: string, id: string) => (await getSubscriptionRecord(appId, id))?.status;

describe('expiry sweeper across midnight, with its checkpoint (injected clock, own table)', () => {
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    ({ appId } = await createTestApp());
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a subscription due at 23:59:30 expires at the first run after midnight; yesterday is read until it settles', async () => {
    clockAt('2026-03-09T12:00:00.000Z');
    // First run ever: looks back a week, finds nothing, and records that every day before today is done.
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });
    expect(await checkpoint()).toBe('2026-03-09');

    clockAt('2026-03-10T23:59:00.000Z');
    const late = await seedSubscription(appId, { expires_at: '2026-03-10T23:59:30.000Z' });
    // Not due yet at 23:59:10.
    clockAt('2026-03-10T23:59:10.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });
    expect(await statusOf(appId, late.id)).toBe('active');
    expect(await checkpoint()).toBe('2026-03-10');

    // The first run of the next day reads yesterday's partition too, and keeps the checkpoint on
    // it: a write that read its clock before midnight may still file an item there.
    clockAt('2026-03-11T00:00:30.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 1, changed: 1, failed: 0 });
    expect(await statusOf(appId, late.id)).toBe('expired');
    expect(await checkpoint()).toBe('2026-03-10');

    // Fifteen minutes after midnight the day has settled: the checkpoint moves past it.
    clockAt('2026-03-11T00:15:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });
    expect(await checkpoint()).toBe('2026-03-11');
  });

  it('after days without a run, the backlog of every day since the checkpoint is applied; the next run reads today only', async () => {
    clockAt('2026-03-11T09:00:00.000Z');
    const dueThatDay = await seedSubscription(appId, { expires_at: '2026-03-11T22:00:00.000Z' });
    clockAt('2026-03-12T09:00:00.000Z');
    const dueNextDay = await seedSubscription(appId, { expires_at: '2026-03-12T10:00:00.000Z' });
    const pauseEnds = await seedSubscription(appId, {
      status: 'paused',
      expires_at: '2026-04-01T00:00:00.000Z',
      paused_at: '2026-03-12T09:00:00.000Z',
      paused_until: '2026-03-13T09:00:00.000Z',
    });
    const notYet = await seedSubscription(appId, { expires_at: '2026-03-14T11:00:00.000Z' });

    // No run for three days (the checkpoint is still 2026-03-11).
    clockAt('2026-03-14T10:00:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 3, changed: 3, failed: 0 });
    expect(await statusOf(appId, dueThatDay.id)).toBe('expired');
    expect(await statusOf(appId, dueNextDay.id)).toBe('expired');
    expect(await getSubscriptionRecord(appId, pauseEnds.id)).toMatchObject({
      status: 'active',
      // Resumed at paused_until: the one day paused is added, not the time until this run.
      expires_at: '2026-04-02T00:00:00.000Z',
    });
    expect(await statusOf(appId, notYet.id)).toBe('active');
    expect(await checkpoint()).toBe('2026-03-14');

    // The checkpoint GetItem and one Query, for today's partition: earlier days are never read again.
    expect(await dynamoDbRoundTrips(() => findDueItems('SUB', new Date(), 1000))).toEqual([['GetItem'], ['Query']]);

    clockAt('2026-03-14T11:00:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 1, changed: 1, failed: 0 });
    expect(await statusOf(appId, notYet.id)).toBe('expired');
  });

  it('a day with a failed item stops the checkpoint at that day, so the next run reads it again; later days go on', async () => {
    clockAt('2026-03-15T08:00:00.000Z');
    const failing = await seedSubscription(appId, { expires_at: '2026-03-15T09:00:00.000Z' });
    clockAt('2026-03-16T08:00:00.000Z');
    const later = await seedSubscription(appId, { expires_at: '2026-03-16T09:00:00.000Z' });
    clockAt('2026-03-17T08:00:00.000Z');
    expect(await checkpoint()).toBe('2026-03-14');

    const seen: string[] = [];
    const failed = await processDueWork('SUB', new Date(), { limit: 1000, concurrency: 1 }, async (item) => {
      seen.push(item.id as string);
      if (item.id === failing.id) throw new Error('injected failure');
    });
    // The failed item holds no other work back: the next day is handled too. The checkpoint moves
    // past the (empty) 14th but not past the 15th.
    expect(failed).toEqual({ examined: 2, failed: 1 });
    expect(seen).toEqual([failing.id, later.id]);
    expect(await checkpoint()).toBe('2026-03-15');

    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 2, changed: 2, failed: 0 });
    expect(await statusOf(appId, failing.id)).toBe('expired');
    expect(await statusOf(appId, later.id)).toBe('expired');
    expect(await checkpoint()).toBe('2026-03-17');
  });

  it('an item filed under yesterday after the first run past midnight is still handled', async () => {
    clockAt('2026-03-20T23:50:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });
    expect(await checkpoint()).toBe('2026-03-20');
    // A run just after midnight finds nothing in either day.
    clockAt('2026-03-21T00:00:01.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });

    // A writer whose clock read 23:59:59 commits now: its item is due, and filed under the 20th.
    clockAt('2026-03-20T23:59:58.000Z');
    const written = await seedSubscription(appId, { expires_at: '2026-03-20T23:59:59.000Z' });
    clockAt('2026-03-21T00:01:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 1, changed: 1, failed: 0 });
    expect(await statusOf(appId, written.id)).toBe('expired');

    clockAt('2026-03-21T00:16:00.000Z');
    expect(await expireDueSubscriptions(new Date())).toEqual({ examined: 0, changed: 0, failed: 0 });
    expect(await checkpoint()).toBe('2026-03-21');
  });

  it("a past day cut short by the run's limit is read again by the next run", async () => {
    clockAt('2026-03-22T08:00:00.000Z');
    const due = [
      await seedSubscription(appId, { expires_at: '2026-03-22T09:00:00.000Z' }),
      await seedSubscription(appId, { expires_at: '2026-03-22T09:01:00.000Z' }),
      await seedSubscription(appId, { expires_at: '2026-03-22T09:02:00.000Z' }),
    ];
    clockAt('2026-03-23T08:00:00.000Z');
    expect(await checkpoint()).toBe('2026-03-21');

    // The work leaves the items in the index (it changes nothing): only the checkpoint decides
    // what the next run reads.
    const seen: string[] = [];
    const look = async (item: Record<string, unknown>) => {
      seen.push(item.id as string);
    };
    expect(await processDueWork('SUB', new Date(), { limit: 2, concurrency: 1 }, look)).toEqual({
      examined: 2,
      failed: 0,
    });
    expect(seen).toEqual([due[0]!.id, due[1]!.id]);
    // The 21st was read to its (empty) end; the 22nd was not.
    expect(await checkpoint()).toBe('2026-03-22');

    seen.length = 0;
    expect(await processDueWork('SUB', new Date(), { limit: 10, concurrency: 1 }, look)).toEqual({
      examined: 3,
      failed: 0,
    });
    expect(seen).toEqual(due.map((s) => s.id));
    expect(await checkpoint()).toBe('2026-03-23');
  });
  it('the checkpoint never moves back (two overlapping runs); a failure to move it reaches the run', async () => {
    // Another kind's checkpoint than the sweeper's, so the tests above keep theirs.
    const grants = async () =>
      (await ddb.send(new GetCommand({ TableName: tableName, Key: keys.checkpoint('due-GRT'), ConsistentRead: true })))
        .Item?.day;
    await advanceCheckpoint('GRT', '2026-03-10');
    await advanceCheckpoint('GRT', '2026-03-09');
    expect(await grants()).toBe('2026-03-10');
    failCommands('PutItemCommand', throttled);
    try {
      await expect(advanceCheckpoint('GRT', '2026-03-11')).rejects.toThrow('throughput exceeded');
    } finally {
      stopIntercepting();
    }
    expect(await grants()).toBe('2026-03-10');
  });

  it('no item is started after the deadline: the rest stay due, their day unfinished', async () => {
    // What earlier tests left due is handled first.
    clockAt('2026-04-23T08:00:00.000Z');
    expect((await expireDueSubscriptions(new Date())).failed).toBe(0);
    clockAt('2026-04-24T08:00:00.000Z');
    const first = await seedSubscription(appId, { expires_at: '2026-04-24T09:00:00.000Z' });
    const second = await seedSubscription(appId, { expires_at: '2026-04-24T09:30:00.000Z' });
    clockAt('2026-04-26T08:00:00.000Z');
    const seen: string[] = [];
    const options = { limit: 1000, concurrency: 1 };
    // The deadline passes while the first item is handled.
    const deadline = Date.now() + 60_000;
    const result = await processDueWork('SUB', new Date(), { ...options, deadline }, async (item) => {
      seen.push(item.id as string);
      clockAt('2026-04-26T08:02:00.000Z');
    });
    expect(result).toEqual({ examined: 1, failed: 0 });
    // The first started, its day cut short: the checkpoint may pass the days before it, not that one.
    expect(seen).toEqual([first.id]);
    expect(await checkpoint()).toBe('2026-04-24');
    // A run with time left takes the rest.
    expect((await expireDueSubscriptions(new Date())).failed).toBe(0);
    expect([await statusOf(appId, first.id), await statusOf(appId, second.id)]).toEqual(['expired', 'expired']);
    // A run whose deadline has passed starts nothing.
    expect(await processDueWork('SUB', new Date(), { ...options, deadline: Date.now() }, async () => {})).toEqual({
      examined: 0,
      failed: 0,
    });
  });
});
