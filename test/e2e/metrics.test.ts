/**
 * GET /v1/subscriptions/metrics over HTTP, after purchases, a trial, a conversion, a renewal and a
 * refund made through the API as an app server makes them: exact figures, and the same count of
 * new subscriptions as the revenue endpoint's.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { runFromNoonOf } from '../support/clock.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';

const { request } = useGateway();
const today = new Date().toISOString().slice(0, 10);
// The counters are per day: the file's clock runs from noon of its first day.
beforeAll(() => runFromNoonOf(today));
afterAll(() => {
  vi.useRealTimers();
});

async function buy(
  app: TestApp,
  user: string,
  product: typeof PREMIUM_MONTHLY,
  options: { trial?: boolean; renews?: string; expiresIn?: number } = {},
) {
  const minted = await mintReceipt(app, { ...options, product });
  const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
    bearer: app.secretKey,
    body: { platform: 'ios', receipt_data: minted.receipt_data, user_id: user },
  });
  expect(res.status).toBe(200);
  return { ...minted, subscriptionId: res.body.data.subscription_id as string };
}

describe('GET /v1/subscriptions/metrics', () => {
  let app: TestApp;
  const metrics = (query: Record<string, string>, bearer?: string) =>
    request('GET', `${SUBSCRIPTIONS_BASE}/metrics`, { bearer: bearer ?? app.secretKey, query });

  beforeAll(async () => {
    app = await createTestApp();
    const ratesFile = join(await mkdtemp(join(tmpdir(), 'fx-')), 'rates.json');
    await writeFile(ratesFile, JSON.stringify([{ date: today, from: 'EUR', to: 'USD', rate: 1.1 }]));
    await admin('fx', 'put', '--file', ratesFile, '--json');

    const a = await buy(app, 'buyer-a', PREMIUM_MONTHLY, { expiresIn: 86_400 }); // paying: 9.99 a month
    await buy(app, 'buyer-a', PREMIUM_MONTHLY, { renews: a.transaction_id, expiresIn: 31 * 86_400 }); // a renewal: no change
    await buy(app, 'buyer-b', PRO_YEARLY); // 59.99 EUR a year: 4.999167 EUR a month
    const c = await buy(app, 'trial-c', PREMIUM_MONTHLY, { trial: true, expiresIn: 7 * 86_400 });
    await buy(app, 'trial-c', PREMIUM_MONTHLY, { renews: c.transaction_id, expiresIn: 37 * 86_400 }); // converts
    await buy(app, 'trial-e', PREMIUM_MONTHLY, { trial: true, expiresIn: 7 * 86_400 }); // still in trial
    const d = await buy(app, 'refunded-d', PREMIUM_MONTHLY);
    const refund = await request('POST', `${SUBSCRIPTIONS_BASE}/${d.subscriptionId}/cancel`, {
      bearer: app.secretKey,
      body: { immediate: true, refund: true },
    });
    expect(refund.status).toBe(200);
  }, 120_000);

  it("answers today's figures exactly: MRR in the reporting currency, levels, and the day's flows", async () => {
    const res = await metrics({ start_date: today, end_date: today });
    expect(res.status).toBe(200);
    const flows = {
      // a, b, d bought without trial; c's trial converted.
      new_subscriptions: 4,
      churned: 1,
      trial_conversions: 1,
      trials_ended: 1,
      trial_conversion_rate: 100,
      refunds: 1,
    };
    expect(res.body.data).toEqual({
      currency: 'USD',
      period: { start: today, end: today },
      breakdown: [
        {
          date: today,
          // a 9.99 + c 9.99 + b 4.999167 EUR x 1.1 = 25.479083
          mrr: 25.48,
          active_subscriptions: 3,
          active_trials: 1,
          ...flows,
          unconverted_mrr: [],
        },
      ],
      totals: flows,
    });
    // The same definition of a new subscription as the revenue endpoint's.
    const revenue = await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, {
      bearer: app.secretKey,
      query: { start_date: today, end_date: today },
    });
    expect(revenue.body.data.breakdown[0].new_subscriptions).toBe(flows.new_subscriptions);
  });

  it('groups by month: the bucket clipped to the period, nothing before today', async () => {
    const start = new Date(Date.parse(`${today}T00:00:00Z`) - 40 * 86_400_000).toISOString().slice(0, 10);
    const res = await metrics({ start_date: start, end_date: today, group_by: 'month' });
    const { breakdown } = res.body.data;
    expect(breakdown[0].date).toBe(start);
    expect(breakdown.length).toBeGreaterThan(1);
    expect(breakdown[0]).toMatchObject({ mrr: 0, active_subscriptions: 0, active_trials: 0, new_subscriptions: 0 });
    expect(breakdown.at(-1)).toMatchObject({ mrr: 25.48, active_subscriptions: 3, active_trials: 1 });
  });

  it.each([
    [{ end_date: today }, 'start_date'],
    [{ start_date: today }, 'end_date'],
    [{ start_date: '2026-02-30', end_date: today }, 'start_date'],
    [{ start_date: today, end_date: '2020-01-01' }, 'start_date'],
    [{ start_date: '2020-01-01', end_date: '2023-06-01' }, 'end_date'],
    [{ start_date: today, end_date: today, group_by: 'year' }, 'group_by'],
    [{ start_date: today, end_date: today, product_id: 'premium_monthly' }, 'product_id'],
  ])('%o is a 400 naming %s', async (query, field) => {
    const res = await metrics(query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(JSON.stringify(res.body.error)).toContain(field);
  });

  it('needs the secret key: none is 401, the sdk key is 401', async () => {
    const none = await request('GET', `${SUBSCRIPTIONS_BASE}/metrics`, {
      query: { start_date: today, end_date: today },
    });
    expect(none.status).toBe(401);
    const sdk = await metrics({ start_date: today, end_date: today }, app.sdkKey);
    expect(sdk.status).toBe(401);
    expect(sdk.body.error.code).toBe('INVALID_API_KEY');
  });
});
