/**
 * GET /v1/customers: an app's customers by user id prefix, over HTTP through the local gateway (the
 * answers are checked against docs/openapi.json by the gateway helper). Customers come in every way
 * a user becomes one: a profile from the SDK, a subscription from the app server, a grant.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { MAX_INDEX_READS } from '../../lib/services/customer-search.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { seedSubscription } from '../support/subscriptions.js';

const { request } = useGateway();

describe('GET /v1/customers', () => {
  let app: TestApp;
  const search = (query: Record<string, string | number> = {}, bearer = app.secretKey) =>
    request('GET', CUSTOMERS_BASE, { bearer, query });
  const ids = (res: { body: { data: { user_id: string }[] } }) => res.body.data.map((c) => c.user_id);
  /** Every page of a search, following next_cursor. */
  async function allPages(query: Record<string, string | number>): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res = await search({ ...query, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(ids(res));
      cursor = res.body.pagination.next_cursor;
    } while (cursor && pages.length < 50);
    return pages;
  }
  const subscribe = async (userId: string, transactionId: string) => {
    const res = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: userId, product_id: 'premium_monthly', platform: 'ios', transaction_id: transactionId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  const seen = async (userId: string) => {
    const res = await request('PUT', '/users/attribute/update', {
      headers: mobileHeaders(app, userId),
      body: { language: 'en' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  beforeAll(async () => {
    app = await createTestApp([PREMIUM_MONTHLY]);
    await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    // alice: a profile and two subscriptions; bob: a subscription only; carol: a grant only; dave: a profile only.
    await seen('cus-alice');
    await subscribe('cus-alice', 'apple_cus_1');
    await subscribe('cus-alice', 'apple_cus_2');
    await subscribe('cus-bob', 'apple_cus_3');
    const granted = await request('POST', `${CUSTOMERS_BASE}/cus-carol/entitlements/pro/grant`, {
      bearer: app.secretKey,
      body: { duration: 'P1M' },
    });
    expect(granted.status).toBe(200);
    await seen('cus-dave');
    await seen('other-erin');
  });

  it('finds every customer whose id starts with the prefix, each once, however they became one', async () => {
    const res = await search({ prefix: 'cus-' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: ['cus-alice', 'cus-bob', 'cus-carol', 'cus-dave'].map((user_id) => ({ user_id })),
      pagination: { limit: 20, next_cursor: null },
    });
    expect(ids(await search({ prefix: 'cus-b' }))).toEqual(['cus-bob']);
    // Case-sensitive, as user ids are.
    expect(ids(await search({ prefix: 'CUS-' }))).toEqual([]);
    expect((await search({ prefix: 'nobody' })).body).toEqual({
      data: [],
      pagination: { limit: 20, next_cursor: null },
    });
    // No prefix (or an empty one): every customer of the app.
    const everyone = ['cus-alice', 'cus-bob', 'cus-carol', 'cus-dave', 'other-erin'];
    expect(ids(await search())).toEqual(everyone);
    expect(ids(await search({ prefix: '' }))).toEqual(everyone);
  });

  it('pages with a cursor: no customer twice, none skipped, no empty last page', async () => {
    expect(await allPages({ prefix: 'cus-', limit: 3 })).toEqual([['cus-alice', 'cus-bob', 'cus-carol'], ['cus-dave']]);
    expect(await allPages({ prefix: 'cus-', limit: 2 })).toEqual([
      ['cus-alice', 'cus-bob'],
      ['cus-carol', 'cus-dave'],
    ]);
    expect(await allPages({ limit: 1 })).toEqual([
      ['cus-alice'],
      ['cus-bob'],
      ['cus-carol'],
      ['cus-dave'],
      ['other-erin'],
    ]);
  });

  it('bounds the reads of one page: customers with many subscriptions make a shorter page, and the cursor goes on', async () => {
    // Six users with 14 subscriptions each: with limit 6 one read of the index (14 entries) holds one user.
    const users = Array.from({ length: 6 }, (_, i) => `many-${i}`);
    for (const user_id of users)
      await Promise.all(Array.from({ length: 14 }, () => seedSubscription(app.appId, { user_id })));
    const pages = await allPages({ prefix: 'many-', limit: 6 });
    expect(pages[0]).toEqual(users.slice(0, MAX_INDEX_READS));
    expect(pages.flat()).toEqual(users);
  });

  it('lists an erased customer no more, nor the anonymous id their subscription is kept under', async () => {
    await subscribe('gone-frank', 'apple_cus_9');
    await seen('gone-frank');
    expect(ids(await search({ prefix: 'gone-' }))).toEqual(['gone-frank']);
    const erased = await request('DELETE', `${CUSTOMERS_BASE}/gone-frank`, { bearer: app.secretKey });
    expect(erased.body.data.status).toBe('erased');
    expect(ids(await search({ prefix: 'gone-' }))).toEqual([]);
    expect(ids(await search({ prefix: 'erased_' }))).toEqual([]);
  });

  it("lists only the key's own app, to its secret key only", async () => {
    const other = await createTestApp([PREMIUM_MONTHLY]);
    expect((await search({ prefix: 'cus-' }, other.secretKey)).body.data).toEqual([]);
    expect((await search({}, app.sdkKey)).status).toBe(401);
    expect((await request('GET', CUSTOMERS_BASE, { headers: mobileHeaders(app, 'cus-alice') })).status).toBe(401);
  });

  it('takes user ids up to 1,000 bytes of UTF-8, so that every customer fits the index, and refuses longer ones', async () => {
    // 250 emoji are 1,000 bytes; 251 are 1,004 (and 256 characters, the limit in characters, would be 1,024).
    await subscribe('😀'.repeat(250), 'apple_cus_long');
    expect(ids(await search({ prefix: '😀😀' }))).toEqual(['😀'.repeat(250)]);
    const tooLong = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: {
        user_id: '😀'.repeat(251),
        product_id: 'premium_monthly',
        platform: 'ios',
        transaction_id: 'apple_cus_longer',
      },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(JSON.stringify(tooLong.body.error)).toContain('must be at most 1000 bytes of UTF-8');
    const grant = await request(
      'POST',
      `${CUSTOMERS_BASE}/${encodeURIComponent('😀'.repeat(251))}/entitlements/pro/grant`,
      {
        bearer: app.secretKey,
        body: { duration: 'P1M' },
      },
    );
    expect(grant.status).toBe(400);
  });

  it('refuses a cursor of another prefix, a cursor it did not issue, and a prefix longer than any user id', async () => {
    const first = await search({ prefix: 'cus-', limit: 1 });
    const cursor = first.body.pagination.next_cursor as string;
    const otherPrefix = await search({ prefix: 'other', cursor });
    expect(otherPrefix.status).toBe(400);
    expect(otherPrefix.body.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'cursor was issued for another prefix',
    });
    for (const forged of ['not-a-cursor', Buffer.from('{"a":"zzz","p":"cus-"}').toString('base64url')]) {
      const res = await search({ prefix: 'cus-', cursor: forged });
      expect(res.status, forged).toBe(400);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
    }
    const long = await search({ prefix: 'x'.repeat(257) });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('INVALID_PARAMETER');
    // 256 characters, but 1,024 bytes: past the index key's size with the app's id (the fuzzer's
    // counterexample, seed 294381009, which DynamoDB refused as a 500).
    const wide = await search({ prefix: '😀'.repeat(256) });
    expect(wide.status).toBe(400);
    expect(wide.body.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: expect.stringContaining('1000 bytes'),
    });
    expect((await search({ prefix: '😀'.repeat(250) })).status).toBe(200);
  });
});
