/// <reference lib="dom" />
/**
 * The operator console (issue #17) in real headless Chromium, served by the local gateway at
 * /console as `npm start` serves it, against seeded data: sign in, the overview's figures equal
 * the API's and its charts are drawn, the list filtered, a subscription opened, a customer looked
 * up, the catalogue, sign out; the CSP refuses an injected inline script; the key stays in
 * sessionStorage; a refused key returns to sign-in and a 429 says when to retry; axe-core finds
 * no serious or critical violation on any page. An app with nothing yet shows empty states that
 * say what to do; a phone's width scrolls no page sideways; /docs loads nothing from elsewhere.
 * Screenshots are taken of an app with 90 days of history (test/support/business-history.ts),
 * to .test-results/console/, or to docs/images/ with UPDATE_SCREENSHOTS=1 (how the committed ones
 * are made).
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // The CLI (a child process) writes paywall bundles where the gateway serves them, as with `npm start`.
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join: joinPath } = require('node:path') as typeof import('node:path');
  const { tmpdir: tmp } = require('node:os') as typeof import('node:os');
  process.env.PAYWALLS_DIR = mkdtempSync(joinPath(tmp(), 'console-paywalls-'));
});

import { consoleContentSecurityPolicy } from '../../console/build.js';
import { apiKeyId, sha256Hex } from '../../lib/core/ids.js';
import { disableWebhook, setWebhook } from '../../lib/data/webhooks.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';
import { accessibilityViolations, launchChromium } from '../support/browser.js';
import { type BusinessHistory, seedBusinessHistory } from '../support/business-history.js';
import { atTime } from '../support/clock.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, PREMIUM_MONTHLY, statusChange, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { streamEvents } from '../support/outbox.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const { request, url } = useGateway({ console: true, apiReference: true, paywalls: true });
const SCREENSHOTS = resolve(process.env.UPDATE_SCREENSHOTS ? 'docs/images' : '.test-results/console');
const BROWSER_TIMEOUT = 120_000;
/** How long a page may take to show what it loaded: the seeded app's take longer on a busy machine. */
const POLL = { timeout: 15_000 };

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver;
/** Every file a console tab asked for and got a 404 (a favicon nobody serves, say); the API's own 404s aside. */
const notFound: string[] = [];
const recordNotFound = (tab: Page) =>
  tab.on('response', (response) => {
    if (response.status() === 404 && !new URL(response.url()).pathname.startsWith('/v1/'))
      notFound.push(response.url());
  });
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

async function screenshot(shot: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `console-${name}.png`);
  const png = await shot.screenshot({ path: file, fullPage: true });
  // A PNG of a drawn page, not an empty one.
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(10_000);
}

async function expectAccessible(on: Page = page) {
  expect(await accessibilityViolations(on)).toEqual([]);
}

/** A new tab of its own (viewport, permissions), signed in with `key`, on the overview. */
async function signedInTab(key: string, viewport = { width: 1200, height: 900 }): Promise<Page> {
  const tab = await (await browser.newContext({ viewport })).newPage();
  recordNotFound(tab);
  await tab.goto(`${url()}/console/`);
  await tab.getByLabel('App secret key').fill(key);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('heading', { name: 'Overview' }).waitFor();
  return tab;
}

