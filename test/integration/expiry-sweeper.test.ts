import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The sweep takes every app's due subscriptions: its own table, so they are this file's only.
  process.env.TABLE_NAME = `expiry-sweeper-${process.pid}`;
});

import { handler } from '../../functions/jobs/expire-subscriptions.js';
import { SCHEDULED_JOB_TIMEOUT_SECONDS } from '../../lib/core/defaults.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { lambdaContext } from '../../local/lambda-context.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

/**
 * Every time of the test is relative to one moment, and the sweeps look for what is due at that
 * moment: "due a minute from now" stays not due however long seeding takes on a loaded machine.
 */
const base = Date.now();
const ago = (ms: number) => new Date(base - ms).toISOString();
const ahead = (ms: number) => new Date(base + ms).toISOString();

describe('expiry sweeper (workDueByDay index, DynamoDB Local)', () => {
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    ({ appId } = await createTestApp());
  });

  it('applies every due time transition and leaves the rest alone, idempotently', async () => {
    const expiring = await seedSubscription(appId, { expires_at: ago(60_000) });
    const endingAtPeriodEnd = await seedSubscription(appId, {
      expires_at: ago(1_000),
      auto_renew: false,
      cancel_at_period_end: true,
    });
    const pauseOver = await seedSubscription(appId, {
      status: 'paused',
      expires_at: ahead(10 * 86_400_000),
      paused_at: ago(3 * 86_400_000),
      paused_until: ago(5_000),
    });
    const notYet = await seedSubscription(appId, { expires_at: ahead(60_000) });
    const pending = await seedSubscription(appId, { status: 'pending_verification', expires_at: ago(60_000) });

    const first = await expireDueSubscriptions(new Date(base));
    expect(first.failed).toBe(0);
    expect(first.changed).toBeGreaterThanOrEqual(3);

    const status = async (id: string) => (await getSubscriptionRecord(appId, id))?.status;
    expect(await status(expiring.id)).toBe('expired');
    expect(await status(endingAtPeriodEnd.id)).toBe('cancelled');
    expect(await status(pauseOver.id)).toBe('active');
    expect(await status(notYet.id)).toBe('active');
    expect(await status(pending.id)).toBe('pending_verification');

    // The resumed subscription got its paused time back, counted to paused_until (not to the sweep).
    const resumed = await getSubscriptionRecord(appId, pauseOver.id);
    const pausedMs = Date.parse(pauseOver.paused_until!) - Date.parse(pauseOver.paused_at!);
    expect(Date.parse(resumed!.expires_at)).toBe(Date.parse(pauseOver.expires_at) + pausedMs);

    // Nothing is due any more: a second run changes none of them.
    const versions = await Promise.all(
      [expiring, endingAtPeriodEnd, pauseOver].map(async (s) => (await getSubscriptionRecord(appId, s.id))!.version),
    );
    await expireDueSubscriptions(new Date(base));
    const again = await Promise.all(
      [expiring, endingAtPeriodEnd, pauseOver].map(async (s) => (await getSubscriptionRecord(appId, s.id))!.version),
    );
    expect(again).toEqual(versions);
  });

  it('the scheduled function starts nothing in its last minute; with its whole timeout it does the work', async () => {
    const due = await seedSubscription(appId, { expires_at: new Date(Date.now() - 60_000).toISOString() });
    const context = (seconds: number) => lambdaContext('ExpireSubscriptions', `sweep-${seconds}`, seconds * 1000);
    expect(await handler({}, context(30))).toMatchObject({ examined: 0, changed: 0 });
    expect((await getSubscriptionRecord(appId, due.id))!.status).toBe('active');
    expect(await handler({}, context(SCHEDULED_JOB_TIMEOUT_SECONDS))).toMatchObject({ examined: 1, changed: 1 });
    expect((await getSubscriptionRecord(appId, due.id))!.status).toBe('expired');
  });

  it("reads its three kinds' checkpoints (subscriptions, grants, erasures) in one request first", async () => {
    const context = lambdaContext('ExpireSubscriptions', 'sweep-reads', SCHEDULED_JOB_TIMEOUT_SECONDS * 1000);
    const trips = await dynamoDbRoundTrips(() => handler({}, context));
    expect(trips[0]).toEqual(['BatchGetItem']);
    // Then the kinds' day partitions (and a checkpoint moved on, on a first run): no checkpoint is read again.
    expect(trips.slice(1).flat()).toContain('Query');
    expect(trips.slice(1).flat()).not.toContain('GetItem');
    expect(trips.slice(1).flat()).not.toContain('BatchGetItem');
  });
});
