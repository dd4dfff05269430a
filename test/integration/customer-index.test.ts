/**
 * The customers index against DynamoDB Local (lib/data/customer-index.ts, customer-reindex.ts):
 * which items carry its keys, how a read of it runs from a prefix or after a user id, and the
 * reindex of profiles an earlier version wrote. Its own table, so the counts are this file's items.
 * test/e2e/customer-search.test.ts runs GET /v1/customers over HTTP; cli-commands.test.ts the command.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `customer-index-${process.pid}`;
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { readCustomerEntries } from '../../lib/data/customer-index.js';
import { reindexCustomers } from '../../lib/data/customer-reindex.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import * as keys from '../../lib/data/entity-keys.js';
import { mergeProfileMaps } from '../../lib/data/profiles.js';
import { eraseCustomer } from '../../lib/services/erasure.js';
import { grantEntitlement } from '../../lib/services/grants.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

const from = (prefix: string, after?: string) => ({ prefix, after });

describe('the customers index', () => {
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    ({ appId } = await createTestApp([]));
    await putEntitlements(appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  });

  it('holds an entry per profile, per subscription and per granted user, each under the user id', async () => {
    await mergeProfileMaps(appId, 'ix-profile', (maps) => maps, new Date());
    await seedSubscription(appId, { user_id: 'ix-subscriber' });
    await seedSubscription(appId, { user_id: 'ix-subscriber' });
    await grantEntitlement(appId, 'ix-granted', 'pro', { duration: 'P1M' });
    expect(await readCustomerEntries(appId, from('ix-'), 100)).toEqual({
      userIds: ['ix-granted', 'ix-profile', 'ix-subscriber', 'ix-subscriber'],
      more: false,
    });
    // A profile is filed by its app_id and the user index's key, without the listing key that would put it in a subscription index.
    const profile = await getConsistent(keys.userProfile(appId, 'ix-profile'));
    expect(profile).toMatchObject({ app_id: appId, user_pk: `${appId}#ix-profile` });
    expect(profile).not.toHaveProperty('list_sk');
  });

  it('reads from a prefix, or after a user id (past the prefix too), up to a limit, saying whether more follow', async () => {
    for (const user_id of ['rd-a', 'rd-b', 'rd-c', 're-a']) await seedSubscription(appId, { user_id });
    expect(await readCustomerEntries(appId, from('rd-'), 2)).toEqual({ userIds: ['rd-a', 'rd-b'], more: true });
    expect(await readCustomerEntries(appId, from('rd-', 'rd-b'), 2)).toEqual({ userIds: ['rd-c', 're-a'], more: true });
    expect(await readCustomerEntries(appId, from('rd-'), 10)).toEqual({
      userIds: ['rd-a', 'rd-b', 'rd-c'],
      more: false,
    });
    // No prefix: the app's whole partition, in order.
    const everyone = await readCustomerEntries(appId, from(''), 100);
    expect(everyone.userIds).toEqual([...everyone.userIds].sort());
    expect(everyone.userIds).toEqual(expect.arrayContaining(['ix-profile', 'rd-a', 're-a']));
    // Another app's partition holds none of them.
    const other = await createTestApp([]);
    expect(await readCustomerEntries(other.appId, from(''), 100)).toEqual({ userIds: [], more: false });
  });

  it('leaves the index when the user is erased: the profile is deleted, the kept subscription filed under the anonymous id', async () => {
    const kept = await seedSubscription(appId, { user_id: 'er-leaving' });
    await mergeProfileMaps(appId, 'er-leaving', (maps) => maps, new Date());
    expect((await readCustomerEntries(appId, from('er-'), 10)).userIds).toEqual(['er-leaving', 'er-leaving']);
    expect((await eraseCustomer(appId, 'er-leaving')).status).toBe('erased');
    expect((await readCustomerEntries(appId, from('er-'), 10)).userIds).toEqual([]);
    const anonymised = await getConsistent(keys.subscription(appId, kept.id));
    expect(anonymised?.user_id).toMatch(/^erased_[0-9a-f]{24}$/);
    // Its entry names the anonymous id (the search leaves those out: lib/domain/customer-search.ts).
    expect((await readCustomerEntries(appId, from(anonymised?.user_id as string), 10)).userIds).toEqual([
      anonymised?.user_id,
    ]);
  });

  it('files the longest user id the API takes, 1,000 bytes of UTF-8', async () => {
    const longest = `lg-${'é'.repeat(498)}`; // 3 + 996 bytes
    await seedSubscription(appId, { user_id: longest });
    await mergeProfileMaps(appId, longest, (maps) => maps, new Date());
    expect((await readCustomerEntries(appId, from('lg-'), 10)).userIds).toEqual([longest, longest]);
  });

  it('reindex files the profiles an earlier version wrote, once', async () => {
    const legacy = (userId: string, fields = { app_id: appId, user_id: userId }) =>
      ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.userProfile(appId, userId),
            type: 'user_profile',
            ...fields,
            first_seen: '2026-01-01T00:00:00.000Z',
          },
        }),
      );
    await legacy('old-1');
    await legacy('old#2');
    // The oldest profiles held their owner in the key alone.
    await legacy('old#3#x', {} as { app_id: string; user_id: string });
    expect((await readCustomerEntries(appId, from('old'), 10)).userIds).toEqual([]);
    const progress: unknown[] = [];
    expect(await reindexCustomers((sofar) => progress.push({ ...sofar }))).toEqual({ examined: 3, indexed: 3 });
    expect(progress.at(-1)).toEqual({ examined: 3, indexed: 3 });
    expect((await readCustomerEntries(appId, from('old'), 10)).userIds).toEqual(['old#2', 'old#3#x', 'old-1']);
    expect(await reindexCustomers()).toEqual({ examined: 0, indexed: 0 });
  });
});
