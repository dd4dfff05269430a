/**
 * `counts rebuild` in-process (lib/data/count-rebuild.ts): the list counts set to a recount of the
 * stored subscriptions, for one app or every app. Its own table: a rebuild of every app must not
 * touch what other test files count. test/e2e/cli-commands.test.ts runs the command as a process.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `count-rebuild-${process.pid}`;
});

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/data/client.js';
import { type RebuiltCounts, rebuildListCounts } from '../../lib/data/count-rebuild.js';
import { countMatching } from '../../lib/data/subscription-queries.js';
import { listCountCell } from '../../lib/data/table-keys.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { seedSubscription } from '../support/subscriptions.js';

/** Sets count cells of `appId` to these values, as a lost or doubled aggregation would leave them. */
async function spoil(appId: string, cells: Record<string, number>) {
  const { key } = listCountCell(appId, {});
  const names = Object.keys(cells);
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, cells[name]])),
    }),
  );
}

const totals = async (appId: string) => ({
  all: await countMatching(appId, {}),
  active: await countMatching(appId, { status: 'active' }),
  android: await countMatching(appId, { platform: 'android' }),
  expiredIos: await countMatching(appId, { status: 'expired', platform: 'ios' }),
});

describe('rebuildListCounts', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    await createOwnTable();
    [a, b] = [await createTestApp([]), await createTestApp([])];
    await seedSubscription(a.appId, { status: 'active', platform: 'ios' });
    await seedSubscription(a.appId, { status: 'active', platform: 'android' });
    await seedSubscription(a.appId, { status: 'expired', platform: 'ios' });
    await seedSubscription(b.appId, { status: 'active', platform: 'ios' });
    await settleCounters();
  });

  it('sets a count that is off and one for nothing that exists to the recount, and reports the cells it corrected', async () => {
    expect(await totals(a.appId)).toEqual({ all: 3, active: 2, android: 1, expiredIos: 1 });
    const all = listCountCell(a.appId, {}).attribute;
    await spoil(a.appId, { [all]: 999, 'count#paused#web': 5 });
    expect(await countMatching(a.appId, {})).toBe(999);

    const heard: RebuiltCounts[] = [];
    const rebuilt = await rebuildListCounts(a.appId, (done) => heard.push(done));
    expect(rebuilt).toEqual([{ app_id: a.appId, subscriptions: 3, corrected: 2 }]);
    expect(heard).toEqual(rebuilt);
    expect(await totals(a.appId)).toEqual({ all: 3, active: 2, android: 1, expiredIos: 1 });
    expect(await countMatching(a.appId, { status: 'paused', platform: 'web' })).toBe(0);
    expect(await rebuildListCounts(a.appId)).toEqual([{ app_id: a.appId, subscriptions: 3, corrected: 0 }]);
  });

  it('sets to 0 the counts of an app with no subscription left', async () => {
    const empty = await createTestApp([]);
    await spoil(empty.appId, { [listCountCell(empty.appId, {}).attribute]: 4, 'count#active': 4 });
    expect(await rebuildListCounts(empty.appId)).toEqual([{ app_id: empty.appId, subscriptions: 0, corrected: 2 }]);
    expect(await countMatching(empty.appId, {})).toBe(0);
    expect(await countMatching(empty.appId, { status: 'active' })).toBe(0);
    // The spoiled item had no type; the one the rebuild leaves says what it is.
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName, Key: listCountCell(empty.appId, {}).key, ConsistentRead: true }),
    );
    expect(Item?.type).toBe('list_count');
  });

  it('without an app, recounts every app that has subscriptions, each on its own', async () => {
    await spoil(b.appId, { [listCountCell(b.appId, {}).attribute]: 7 });
    const rebuilt = await rebuildListCounts();
    expect(rebuilt).toHaveLength(2);
    expect(rebuilt).toEqual(
      expect.arrayContaining([
        { app_id: a.appId, subscriptions: 3, corrected: 0 },
        { app_id: b.appId, subscriptions: 1, corrected: 1 },
      ]),
    );
    expect(await countMatching(b.appId, {})).toBe(1);
  });
});
