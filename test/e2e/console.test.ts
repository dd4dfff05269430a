/// <reference lib="dom" />
/**
 * The operator console (issue #17) in real headless Chromium, served by the local gateway at
 * /console as `npm start` serves it, against seeded data: sign in, the overview's figures equal
 * the API's and its charts are drawn, the list filtered, a subscription opened, a customer looked
 * up, the catalogue, sign out; the CSP refuses an injected inline script; the key stays in
 * sessionStorage; a refused key returns to sign-in and a 429 says when to retry; axe-core finds
 * no serious or critical violation on any page. Screenshots go to .test-results/console/, or to
 * docs/images/ with UPDATE_SCREENSHOTS=1 (how the committed ones are made).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
});

import { consoleContentSecurityPolicy } from '../../console/build.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';
import { accessibilityViolations, launchChromium } from '../support/browser.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, PREMIUM_MONTHLY, statusChange, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const { request, url } = useGateway({ console: true });
const SCREENSHOTS = resolve(process.env.UPDATE_SCREENSHOTS ? 'docs/images' : '.test-results/console');
const BROWSER_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver;
const subscriptionIds: string[] = [];
/**
 * A status change whose delivery failed: the receiver answered 500 and asked to be retried in a day,
 * so it stays pending whatever retry job runs meanwhile (the gateway's scheduler, other test files').
 */
let failedEvent: string;

async function buy(user: string, trial = false): Promise<string> {
  const minted = await mintReceipt(app, { product: PREMIUM_MONTHLY, trial });
  const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
    bearer: app.secretKey,
    body: { platform: 'ios', receipt_data: minted.receipt_data, user_id: user },
  });
  expect(res.status).toBe(200);
  return res.body.data.subscription_id as string;
}

async function screenshot(name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `console-${name}.png`);
  const png = await page.screenshot({ path: file, fullPage: true });
  // A PNG of a drawn page, not an empty one.
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(10_000);
}

async function expectAccessible() {
  expect(await accessibilityViolations(page)).toEqual([]);
}

beforeAll(async () => {
  app = await createTestApp();
  for (const user of ['console-user-a', 'console-user-b', 'console-user-c']) subscriptionIds.push(await buy(user));
  const cancelled = await request('POST', `${SUBSCRIPTIONS_BASE}/${subscriptionIds[2]}/cancel`, {
    bearer: app.secretKey,
    body: { immediate: true, reason: 'console test' },
  });
  expect(cancelled.status).toBe(200);
  await buy('console-trial-user', true);
  // The list totals and revenue trail the writes through the stream (the aggregator, here run by the test).
  await settleCounters();
  receiver = await startWebhookReceiver();
  receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);
  receiver.respond = () => ({ status: 500, headers: { 'Retry-After': '86400' } });
  const change = statusChange(app.appId);
  expect((await deliverStatusChange(change)).status).toBe('pending');
  failedEvent = change.event_id;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
}, BROWSER_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

