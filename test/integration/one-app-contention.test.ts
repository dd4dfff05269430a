/**
 * What lib/ does today when one app's subscriptions change at the same moment on a DynamoDB that
 * conflicts like AWS's (test/support/dynamodb-conflict-proxy.ts): every change's transaction also
 * updates the app's list counters (COUNT#<app>), so concurrent changes of different subscriptions
 * touch the same items. These tests observe the current behaviour; they do not ask for a better one.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { cancellationReasonsOf, isDataStoreUnavailable } from '../../lib/data/unavailable.js';
import { startConflictProxy } from '../support/dynamodb-conflict-proxy.js';

// lib/ reads DYNAMODB_ENDPOINT once, when first imported: point it at the proxy before importing it.
const proxy = await startConflictProxy({ target: inject('dynamodbEndpoint') });
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
const { createSubscription, updateSubscription } = await import('../../lib/services/subscriptions.js');
const { countMatching } = await import('../../lib/data/subscription-queries.js');
const { createTestApp } = await import('../support/fixtures.js');
const { seedSubscription } = await import('../support/subscriptions.js');

afterAll(() => proxy.close());

const CONCURRENT = 5;
const settle = <T>(work: (i: number) => Promise<T>) =>
  Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => work(i)));

/** Each rejection: a cancelled transaction whose only failed items are the app's shared items, called retryable. */
function expectConflictsOnSharedItems(rejected: unknown[], appId: string) {
  for (const error of rejected) {
    expect((error as Error).name).toBe('TransactionCanceledException');
    expect(isDataStoreUnavailable(error)).toBe(true); // the API answers 503 SERVICE_UNAVAILABLE, Retry-After: 1
    expect(new Set(cancellationReasonsOf(error))).toEqual(new Set(['None', 'TransactionConflict']));
  }
  const conflicted = proxy.operations().filter((o) => o.outcome === 'conflict');
  expect(conflicted).toHaveLength(rejected.length);
  const [written] = proxy.operations().filter((o) => o.outcome === 'written');
  const units = (items: { writeUnits: number }[]) => items.reduce((sum, i) => sum + i.writeUnits, 0);
  const counters = written!.items.filter((i) => i.key.pk === `COUNT#${appId}`);
  console.info(
    `one change: ${written!.items.length} items, ${units(written!.items)} write units;`,
    `${counters.length} list counters, ${units(counters)} write units`,
  );
  const shared = new Set(conflicted.flatMap((o) => o.items.map((i) => i.key.pk)));
  expect(shared.has(`COUNT#${appId}`)).toBe(true);
}

describe(`${CONCURRENT} subscriptions of one app created at the same moment`, () => {
  it('with a 15 ms transaction time: the first commits, the overlapping ones fail as 503s, nothing retries them', async () => {
    const { appId } = await createTestApp();
    proxy.reset();

    const results = await settle((i) =>
      createSubscription(appId, {
        user_id: `user-${i}`,
        product_id: 'premium_monthly',
        platform: 'ios',
        auto_renew: true,
        trial_period: false,
      }),
    );

    const created = results.filter((r) => r.status === 'fulfilled').length;
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    console.info(
      `one-app contention: ${created} of ${CONCURRENT} concurrent creations committed, ${rejected.length} cancelled;`,
      `transactions sent: ${proxy.operations().filter((o) => o.operation === 'TransactWriteItems').length}`,
    );
    expect(created).toBeGreaterThanOrEqual(1);
    expect(created + rejected.length).toBe(CONCURRENT);
    expectConflictsOnSharedItems(rejected, appId);
    // Each creation's transaction was sent once: neither the SDK nor lib/ retried a cancelled one.
    expect(proxy.operations().filter((o) => o.operation === 'TransactWriteItems')).toHaveLength(CONCURRENT);
    // The counters stay exact: a cancelled transaction wrote nothing.
    expect(await countMatching(appId, {})).toBe(created);
  });

  it('one after another, the same creations all commit', async () => {
    const { appId } = await createTestApp();
    for (let i = 0; i < CONCURRENT; i++) {
      await createSubscription(appId, {
        user_id: `user-${i}`,
        product_id: 'premium_monthly',
        platform: 'ios',
        auto_renew: true,
        trial_period: false,
      });
    }
    expect(await countMatching(appId, {})).toBe(CONCURRENT);
  });
});

describe(`${CONCURRENT} different subscriptions of one app cancelled at the same moment`, () => {
  it('conflict on the list counters too; the version-conflict retry of commitChange does not apply', async () => {
    const { appId } = await createTestApp();
    const subscriptions: { id: string }[] = [];
    for (let i = 0; i < CONCURRENT; i++) subscriptions.push(await seedSubscription(appId, { user_id: `user-${i}` }));
    proxy.reset();

    const results = await settle((i) => updateSubscription(appId, subscriptions[i]!.id, { status: 'cancelled' }));

    const changed = results.filter((r) => r.status === 'fulfilled').length;
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    console.info(`one-app contention: ${changed} of ${CONCURRENT} concurrent cancellations committed`);
    expect(changed).toBeGreaterThanOrEqual(1);
    expectConflictsOnSharedItems(rejected, appId);
    expect(await countMatching(appId, { status: 'cancelled' })).toBe(changed);
  });
});
