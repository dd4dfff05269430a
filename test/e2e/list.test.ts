import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import { listCountCell } from '../../lib/data/table-keys.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { paginationSchema, subscriptionListItem } from '../../lib/schemas/subscription.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { request } = useGateway();

interface Seeded {
  id: string;
  user_id: string;
  product_id: string;
  platform: string;
  status: string;
  created_at: string;
}

/** 25 subscriptions: 3 users, 2 products, 3 platforms; every 3rd one activated, every 5th one cancelled. */
async function seed(app: TestApp): Promise<Seeded[]> {
  const seeded: Seeded[] = [];
  const products = ['premium_monthly', 'pro_yearly'];
  const platforms = ['ios', 'android', 'web'];
  for (let i = 0; i < 25; i++) {
    const product_id = products[i % 2]!;
    const platform = product_id === 'pro_yearly' && i % 3 === 2 ? 'ios' : platforms[i % 3]!;
    const body = { user_id: `user-${i % 3}`, product_id, platform };
    const created = await request('POST', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, body });
    expect(created.status).toBe(201);
    let status = 'pending_verification';
    if (i % 5 === 0) status = 'cancelled';
    else if (i % 3 === 0) status = 'active';
    if (status !== 'pending_verification') {
      const updated = await request('PUT', `${SUBSCRIPTIONS_BASE}/${created.body.data.id}`, {
        bearer: app.secretKey,
        body: { status },
      });
      expect(updated.status).toBe(200);
    }
    seeded.push({ ...body, id: created.body.data.id, status, created_at: created.body.data.created_at });
  }
  // Newest first: created_at descending, ties by id descending (the index sort key).
  return seeded.sort((a, b) =>
    a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at),
  );
}

