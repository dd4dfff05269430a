/**
 * Erasure of a user (DELETE /v1/customers/{user_id}) against DynamoDB Local, in its own table so a
 * full Scan proves what is left: a user with thousands of events is erased in bounded steps (a
 * request, then the job), never left half-done, and their subscriptions stay, anonymised.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `erasure-${process.pid}`;
});

import { handler as expiryJob } from '../../functions/jobs/expire-subscriptions.js';
import { batchWriteAll, putRequest } from '../../lib/data/batch.js';
import { ddb } from '../../lib/data/client.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getErasure, startErasure } from '../../lib/data/erasure-writes.js';
import { mergeProfileMaps } from '../../lib/data/profiles.js';
import { scanPages } from '../../lib/data/query.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { reportKeys, userPartitionsOf } from '../../lib/data/table-keys.js';
import { NO_COUNTS } from '../../lib/domain/erasure-scope.js';
import { customerInfo } from '../../lib/services/customer-info.js';
import { continueErasures, eraseCustomer, REQUEST_ERASURE_ITEMS } from '../../lib/services/erasure.js';
import { grantEntitlement } from '../../lib/services/grants.js';
import { createTestApp } from '../support/fixtures.js';
import { underMutationTesting } from '../support/mutation.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

// 1.4 times what a request erases: the request, then two runs of the job (at JOB_RUN_ITEMS a run) finish it.
const EVENTS = 1400;
const JOB_RUN_ITEMS = 300;

type Item = Record<string, unknown>;

async function scanAll(): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of scanPages({ ConsistentRead: true })) items.push(...(page.Items ?? []));
  return items;
}

/** Items of the user's own partitions, and any other item that still names the user. */
async function leftOf(appId: string, userId: string): Promise<Item[]> {
  const partitions: string[] = Object.values(userPartitionsOf(appId, userId));
  return (await scanAll()).filter(
    (item) =>
      partitions.includes(item.pk as string) ||
      (item.app_id === appId && (item.user_id === userId || item.owner_user_id === userId)),
  );
}

const total = (removed: Record<string, number>) => Object.values(removed).reduce((a, b) => a + b, 0);

/** A user with every kind of data: a profile with attributes, a grant, sessions, report history, events, subscriptions. */
async function seedUser(appId: string, userId: string, events: number): Promise<string[]> {
  const now = new Date();
  await mergeProfileMaps(
    appId,
    userId,
    () => ({ attributes: { email: `${userId}@example.com` }, custom_properties: { tier: 'gold' } }),
    now,
  );
  await grantEntitlement(appId, userId, 'pro', { duration: 'P1M' });
  const received = now.toISOString();
  await batchWriteAll([
    ...Array.from({ length: events }, (_, i) =>
      putRequest({
        ...reportKeys.reportedEvent(appId, userId, `id:${i}`),
        type: 'reported_event',
        name: 'tap',
        at: received,
      }),
    ),
    ...[1, 2].map((i) =>
      putRequest({ ...reportKeys.reportedSession(appId, userId, `s-${i}`), type: 'reported_session' }),
    ),
    ...[1, 2, 3].map((i) =>
      putRequest({ ...reportKeys.reportHistory(appId, userId, 'conversion', received, `r${i}`), type: 'report' }),
    ),
    putRequest({ ...reportKeys.latestReport(appId, userId, 'device_info'), type: 'latest_report' }),
    putRequest({ ...reportKeys.reportedOrder(appId, userId, 'o-1'), type: 'reported_order', user_id: userId }),
    putRequest({ ...keys.userActivity(appId, userId), type: 'user_activity', first_seen: received }),
  ]);
  const subscriptions = [
    await seedSubscription(appId, { user_id: userId }),
    await seedSubscription(appId, { user_id: userId }),
  ];
  return subscriptions.map((subscription) => subscription.id);
}

