/**
 * The app directory behind `admin apps list`: one entry per app, written in the transaction that
 * creates the app, listed with each app's current settings and never its secrets; and the scan that
 * adds the apps of a table written before the directory existed. Its own table, emptied before each
 * test, so the directory and the scan see this file's items only.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `app-directory-${process.pid}`;
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { setUserTokenRequired } from '../../lib/data/api-keys.js';
import { addAppsToDirectory, createApp, listApps, setRestorePolicy, setTestStore } from '../../lib/data/apps.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { interceptCommands, stopIntercepting } from '../support/ddb-intercept.js';
import { createOwnTable, emptyOwnTable } from '../support/own-table.js';

/** An app item as a version without the directory wrote it: no entry beside it. */
async function putAppWithoutEntry(appId: string, name: string, createdAt: string): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.app(appId),
        type: 'app',
        app_id: appId,
        name,
        reporting_currency: 'EUR',
        test_store: false,
        created_at: createdAt,
      },
    }),
  );
}

beforeEach(async () => {
  stopIntercepting();
  await createOwnTable();
  await emptyOwnTable();
});

describe('the app directory', () => {
  it('an app is listed once created, with its settings as they are now and none of its secrets', async () => {
    expect(await listApps()).toEqual([]);
    const { app } = await createApp({ name: 'Sleep Well', reportingCurrency: 'CHF', testStore: true });
    expect(await getConsistent(keys.appDirectory(app.app_id))).toEqual({
      pk: 'APPS',
      sk: `APP#${app.app_id}`,
      type: 'app_directory',
      app_id: app.app_id,
      name: 'Sleep Well',
      created_at: app.created_at,
    });
    const listed = {
      app_id: app.app_id,
      name: 'Sleep Well',
      reporting_currency: 'CHF',
      test_store: true,
      restore_policy: 'block',
      require_user_token: false,
      support_email: null,
      created_at: app.created_at,
    };
    expect(await listApps()).toEqual([listed]);

    await setRestorePolicy(app.app_id, 'transfer');
    await setUserTokenRequired(app.app_id, true);
    await setTestStore(app.app_id, false);
    // The app item holds the test store's private key and the user-token secret: neither is listed.
    expect(await listApps()).toEqual([
      { ...listed, restore_policy: 'transfer', require_user_token: true, test_store: false },
    ]);
  });

  it('the entry is written in the one transaction that creates the app, on condition that it is new', async () => {
    const sent = interceptCommands();
    const { app } = await createApp({ name: 'atomic', reportingCurrency: 'USD', testStore: false });
    stopIntercepting();
    expect(sent.map(({ command }) => command)).toEqual(['TransactWriteItemsCommand']);
    const puts = (
      sent[0]!.input.TransactItems as { Put: { Item: Record<string, unknown>; ConditionExpression: string } }[]
    )
      .map(({ Put }) => Put)
      .filter(({ Item }) => Item.pk === 'APPS');
    expect(puts).toEqual([
      {
        TableName: tableName,
        Item: {
          ...keys.appDirectory(app.app_id),
          type: 'app_directory',
          app_id: app.app_id,
          name: 'atomic',
          created_at: app.created_at,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    ]);
  });

  it('the directory and the apps are read strongly consistent: an app created a moment ago is listed', async () => {
    const { app } = await createApp({ name: 'just now', reportingCurrency: 'USD', testStore: false });
    const sent = interceptCommands();
    expect((await listApps()).map(({ app_id }) => app_id)).toEqual([app.app_id]);
    stopIntercepting();
    expect(
      sent.map(({ command, input }) => [
        command,
        input.ConsistentRead ?? input.RequestItems?.[tableName]?.ConsistentRead,
      ]),
    ).toEqual([
      ['QueryCommand', true],
      ['BatchGetItemCommand', true],
    ]);
  });

  it('oldest first, and apps created at the same moment by id; an entry without its app is left out', async () => {
    const entry = (appId: string, createdAt: string) =>
      ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.appDirectory(appId),
            type: 'app_directory',
            app_id: appId,
            name: appId,
            created_at: createdAt,
          },
        }),
      );
    const apps: [string, string][] = [
      ['app_00000000000000c3', '2026-03-01T00:00:00.000Z'],
      ['app_00000000000000b2', '2026-01-01T00:00:00.000Z'],
      ['app_00000000000000a1', '2026-03-01T00:00:00.000Z'],
    ];
    for (const [appId, createdAt] of apps) {
      await putAppWithoutEntry(appId, appId, createdAt);
      await entry(appId, createdAt);
    }
    await entry('app_00000000000000d4', '2025-01-01T00:00:00.000Z');
    expect((await listApps()).map((app) => app.app_id)).toEqual([
      'app_00000000000000b2',
      'app_00000000000000a1',
      'app_00000000000000c3',
    ]);
  });
});

describe('adding the apps of an older table to the directory', () => {
  it('finds every app item, page after page, and writes its entry; running it again finds the same', async () => {
    const { app: recent } = await createApp({ name: 'recent', reportingCurrency: 'USD', testStore: false });
    await putAppWithoutEntry('app_0000000000000001', 'older', '2025-01-01T00:00:00.000Z');
    await putAppWithoutEntry('app_0000000000000002', 'oldest', '2024-01-01T00:00:00.000Z');
    expect((await listApps()).map((app) => app.app_id)).toEqual([recent.app_id]);

    // The table holds the three apps, recent's keys, its lookup items and its entry: 8 items.
    const pages: { scanned: number; apps: number }[] = [];
    const sent = interceptCommands();
    const found = await addAppsToDirectory({ onPage: (progress) => pages.push(progress), pageSize: 3 });
    stopIntercepting();
    expect(found).toEqual({ scanned: 8, apps: 3 });
    // Read consistently: an app created a moment before the scan is found.
    const scans = sent.filter(({ command }) => command === 'ScanCommand');
    expect(scans.map(({ input }) => input.ConsistentRead)).toEqual(scans.map(() => true));
    expect(scans.length).toBe(pages.length);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.at(-1)).toEqual(found);
    expect(pages.map((page) => page.scanned)).toEqual([...pages.map((page) => page.scanned)].sort((a, b) => a - b));

    const listed = await listApps();
    expect(listed.map((app) => [app.app_id, app.name])).toEqual([
      ['app_0000000000000002', 'oldest'],
      ['app_0000000000000001', 'older'],
      [recent.app_id, 'recent'],
    ]);
    expect(await getConsistent(keys.appDirectory('app_0000000000000001'))).toEqual({
      pk: 'APPS',
      sk: 'APP#app_0000000000000001',
      type: 'app_directory',
      app_id: 'app_0000000000000001',
      name: 'older',
      created_at: '2025-01-01T00:00:00.000Z',
    });

    // The entries written are items of the table too: the second scan reads them, and finds no new app.
    expect(await addAppsToDirectory()).toEqual({ scanned: 10, apps: 3 });
    expect(await listApps()).toEqual(listed);
  });
});