describe('GET /v1/subscriptions', () => {
  let app: TestApp;
  let all: Seeded[];
  const list = (query: Record<string, string | number> = {}, bearer = app.secretKey) =>
    request('GET', SUBSCRIPTIONS_BASE, { bearer, query });

  beforeAll(async () => {
    app = await createTestApp();
    all = await seed(app);
  }, 120_000);

  it('25 items at limit 10 make 3 pages, the last with 5 items, newest first', async () => {
    const pages = [await list({ limit: 10 }), await list({ limit: 10, page: 2 }), await list({ limit: 10, page: 3 })];
    expect(pages.map((p) => p.body.data.length)).toEqual([10, 10, 5]);
    for (const [i, p] of pages.entries()) {
      expect(paginationSchema.parse(p.body.pagination)).toMatchObject({ page: i + 1, limit: 10, total: 25, pages: 3 });
      for (const item of p.body.data) subscriptionListItem.parse(item);
    }
    expect(pages.flatMap((p) => p.body.data.map((s: Seeded) => s.id))).toEqual(all.map((s) => s.id));
  });

  it('defaults to page 1 and limit 20', async () => {
    const res = await list();
    expect(res.body.pagination).toMatchObject({ page: 1, limit: 20, total: 25, pages: 2 });
    expect(res.body.data).toHaveLength(20);
  });

  it('a page past the last is empty, with correct totals', async () => {
    const res = await list({ limit: 10, page: 4 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toMatchObject({ page: 4, total: 25, pages: 3, next_cursor: null });
  });

  it('following next_cursor visits every item once, in the same order as page numbers', async () => {
    const ids: string[] = [];
    let res = await list({ limit: 10 });
    const pageNumbers: number[] = [];
    for (;;) {
      ids.push(...res.body.data.map((s: Seeded) => s.id));
      pageNumbers.push(res.body.pagination.page);
      if (!res.body.pagination.next_cursor) break;
      res = await list({ limit: 10, cursor: res.body.pagination.next_cursor });
    }
    expect(ids).toEqual(all.map((s) => s.id));
    expect(pageNumbers).toEqual([1, 2, 3]);
  });

  it('a cursor used with other filters or page size is a 400', async () => {
    const cursor = (await list({ limit: 10 })).body.pagination.next_cursor;
    expect((await list({ limit: 10, cursor, status: 'active' })).status).toBe(400);
    expect((await list({ limit: 5, cursor })).status).toBe(400);
    expect((await list({ limit: 10, cursor, page: 3 })).status).toBe(400);
    expect((await list({ limit: 10, cursor: 'bm90IGEgY3Vyc29y' })).status).toBe(400);
  });

  const filterCases: [string, Record<string, string>, (s: Seeded) => boolean][] = [
    ['user_id', { user_id: 'user-1' }, (s) => s.user_id === 'user-1'],
    ['status=active', { status: 'active' }, (s) => s.status === 'active'],
    ['status=cancelled', { status: 'cancelled' }, (s) => s.status === 'cancelled'],
    [
      'status=pending (alias of pending_verification)',
      { status: 'pending' },
      (s) => s.status === 'pending_verification',
    ],
    ['status=expired (none)', { status: 'expired' }, () => false],
    ['product_id', { product_id: 'pro_yearly' }, (s) => s.product_id === 'pro_yearly'],
    ['platform', { platform: 'android' }, (s) => s.platform === 'android'],
    [
      'status + platform',
      { status: 'pending', platform: 'ios' },
      (s) => s.status === 'pending_verification' && s.platform === 'ios',
    ],
    [
      'product + platform',
      { product_id: 'premium_monthly', platform: 'web' },
      (s) => s.product_id === 'premium_monthly' && s.platform === 'web',
    ],
    [
      'status + product + platform',
      { status: 'cancelled', product_id: 'premium_monthly', platform: 'ios' },
      (s) => s.status === 'cancelled' && s.product_id === 'premium_monthly' && s.platform === 'ios',
    ],
    ['user + status', { user_id: 'user-0', status: 'active' }, (s) => s.user_id === 'user-0' && s.status === 'active'],
    [
      'user + product + platform',
      { user_id: 'user-2', product_id: 'pro_yearly', platform: 'ios' },
      (s) => s.user_id === 'user-2' && s.product_id === 'pro_yearly' && s.platform === 'ios',
    ],
  ];

  it.each(filterCases)(
    'filter %s returns exactly the matching items with the right total',
    async (_name, query, predicate) => {
      const expected = all.filter(predicate).map((s) => s.id);
      const res = await list({ ...query, limit: 100 });
      expect(res.status).toBe(200);
      expect(res.body.data.map((s: Seeded) => s.id)).toEqual(expected);
      expect(res.body.pagination).toMatchObject({ total: expected.length, pages: Math.ceil(expected.length / 100) });
    },
  );

  it('a filtered list pages correctly too (user filter, limit 3)', async () => {
    const expected = all.filter((s) => s.user_id === 'user-1').map((s) => s.id);
    const first = await list({ user_id: 'user-1', limit: 3 });
    const second = await list({ user_id: 'user-1', limit: 3, cursor: first.body.pagination.next_cursor });
    const third = await list({ user_id: 'user-1', limit: 3, page: 3 });
    expect([...first.body.data, ...second.body.data, ...third.body.data].map((s: Seeded) => s.id)).toEqual(
      expected.slice(0, 9),
    );
    expect(first.body.pagination).toMatchObject({ total: expected.length, pages: Math.ceil(expected.length / 3) });
  });

  it.each([
    [{ limit: 101 }, 'query.limit', 'limit must be at most 100'],
    [{ limit: 0 }, 'query.limit', 'limit must be at least 1'],
    [{ page: 0 }, 'query.page', 'page must be at least 1'],
    [{ page: 'two' }, 'query.page', 'page must be a positive integer'],
    [{ limit: '1.5' }, 'query.limit', 'limit must be a positive integer'],
    [{ status: 'archived' }, 'query.status', ''],
    [{ platform: 'windows' }, 'query.platform', ''],
    [{ sort: 'asc' }, 'query', 'sort'],
  ])('%o is a 400 with a clear message', async (query, path, message) => {
    const res = await list(query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details[0].path).toBe(path);
    expect(res.body.error.details[0].message).toContain(message);
  });

  it('a repeated query parameter is a 400', async () => {
    const res = await request('GET', `${SUBSCRIPTIONS_BASE}?status=active&status=expired`, { bearer: app.secretKey });
    expect(res.status).toBe(400);
  });

  it.each(['__proto__=x', 'constructor=1&constructor=2', 'toString=y'])(
    'a query parameter named like an Object property (%s) is a 400 naming it, not a 500',
    async (query) => {
      const res = await request('GET', `${SUBSCRIPTIONS_BASE}?${query}`, { bearer: app.secretKey });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'INVALID_PARAMETER',
        message: expect.stringContaining(query.split('=')[0]!),
      });
    },
  );

  it("another app sees none of this app's subscriptions, with any filter", async () => {
    const other = await createTestApp();
    for (const query of [
      {},
      { user_id: 'user-1' },
      { status: 'active' },
      { product_id: 'premium_monthly', platform: 'ios' },
    ] as Record<string, string>[]) {
      const res = await list(query, other.secretKey);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.pagination.total).toBe(0);
    }
  });
});