/** Goes to a page of the console by its link in the header, and waits for its heading. */
async function open(tab: Page, name: string) {
  await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  await tab.getByRole('heading', { level: 1, name }).waitFor();
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
  recordNotFound(page);
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
    // Which app this is (GET /v1/app), and which of its keys: its public id, as `admin keys list --app A` prints it.
    await page.getByTestId('app-name').waitFor();
    expect(await page.getByTestId('signed-in-as').textContent()).toBe(
      `test app ${apiKeyId('secret', sha256Hex(app.secretKey))}`,
    );
    expect(await page.getByTestId('app-name').getAttribute('title')).toBe(app.appId);
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
  });

  it('filters the list and opens a subscription', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByTestId('subscriptions').waitFor();
    expect(await page.getByTestId('subscriptions').locator('tbody tr').count()).toBe(4);
    await expectAccessible();

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
    // One time format throughout: the changes' timestamps as the entries' own ("2026-11-27 08:16 UTC").
    const timeline = (await page.getByTestId('history').textContent()) ?? '';
    expect(timeline).toMatch(/expires_at: — → \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(timeline).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}/);
    await expectAccessible();
  });

  it('lists recent customers, finds any customer by prefix, and looks one up', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    await page.getByRole('link', { name: 'Customers' }).click();
    // The users of the newest subscriptions, newest first, each once.
    const recent = page.getByTestId('recent-customers').locator('tbody tr td:first-child');
    await expect
      .poll(() => recent.allTextContents(), POLL)
      .toEqual(['console-trial-user', 'console-user-c', 'console-user-b', 'console-user-a']);
    expect(await page.getByTestId('recent-scope').textContent()).toContain('the users of all 4 subscriptions');
    // Typing searches every customer of the app (GET /v1/customers), in id order.
    const found = page.getByTestId('customer-search').locator('tbody tr td:first-child');
    await page.getByLabel('User id starts with').fill('console-user-');
    await expect
      .poll(() => found.allTextContents(), POLL)
      .toEqual(['console-user-a', 'console-user-b', 'console-user-c']);
    await expectAccessible();
    await page.getByLabel('User id starts with').fill('nobody');
    await expect
      .poll(() => page.locator('main').textContent(), POLL)
      .toContain('No customer’s id starts with “nobody”');
    await page.getByLabel('User id starts with').fill('console-user-b');
    await expect.poll(() => found.allTextContents(), POLL).toEqual(['console-user-b']);
    await page.getByRole('link', { name: 'console-user-b' }).click();
    await page.getByRole('heading', { name: 'console-user-b' }).waitFor();
    await expectAccessible();
    await page.getByRole('link', { name: '← Recent customers' }).click();
    await page.getByTestId('recent-customers').waitFor();

    await page.getByLabel('User id', { exact: true }).fill('nobody-here');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('main').textContent(), POLL).toContain('has never seen that user');

    await page.getByLabel('User id', { exact: true }).fill('console-user-a');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: 'console-user-a' }).waitFor();
    expect(await page.locator('main li').allTextContents()).toEqual([
      expect.stringContaining(`${subscriptionIds[0]} premium_monthly, active`),
    ]);
    await expectAccessible();
  });

  it('lists the failed webhook and redelivers it', { timeout: BROWSER_TIMEOUT }, async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const rows = page.getByTestId('deliveries').locator('tbody tr');
    const row = rows.filter({ hasText: failedEvent });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => page.getByTestId('endpoint-url').textContent()).toBe(receiver.url);
    expect(await page.getByTestId('endpoint-state').textContent()).toContain('(receives every event)');
    expect(await row.locator('td').nth(2).locator('.status').textContent()).toBe('pending');
    expect(await row.locator('td').nth(4).textContent()).toBe('HTTP 500');
    await page.getByLabel('Status').selectOption('dead');
    await expect.poll(() => page.locator('main').textContent()).toContain('No delivery is dead.');
    await page.getByLabel('Status').selectOption('pending');
    await expect.poll(() => row.count()).toBe(1);
    expect(await rows.count()).toBe(1);
    await expectAccessible();

    receiver.respond = () => 204;
    await row.getByRole('button', { name: `Redeliver ${failedEvent}` }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toBe('Delivered.');
    expect(await row.locator('td').nth(2).textContent()).toBe('delivered');
    expect(receiver.accepted().filter((r) => r.id === failedEvent)).toHaveLength(1);
    // A 204 is a success, not an error: the column names failures only, in place and when listed again.
    expect(await row.locator('td').nth(4).textContent()).toBe('—');
    await page.getByLabel('Status').selectOption('delivered');
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('delivered');
    expect(await row.locator('td').nth(4).textContent()).toBe('—');
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
  });

  it('shows what the app shows: offerings, placements, paywall bundles and remote switches as set', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'console-offerings-'));
    await writeFile(
      join(dir, 'spring.zip'),
      zipSync({ 'index.html': strToU8('<h1>Spring</h1>'), 'app.js': strToU8('go()') }),
    );
    for (const id of ['spring', 'welcome']) {
      const uploaded = await admin(
        'paywalls',
        'upload',
        '--app',
        app.appId,
        '--id',
        id,
        '--file',
        join(dir, 'spring.zip'),
        '--json',
      );
      expect(uploaded.code, uploaded.stdout).toBe(0);
    }
    await writeFile(
      join(dir, 'offerings.json'),
      JSON.stringify({
        current: 'standard',
        offerings: [
          {
            id: 'standard',
            description: 'Monthly',
            packages: [{ id: '$rc_monthly', products: { ios: 'premium_monthly' } }],
            paywall: 'spring',
          },
          { id: 'annual', packages: [{ id: '$rc_annual', products: { ios: 'pro_yearly', android: 'pro_yearly' } }] },
        ],
        placements: [
          {
            id: 'onboarding',
            rules: [{ audience: { platform: 'android' }, offering: 'annual', guide_page: { id: 'spring' } }],
            default: 'standard',
            guide_page: { id: 'welcome', pages: 3, purchase: true },
          },
        ],
      }),
    );
    await writeFile(
      join(dir, 'switches.json'),
      JSON.stringify([
        {
          key: 'show_trial_banner',
          type: 'boolean',
          description: 'Trial banner',
          value: true,
          rules: [{ audience: { segment: 'paying' }, value: false }],
        },
      ]),
    );
    for (const command of ['offerings', 'switches'] as const) {
      const put = await admin(command, 'put', '--app', app.appId, '--file', join(dir, `${command}.json`), '--json');
      expect(put.code, put.stderr).toBe(0);
    }
    await open(page, 'Offerings');
    const offerings = page.getByTestId('offerings');
    await expect
      .poll(() => offerings.locator('tbody tr td:first-child').allTextContents(), POLL)
      .toEqual(['standard (current)', 'annual']);
    expect(await offerings.locator('tbody tr').nth(1).locator('td').nth(1).textContent()).toBe(
      '$rc_annual: ios pro_yearly, android pro_yearly',
    );
    expect(await offerings.locator('tbody tr td:last-child').allTextContents()).toEqual(['spring', 'none']);
    expect(await page.getByTestId('placements').locator('tbody tr td').allTextContents()).toEqual([
      'onboarding',
      'on android → annual, guide spring',
      'standard',
      'welcome (3 pages, sells)',
    ]);
    const paywalls = page.getByTestId('paywalls');
    expect(await paywalls.locator('tbody tr td:nth-child(-n+4)').allTextContents()).toEqual([
      'spring',
      'spring',
      '1',
      '2',
      'welcome',
      'welcome',
      '1',
      '2',
    ]);
    // Each bundle links to where the app downloads it.
    const href = await paywalls.locator('tbody tr a').first().getAttribute('href');
    expect(href).toMatch(new RegExp(`^${url()}/paywalls/${app.appId}/spring/[0-9a-f]{64}\\.zip$`));
    expect((await fetch(href!)).headers.get('content-type')).toBe('application/zip');
    expect(await page.getByTestId('switches').locator('tbody tr td').allTextContents()).toEqual([
      'show_trial_banner',
      'boolean',
      'true',
      'segment paying → false',
      'Trial banner',
    ]);
    await expectAccessible();
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

