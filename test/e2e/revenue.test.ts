import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/data/apps.js';
import { putProducts } from '../../lib/data/products.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { runFromNoonOf } from '../support/clock.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();
const today = new Date().toISOString().slice(0, 10);
// The counters are per day: the file's clock runs from noon of its first day, so a run crossing
// UTC midnight still reads, as today's, the day its purchases were written on.
beforeAll(() => runFromNoonOf(today));
afterAll(() => {
  vi.useRealTimers();
});
const daysFrom = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

async function buy(
  app: TestApp,
  user: string,
  product: typeof PREMIUM_MONTHLY,
  options: { trial?: boolean; renews?: string; expiresIn?: number; revokes?: string } = {},
) {
  const minted = await mintReceipt(app, { ...options, product });
  const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
    bearer: app.secretKey,
    body: { platform: 'ios', receipt_data: minted.receipt_data, user_id: user },
  });
  expect(res.status).toBe(options.revokes ? 400 : 200);
  return { ...minted, subscriptionId: res.body.data?.subscription_id as string, error: res.body.error };
}

describe('GET /v1/subscriptions/revenue (write-time counters)', () => {
  let app: TestApp;
  const revenue = (query: Record<string, string>, target = app) =>
    request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, { bearer: target.secretKey, query });

  beforeAll(async () => {
    app = await createTestApp();
    const ratesFile = join(await mkdtemp(join(tmpdir(), 'fx-')), 'rates.json');
    await writeFile(ratesFile, JSON.stringify([{ date: today, from: 'EUR', to: 'USD', rate: 1.1 }]));
    expect(JSON.parse((await admin('fx', 'put', '--file', ratesFile, '--json')).stdout)).toEqual({ rates: 1 });

    const a = await buy(app, 'buyer-a', PREMIUM_MONTHLY, { expiresIn: 86_400 }); // new: 9.99 USD
    await buy(app, 'buyer-b', PRO_YEARLY); // new: 59.99 EUR = 65.989 USD
    const c = await buy(app, 'trial-c', PREMIUM_MONTHLY, { trial: true, expiresIn: 7 * 86_400 }); // trial: nothing yet
    await buy(app, 'trial-c', PREMIUM_MONTHLY, { renews: c.transaction_id, expiresIn: 37 * 86_400 }); // converts: new, 9.99
    await buy(app, 'buyer-a', PREMIUM_MONTHLY, { renews: a.transaction_id, expiresIn: 31 * 86_400 }); // renewal: 9.99
    const d = await buy(app, 'refunded-d', PREMIUM_MONTHLY); // new: 9.99 ...
    const refund = await request('POST', `${SUBSCRIPTIONS_BASE}/${d.subscriptionId}/cancel`, {
      bearer: app.secretKey,
      body: { immediate: true, refund: true },
    });
    expect(refund.status).toBe(200); // ... refunded: -9.99
    // Verifying a purchase again records nothing twice.
    await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: a.receipt_data, user_id: 'buyer-a' },
    });
  }, 120_000);

  it('sums purchases, trial conversions, renewals and refunds exactly, in the reporting currency', async () => {
    const res = await revenue({ start_date: today, end_date: today });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      total_revenue: 95.96,
      currency: 'USD',
      period: { start: today, end: today },
      breakdown: [{ date: today, revenue: 95.96, subscriptions: 3, new_subscriptions: 4, renewals: 1 }],
      products: [
        { product_id: 'pro_yearly', revenue: 65.99, percentage: 68.77 },
        { product_id: 'premium_monthly', revenue: 29.97, percentage: 31.23 },
      ],
      unconverted: [],
    });
  });

  it('filters by product; an unknown product is 404 PRODUCT_NOT_FOUND', async () => {
    const premium = await revenue({ start_date: today, end_date: today, product_id: 'premium_monthly' });
    expect(premium.body.data).toMatchObject({
      total_revenue: 29.97,
      products: [{ product_id: 'premium_monthly', revenue: 29.97, percentage: 100 }],
    });
    expect(premium.body.data.breakdown[0]).toMatchObject({ subscriptions: 2, new_subscriptions: 3, renewals: 1 });
    const unknown = await revenue({ start_date: today, end_date: today, product_id: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('groups by week and month with buckets clipped to the period; the breakdown sums to the total', async () => {
    for (const group_by of ['day', 'week', 'month']) {
      const res = await revenue({ start_date: daysFrom(today, -40), end_date: today, group_by });
      const { breakdown, total_revenue } = res.body.data;
      expect(breakdown[0].date).toBe(daysFrom(today, -40));
      const sum = breakdown.reduce((acc: number, b: { revenue: number }) => acc + b.revenue, 0);
      expect(Math.abs(sum - total_revenue)).toBeLessThan(0.005);
      // Before today nothing was active yet; at the end of today, three subscriptions are.
      expect(breakdown.at(-1).subscriptions).toBe(3);
      // 41 days make at least two buckets of any size.
      expect(breakdown.length).toBeGreaterThan(1);
      expect(breakdown.at(-2).subscriptions).toBe(0);
    }
  });

  it('amounts without an exchange rate are reported apart, not dropped', async () => {
    // An app reporting in CHF, for which no rate was supplied.
    const created = await createApp({ name: 'swiss', reportingCurrency: 'CHF', testStore: true });
    await putProducts(created.app.app_id, [PREMIUM_MONTHLY, PRO_YEARLY]);
    const swiss: TestApp = { appId: created.app.app_id, secretKey: created.secretKey.key, sdkKey: created.sdkKey.key };
    await buy(swiss, 'eur-buyer', PRO_YEARLY);
    await buy(swiss, 'usd-buyer', PREMIUM_MONTHLY);
    const res = await revenue({ start_date: today, end_date: today }, swiss);
    expect(res.body.data).toMatchObject({ total_revenue: 0, currency: 'CHF', products: [] });
    expect(res.body.data.unconverted).toEqual(
      expect.arrayContaining([
        { currency: 'EUR', amount: 59.99 },
        { currency: 'USD', amount: 9.99 },
      ]),
    );
    expect(res.body.data.breakdown[0]).toMatchObject({ subscriptions: 2, new_subscriptions: 2 });
  });

  it.each([
    [{ end_date: today }, 'start_date'],
    [{ start_date: today }, 'end_date'],
    [{ start_date: '2026-02-30', end_date: today }, 'start_date'],
    [{ start_date: today, end_date: daysFrom(today, -1) }, 'start_date'],
    [{ start_date: '2020-01-01', end_date: '2023-06-01' }, 'end_date'],
    [{ start_date: today, end_date: today, group_by: 'year' }, 'group_by'],
  ])('%o is a 400 naming %s', async (query, field) => {
    const res = await revenue(query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details[0].path).toBe(`query.${field}`);
  });

  it('a refund by the store (a revoked transaction) cancels the subscription and takes the money back', async () => {
    const own = await createTestApp();
    const bought = await buy(own, 'refunded-by-store', PREMIUM_MONTHLY);
    expect((await revenue({ start_date: today, end_date: today }, own)).body.data.total_revenue).toBe(9.99);
    const revoked = await buy(own, 'refunded-by-store', PREMIUM_MONTHLY, { revokes: bought.transaction_id });
    expect(revoked.error).toMatchObject({ code: 'INVALID_RECEIPT', message: expect.stringContaining('revoked') });
    const detail = await request('GET', `${SUBSCRIPTIONS_BASE}/${bought.subscriptionId}`, { bearer: own.secretKey });
    expect(detail.body.data).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'refunded_by_store',
      refunded_at: expect.any(String),
    });
    expect((await revenue({ start_date: today, end_date: today }, own)).body.data).toMatchObject({
      total_revenue: 0,
      breakdown: [{ subscriptions: 0, new_subscriptions: 1 }],
    });
  });

  it("one app's revenue is invisible to another", async () => {
    const stranger = await createTestApp();
    expect((await revenue({ start_date: today, end_date: today }, stranger)).body.data).toMatchObject({
      total_revenue: 0,
      products: [],
      breakdown: [{ subscriptions: 0, new_subscriptions: 0 }],
    });
  });
});