/**
 * The totals come from counters the aggregator keeps from the table's stream, so they trail the
 * writes. Here they are made to trail on purpose: the counters are settled, then set back to what
 * they said before the last writes were counted (as a slow stream leaves them).
 */
describe('GET /v1/subscriptions while the list counters trail the writes', () => {
  let app: TestApp;
  const CREATED = 28;
  const list = (query: Record<string, string | number> = {}) =>
    request('GET', SUBSCRIPTIONS_BASE, { bearer: app.secretKey, query });
  /** The counter of the unfiltered list (and of status=pending_verification), as a trailing stream leaves it. */
  const countTrailsAt = (count: number) =>
    Promise.all(
      [{}, { status: 'pending_verification' as const }].map((filters) => {
        const cell = listCountCell(app.appId, filters);
        return ddb.send(
          new UpdateCommand({
            TableName: tableName,
            Key: cell.key,
            UpdateExpression: 'SET #count = :count',
            ExpressionAttributeNames: { '#count': cell.attribute },
            ExpressionAttributeValues: { ':count': count },
          }),
        );
      }),
    );

  beforeAll(async () => {
    app = await createTestApp();
    for (let i = 0; i < CREATED; i++) {
      const created = await request('POST', SUBSCRIPTIONS_BASE, {
        bearer: app.secretKey,
        body: { user_id: `trail-user-${i}`, product_id: 'premium_monthly', platform: 'ios' },
      });
      expect(created.status).toBe(201);
    }
    // Settled once (the gateway settles before a list): every creation is counted, and counted once.
    expect((await list()).body.pagination.total).toBe(CREATED);
  }, 120_000);

  it.each([
    [{ limit: 50 }, 26, CREATED, { total: CREATED, pages: 1, next: false }],
    [{ limit: 50, status: 'pending_verification' }, 26, CREATED, { total: CREATED, pages: 1, next: false }],
    // A full page with more after it: at least one more item, so a next page to follow.
    [{ limit: 10 }, 0, 10, { total: 11, pages: 2, next: true }],
    [{ limit: 10, page: 3 }, 26, 8, { total: CREATED, pages: 3, next: false }],
    // Counted more than the page proves: as counted.
    [{ limit: 10, page: 3 }, 30, 8, { total: 30, pages: 3, next: false }],
  ] as const)('%o counted %i: %i items, and a total no page contradicts', async (query, counted, items, want) => {
    await countTrailsAt(counted);
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(items);
    expect(res.body.pagination).toMatchObject({ total: want.total, pages: want.pages });
    expect(res.body.pagination.next_cursor !== null).toBe(want.next);
  });

  it('following next_cursor from a page whose count trails reaches every item', async () => {
    await countTrailsAt(0);
    const ids = new Set<string>();
    let res = await list({ limit: 10 });
    for (;;) {
      for (const item of res.body.data as { id: string }[]) ids.add(item.id);
      expect(res.body.pagination.total).toBeGreaterThanOrEqual(ids.size);
      if (!res.body.pagination.next_cursor) break;
      res = await list({ limit: 10, cursor: res.body.pagination.next_cursor });
    }
    expect(ids.size).toBe(CREATED);
  });
});