describe('an app with nothing yet', () => {
  let empty: TestApp;
  let tab: Page;
  beforeAll(async () => {
    empty = await createTestApp([]);
    tab = await signedInTab(empty.secretKey);
  }, BROWSER_TIMEOUT);

  it('shows an overview that says there is nothing yet, not charts of zeros', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    await expect
      .poll(() => tab.locator('main').textContent(), POLL)
      .toContain('Nothing to show for last 30 days: no active subscription or trial');
    expect(await tab.locator('canvas').count()).toBe(0);
    expect(await tab.locator('table').count()).toBe(0);
    await expectAccessible(tab);
  });

  it('says there are no subscriptions yet, and that none matches when filtered', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    await open(tab, 'Subscriptions');
    await expect.poll(() => tab.locator('main .empty').textContent(), POLL).toContain('No subscriptions yet.');
    await tab.getByLabel('Status').selectOption('active');
    await tab.getByRole('button', { name: 'Filter' }).click();
    await expect
      .poll(() => tab.locator('main .empty').textContent(), POLL)
      .toBe('No subscription matches these filters.');
  });

  it('shows no customers yet', { timeout: BROWSER_TIMEOUT }, async () => {
    await open(tab, 'Customers');
    await expect
      .poll(() => tab.locator('main .empty').textContent(), POLL)
      .toBe('No customers yet: no subscription has been recorded.');
  });

  it('gives the complete command that stores a catalogue, which works as copied', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    await tab.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url() });
    await open(tab, 'Products');
    const command = tab.getByTestId('products-empty').getByTestId('command');
    await command.waitFor();
    const text = (await command.textContent())!;
    expect(text).not.toContain('`');
    expect(text).toBe('npm run --silent admin -- products put --app APP_ID --file products.json');
    await tab.getByTestId('products-empty').getByRole('button', { name: 'Copy' }).first().click();
    await expect
      .poll(() => tab.getByTestId('products-empty').getByRole('status').first().textContent(), POLL)
      .toBe('Copied.');
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(text);
    await expectAccessible(tab);

    // Run as the operator would: their app id for APP_ID, the example as products.json.
    const example = (await tab.getByTestId('example-catalogue').textContent())!;
    const file = join(await mkdtemp(join(tmpdir(), 'console-catalogue-')), 'products.json');
    await writeFile(file, example);
    const [npm, run, silent, name, dashes, ...args] = text.split(' ');
    expect([npm, run, silent, name, dashes]).toEqual(['npm', 'run', '--silent', 'admin', '--']);
    const result = await admin(
      ...args.map((arg) => (arg === 'APP_ID' ? empty.appId : arg === 'products.json' ? file : arg)),
    );
    expect(result.code, result.stderr).toBe(0);
    await open(tab, 'Overview');
    await open(tab, 'Products');
    await expect
      .poll(() => tab.locator('tbody tr td:first-child').allTextContents(), POLL)
      .toEqual(['premium_monthly']);
  });

  it('says how to set offerings and switches when the app has none', { timeout: BROWSER_TIMEOUT }, async () => {
    await open(tab, 'Offerings');
    await expect
      .poll(() => tab.getByTestId('offerings-empty').getByTestId('command').textContent(), POLL)
      .toBe('npm run --silent admin -- offerings put --app APP_ID --file offerings.json');
    expect(await tab.getByTestId('switches-empty').getByTestId('command').textContent()).toBe(
      'npm run --silent admin -- switches put --app APP_ID --file switches.json',
    );
    expect(await tab.getByTestId('paywalls-empty').getByTestId('command').textContent()).toBe(
      'npm run --silent admin -- paywalls upload --app APP_ID --id PAYWALL_ID --file bundle.zip',
    );
    await expectAccessible(tab);
  });

  it('says whether a webhook endpoint is set, and how to set one', { timeout: BROWSER_TIMEOUT }, async () => {
    await open(tab, 'Webhooks');
    const state = tab.getByTestId('endpoint-state');
    await expect.poll(() => state.textContent(), POLL).toContain('No webhook endpoint is set');
    expect(await state.getByTestId('command').textContent()).toBe(
      `npm run --silent admin -- webhooks set --app ${empty.appId} --url https://example.com/webhooks`,
    );
    // Set with an event filter, then disabled (as a receiver's 410 leaves it): the page says both.
    await setWebhook(empty.appId, 'https://example.com/webhooks', ['subscription.renewed']);
    await open(tab, 'Overview');
    await open(tab, 'Webhooks');
    await expect.poll(() => tab.getByTestId('endpoint-url').textContent(), POLL).toBe('https://example.com/webhooks');
    expect(await state.textContent()).toContain('(receives subscription.renewed)');
    await disableWebhook(empty.appId, 'the receiver answered 410 Gone');
    await open(tab, 'Overview');
    await open(tab, 'Webhooks');
    await expect.poll(() => state.textContent(), POLL).toContain('It is disabled (the receiver answered 410 Gone)');
    await expectAccessible(tab);
  });
});