describe('erasure of a user (bounded batches, continued by the job, own table)', () => {
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    ({ appId } = await createTestApp());
    await putEntitlements(appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  });

  // A minute each time: under mutation testing it would run once per mutant of lib/data it reaches.
  it.skipIf(underMutationTesting)(
    `a user with ${EVENTS} events: a request erases at most ${REQUEST_ERASURE_ITEMS} items, the job the rest; nothing is left`,
    async () => {
      const subscriptions = await seedUser(appId, 'heavy-user', EVENTS);
      await seedUser(appId, 'bystander', 3);

      const first = await eraseCustomer(appId, 'heavy-user');
      expect(first.status).toBe('in_progress');
      expect(total(first.removed)).toBeLessThanOrEqual(REQUEST_ERASURE_ITEMS);
      // The subscriptions come first: the user is out of them before anything is deleted.
      expect(first.removed.subscriptions_detached).toBe(2);
      // Under way, recorded: the job finds the marker in the due index.
      expect(await getErasure(appId, 'heavy-user')).toMatchObject({ removed: first.removed });

      // A job run of JOB_RUN_ITEMS items leaves some; the second finishes.
      const runs = [];
      for (let run = 0; run < 2; run++) runs.push(await continueErasures(new Date(), JOB_RUN_ITEMS));
      expect(runs.map((run) => run.erased)).toEqual([0, 1]);
      expect(await getErasure(appId, 'heavy-user')).toBeUndefined();

      // A DELETE now finds nothing: the counts of the whole erasure were those of the last step.
      expect(await eraseCustomer(appId, 'heavy-user')).toEqual({
        user_id: 'heavy-user',
        status: 'erased',
        removed: NO_COUNTS,
      });
      expect(await leftOf(appId, 'heavy-user')).toEqual([]);
      expect(await customerInfo(appId, 'heavy-user')).toBeUndefined();
      // Kept for revenue, under an anonymous id; the bystander's data is untouched.
      for (const id of subscriptions) {
        const record = await getSubscriptionRecord(appId, id);
        expect(record?.user_id).toMatch(/^erased_[0-9a-f]{24}$/);
      }
      expect((await leftOf(appId, 'bystander')).length).toBeGreaterThan(10);
    },
    240_000,
  );

  it('a small user is erased in one request (200), with the counts of each kind', async () => {
    await seedUser(appId, 'light-user', 20);
    expect(await eraseCustomer(appId, 'light-user')).toEqual({
      user_id: 'light-user',
      status: 'erased',
      // Profile, activity (features: none); the history and the latest report; the grant.
      removed: {
        profile: 2,
        events: 20,
        sessions: 2,
        orders: 1,
        reports: 4,
        grants: 1,
        webhook_events: 0,
        subscriptions_detached: 2,
      },
    });
    expect(await leftOf(appId, 'light-user')).toEqual([]);
  });

  it("deletes the rate limiter's window by its key with the user's first page: its partition is not queried", async () => {
    await seedUser(appId, 'limited-user', 1);
    await batchWriteAll([putRequest({ ...keys.rateLimitWindow(appId, 'limited-user'), count: 3 })]);
    const send = vi.spyOn(ddb, 'send');
    try {
      expect((await eraseCustomer(appId, 'limited-user')).status).toBe('erased');
      const queried = send.mock.calls
        .map(
          ([command]) =>
            command.input as { KeyConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> },
        )
        .filter((input) => input.KeyConditionExpression !== undefined)
        .map((input) => String(input.ExpressionAttributeValues?.[':pk']));
      expect(queried.some((pk) => pk.startsWith('USER#'))).toBe(true);
      expect(queried.filter((pk) => pk.startsWith('RATE#'))).toEqual([]);
    } finally {
      send.mockRestore();
    }
    expect(await leftOf(appId, 'limited-user')).toEqual([]);
  });

  it('an erasure whose request died is carried on by the job once its lease runs out, never left half-done', async () => {
    await seedUser(appId, 'orphaned', 10);
    const now = new Date();
    // As a request that started and died: the marker is written, nothing is deleted yet.
    await startErasure(
      {
        app_id: appId,
        user_id: 'orphaned',
        anonymous_id: 'erased_000000000000000000000000',
        removed: NO_COUNTS,
        started_at: now.toISOString(),
      },
      now,
    );
    // While the lease holds, a request answers the progress without working on it.
    expect(await eraseCustomer(appId, 'orphaned')).toMatchObject({ status: 'in_progress', removed: NO_COUNTS });
    // Nor does the job: the marker is due when the lease runs out, not before.
    expect(await continueErasures(new Date(now.getTime() + 60_000))).toEqual({ examined: 0, erased: 0, failed: 0 });
    // Once it runs out, the scheduled job takes it over.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now.getTime() + 6 * 60_000);
    try {
      expect(await expiryJob()).toMatchObject({ erasures: { examined: 1, erased: 1, failed: 0 } });
    } finally {
      vi.useRealTimers();
    }
    expect(await leftOf(appId, 'orphaned')).toEqual([]);
    const [subscription] = (await scanAll()).filter(
      (item) => item.app_id === appId && item.user_id === 'erased_000000000000000000000000' && item.sk === 'SUB',
    );
    expect(subscription).toBeDefined();
  });
});