describe('the console in Chromium', () => {
  it('is served with a strict CSP and signs in with the secret key only', { timeout: BROWSER_TIMEOUT }, async () => {
    const response = await page.goto(`${url()}/console/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(consoleContentSecurityPolicy("'self'"));
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await page.getByLabel('App secret key').waitFor();
    await expectAccessible();
    await screenshot('sign-in');

    await page.getByLabel('App secret key').fill(app.sdkKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That key was refused');

    await page.getByLabel('App secret key').fill(app.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The key is in this tab's session only: not in localStorage, a cookie or the URL.
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([app.secretKey]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await context.cookies()).toEqual([]);
    expect(page.url()).not.toContain(app.secretKey);
  });

  it('shows the overview: the API figures and their charts', { timeout: BROWSER_TIMEOUT }, async () => {
    const today = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const query = { start_date: start, end_date: today, group_by: 'day' };
    const revenue = await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, { bearer: app.secretKey, query });
    const metrics = await request('GET', `${SUBSCRIPTIONS_BASE}/metrics`, { bearer: app.secretKey, query });
    // Three purchases at 9.99 USD, one of them since cancelled without a refund; one trial running.
    expect(revenue.body.data.total_revenue).toBeCloseTo(29.97, 2);
    const now = metrics.body.data.breakdown.at(-1);
    expect(now).toMatchObject({ date: today, mrr: 19.98, active_subscriptions: 2, active_trials: 1 });
    expect(metrics.body.data.totals).toMatchObject({ new_subscriptions: 3, churned: 1 });

    // The figures shown are the API's.
    await page.getByTestId('mrr').waitFor();
    const shown = async (testId: string) => page.getByTestId(testId).textContent();
    expect(await shown('mrr')).toBe('$19.98');
    expect(await shown('active-subscriptions')).toBe(String(now.active_subscriptions));
    expect(await shown('active-trials')).toBe(String(now.active_trials));
    expect(await shown('new-subscriptions')).toBe(String(metrics.body.data.totals.new_subscriptions));
    expect(await shown('churned')).toBe(String(metrics.body.data.totals.churned));
    expect(await shown('trial-conversion-rate')).toBe('—'); // no trial has ended yet
    await page.getByTestId('total-revenue').waitFor();
    expect(await shown('total-revenue')).toBe('$29.97');
    // Each chart is a drawn canvas with the numbers in a table beside it.
    for (const chart of ['MRR', 'Active subscriptions and trials', 'New and churned', 'Revenue']) {
      const canvas = page.locator(`[data-testid="chart-${chart}"] canvas`).first();
      expect(await canvas.evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > 0), chart).toBe(true);
    }
    const todayRow = page.getByTestId('breakdown').locator('tr', { hasText: today });
    expect(await todayRow.locator('td').allTextContents()).toEqual([
      today,
      '$19.98',
      '2',
      '1',
      '3',
      '1',
      '—',
      '0',
      '$29.97',
      '0',
    ]);
    expect(await page.getByTestId('revenue-by-product').locator('tbody tr').allTextContents()).toEqual([
      'premium_monthly$29.97 100.0%',
    ]);
    await expectAccessible();
    await screenshot('overview');
  });

  it('filters the list and opens a subscription', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByTestId('subscriptions').waitFor();
    expect(await page.getByTestId('subscriptions').locator('tbody tr').count()).toBe(4);
    await expectAccessible();
    await screenshot('subscriptions');

    // Every status and platform the API's filter takes, paused and pending ones included.
    expect(await page.getByLabel('Status').locator('option').allTextContents()).toEqual([
      'any',
      'active',
      'paused',
      'pending_verification',
      'cancelled',
      'expired',
    ]);
    expect(await page.getByLabel('Platform').locator('option').allTextContents()).toEqual([
      'any',
      'ios',
      'android',
      'web',
    ]);
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByTestId('subscriptions').locator('tbody tr').count()).toBe(1);
    const row = page.getByTestId('subscriptions').locator('tbody tr').first();
    expect(await row.locator('td').first().textContent()).toBe(subscriptionIds[2]);

    await row.getByRole('link').click();
    await page.getByTestId('subscription-detail').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Subscription ${subscriptionIds[2]}`);
    expect(await page.getByTestId('subscription-detail').textContent()).toContain('cancelled');
    // Its history as a timeline, newest first, as the API lists it.
    const history = await request('GET', `${SUBSCRIPTIONS_BASE}/${subscriptionIds[2]}/history`, {
      bearer: app.secretKey,
    });
    expect(history.body.data.map((e: { cause: string; action: string }) => `${e.cause} ${e.action}`)).toEqual([
      'api cancel',
      'verification create',
    ]);
    const entries = page.getByTestId('history').locator(':scope > li');
    await expect.poll(() => entries.count()).toBe(2);
    expect(await entries.nth(0).locator('strong').textContent()).toBe('API call');
    expect(await entries.nth(0).textContent()).toContain('status: active → cancelled');
    expect(await entries.nth(1).locator('strong').textContent()).toBe('Purchase verified');
    expect(await entries.nth(1).textContent()).toContain('status: — → active');
    await expectAccessible();
    await screenshot('subscription');
  });

  it('looks a customer up', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('User id').fill('nobody-here');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('has never seen that user');

    await page.getByLabel('User id').fill('console-user-a');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: 'console-user-a' }).waitFor();
    expect(await page.locator('main li').allTextContents()).toEqual([
      expect.stringContaining(`${subscriptionIds[0]} premium_monthly, active`),
    ]);
    await expectAccessible();
    await screenshot('customers');
  });

  it('lists the failed webhook and redelivers it', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const rows = page.getByTestId('deliveries').locator('tbody tr');
    const row = rows.filter({ hasText: failedEvent });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').nth(2).locator('.status').textContent()).toBe('pending');
    expect(await row.locator('td').nth(4).textContent()).toBe('HTTP 500');
    await page.getByLabel('Status').selectOption('dead');
    await expect.poll(() => page.locator('main').textContent()).toContain('No delivery is dead.');
    await page.getByLabel('Status').selectOption('pending');
    await expect.poll(() => row.count()).toBe(1);
    expect(await rows.count()).toBe(1);
    await expectAccessible();
    await screenshot('webhooks');

    receiver.respond = () => 204;
    await row.getByRole('button', { name: `Redeliver ${failedEvent}` }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toBe('Delivered.');
    expect(await row.locator('td').nth(2).textContent()).toBe('delivered');
    expect(receiver.accepted().filter((r) => r.id === failedEvent)).toHaveLength(1);
  });

  it('shows the catalogue', { timeout: BROWSER_TIMEOUT }, async () => {
    const products = await request('GET', `${SUBSCRIPTIONS_BASE}/products`, { bearer: app.secretKey });
    const expected = products.body.data.map((p: { id: string }) => p.id);
    expect(expected).toHaveLength(3);
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    // The previous page's table can still be on screen for a moment after the click, so wait for these rows.
    await expect.poll(() => page.locator('tbody tr td:first-child').allTextContents()).toEqual(expected);
    await expectAccessible();
    await screenshot('products');
  });

  it('refuses an injected inline script (CSP)', { timeout: BROWSER_TIMEOUT }, async () => {
    const violations = await page.evaluate(
      () =>
        new Promise<string[]>((done) => {
          const seen: string[] = [];
          document.addEventListener('securitypolicyviolation', (event) => seen.push(event.violatedDirective));
          const script = document.createElement('script');
          script.textContent = 'window.injected = true;';
          document.body.appendChild(script);
          setTimeout(() => done(seen), 200);
        }),
    );
    expect(violations).toContain('script-src-elem');
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
  });

  it('says when to retry after a 429', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.route('**/v1/subscriptions/products', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '7', 'Content-Type': 'application/json' },
        body: JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded' } }),
      }),
    );
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Products' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Too many requests. Retry in 7 seconds.');
    await page.unroute('**/v1/subscriptions/products');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('tbody tr').first().waitFor();
  });

  it('goes back to sign-in when the API refuses the key, and signs out', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.evaluate(() => sessionStorage.setItem(Object.keys(sessionStorage)[0]!, 'sk_revoked'));
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByLabel('App secret key').waitFor();
    expect(await page.getByRole('status').textContent()).toBe('The API refused your key. Sign in again.');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await page.getByLabel('App secret key').fill(app.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('App secret key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});