describe('an app with 90 days of history', () => {
  let business: BusinessHistory;
  beforeAll(async () => {
    business = await seedBusinessHistory(request);
    // The webhooks of its last events, each delivered when it happened; the newest one failing.
    const businessReceiver = await startWebhookReceiver();
    businessReceiver.setSecret((await setWebhook(business.app.appId, businessReceiver.url)).secret);
    const events = (await streamEvents())
      .filter((event) => event.app_id === business.app.appId)
      .sort((a, b) => a.payload.timestamp.localeCompare(b.payload.timestamp))
      .slice(-12);
    for (const [n, event] of events.entries()) {
      if (n === events.length - 1)
        businessReceiver.respond = () => ({ status: 503, headers: { 'Retry-After': '86400' } });
      await atTime(Date.parse(event.payload.timestamp) + 1500, () => deliverStatusChange(event));
    }
    await businessReceiver.close();
  }, 600_000);

  it('charts money in its currency, dates as the tables do, and whole months', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    const tab = await signedInTab(business.app.secretKey);
    const label = (chart: string) =>
      tab.locator(`[data-testid="chart-${chart}"] canvas`).first().getAttribute('aria-label');
    await expect
      .poll(() => label('MRR'), POLL)
      .toMatch(/^MRR: MRR \(USD\), \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}, axis \$/);
    expect(await label('Revenue')).toMatch(/, axis \$[\d,.]+ to \$[\d,.]+$/);
    expect(await label('New and churned')).toMatch(/, axis \d+ to \d+$/);
    // The legends name the series, without the cursor's "Time: --".
    const legends = await tab.locator('.u-legend').allTextContents();
    expect(legends.length).toBe(4);
    for (const legend of legends) expect(legend).not.toMatch(/Time|--/);

    await tab.getByLabel('Period').selectOption({ label: 'Last 12 months' });
    const months = tab.getByTestId('breakdown').locator('tbody tr td:first-child');
    await expect.poll(() => months.count(), POLL).toBe(12);
    const now = new Date();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 7);
    expect(await months.first().textContent()).toBe(first);
    expect(await months.last().textContent()).toBe(now.toISOString().slice(0, 7));
    expect(await label('MRR')).toMatch(/, \d{4}-\d{2} to \d{4}-\d{2}, axis /);

    await tab.getByLabel('Period').selectOption({ label: 'Last 13 weeks' });
    const weeks = tab.getByTestId('breakdown').locator('tbody tr td:first-child');
    await expect.poll(() => weeks.count(), POLL).toBe(13);
    // Every week a whole one, named by its Monday.
    for (const week of await weeks.allTextContents()) expect(new Date(`${week}T00:00:00Z`).getUTCDay()).toBe(1);
    await tab.context().close();
  });

  it('fits a phone: no page scrolls sideways at 390 px', { timeout: BROWSER_TIMEOUT }, async () => {
    const tab = await signedInTab(business.app.secretKey, { width: 390, height: 844 });
    const width = () => tab.evaluate(() => document.documentElement.scrollWidth);
    await tab.getByTestId('breakdown').waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    for (const name of ['Subscriptions', 'Customers', 'Webhooks', 'Products', 'Offerings']) {
      await open(tab, name);
      await tab.locator('main table, main .empty').first().waitFor();
      expect(await width(), name).toBeLessThanOrEqual(390);
    }
    await open(tab, 'Subscriptions');
    await tab.getByTestId('subscriptions').locator('tbody tr a').first().click();
    await tab.getByTestId('history').waitFor();
    expect(await width(), 'a subscription').toBeLessThanOrEqual(390);
    // The header's navigation wraps under the brand rather than off the screen.
    const box = await tab.getByRole('button', { name: 'Sign out' }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await tab.context().close();
  });

  it('is what the screenshots show', { timeout: BROWSER_TIMEOUT }, async () => {
    const signIn = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await signIn.goto(`${url()}/console/`);
    await signIn.getByLabel('App secret key').waitFor();
    await screenshot(signIn, 'sign-in');
    await signIn.context().close();

    const tab = await signedInTab(business.app.secretKey);
    await tab.getByLabel('Period').selectOption({ label: 'Last 13 weeks' });
    await expect.poll(() => tab.getByTestId('breakdown').locator('tbody tr').count(), POLL).toBe(13);
    await screenshot(tab, 'overview');

    await open(tab, 'Subscriptions');
    await tab.getByTestId('subscriptions').waitFor();
    await screenshot(tab, 'subscriptions');
    // A subscriber of the first weeks, with renewals in their history.
    await tab.getByLabel('User').fill('user-0002');
    await tab.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => tab.getByTestId('subscriptions').locator('tbody tr').count(), POLL).toBe(1);
    await tab.getByTestId('subscriptions').locator('tbody tr a').first().click();
    await expect.poll(() => tab.getByTestId('history').locator(':scope > li').count(), POLL).toBeGreaterThan(1);
    await screenshot(tab, 'subscription');

    await open(tab, 'Customers');
    await tab.getByTestId('recent-customers').waitFor();
    await tab.getByLabel('User id starts with').fill('user-019');
    await expect.poll(() => tab.getByTestId('customer-search').locator('tbody tr').count(), POLL).toBe(10);
    await screenshot(tab, 'customers');
    // More customers than a page: Next and Previous walk the pages.
    await tab.getByLabel('User id starts with').fill('user-00');
    const searched = tab.getByTestId('customer-search').locator('tbody tr td:first-child');
    await expect.poll(() => searched.first().textContent(), POLL).toBe('user-0001');
    expect(await searched.count()).toBe(20);
    await tab.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => searched.first().textContent(), POLL).toBe('user-0021');
    await tab.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => searched.first().textContent(), POLL).toBe('user-0001');

    await open(tab, 'Webhooks');
    await tab.getByTestId('deliveries').waitFor();
    await screenshot(tab, 'webhooks');

    await open(tab, 'Products');
    await tab.locator('tbody tr').first().waitFor();
    await screenshot(tab, 'products');
    await tab.context().close();
  });
});

/**
 * Whether the page names an icon that the browser draws without asking the server: a browser asks
 * for /favicon.ico (which nothing serves) only when a page names none (headless Chromium never asks).
 */
const ownIcon = (tab: Page) =>
  tab.evaluate(
    () =>
      new Promise<string>((done) => {
        const link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
        if (!link) return done('no icon');
        if (!link.href.startsWith('data:')) return done(`asks for ${link.href}`);
        const image = new Image();
        image.onload = () => done(image.naturalWidth > 0 ? 'drawn' : 'empty');
        image.onerror = () => done('not an image');
        image.src = link.href;
      }),
  );

describe('what the browser loads', () => {
  it('asks for no file that is not there: the pages name an icon of their own', {
    timeout: BROWSER_TIMEOUT,
  }, async () => {
    // Every tab above recorded the 404s it got, besides the API's.
    expect(notFound).toEqual([]);
    const tab = await (await browser.newContext()).newPage();
    for (const path of ['/console/', '/docs']) {
      await tab.goto(`${url()}${path}`);
      expect(await ownIcon(tab), path).toBe('drawn');
    }
    await tab.context().close();
  });

  it('loads /docs (Redoc) from this server only', { timeout: BROWSER_TIMEOUT }, async () => {
    const tab = await (await browser.newContext()).newPage();
    const requested: string[] = [];
    tab.on('request', (r) => requested.push(r.url()));
    const failed: string[] = [];
    tab.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await tab.goto(`${url()}/docs`);
    await tab.getByRole('heading', { name: 'List subscriptions' }).first().waitFor();
    await tab.waitForLoadState('networkidle');
    const origin = new URL(url()).origin;
    expect(requested.filter((address) => !address.startsWith('data:')).length).toBeGreaterThan(1);
    expect(requested.filter((address) => !address.startsWith('data:') && new URL(address).origin !== origin)).toEqual(
      [],
    );
    expect(failed).toEqual([]);
    await tab.context().close();
  });
});
