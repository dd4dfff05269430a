/// <reference lib="dom" />
/**
 * purchases-js in a real browser (Debian's Chromium, test/support/browser.ts): its UMD bundle on a
 * page of another origin than the API's, so every call is a cross-origin fetch with a preflight,
 * as on an app's own website. It reads the customer info and identifies the user through the
 * dialect's CORS (lib/http/revenuecat.ts).
 */
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';

const { url } = useGateway();
// Its `require` entry is the UMD build, which a page loads as a script.
const PURCHASES_JS = createRequire(import.meta.url).resolve('@revenuecat/purchases-js');

let browser: Browser;
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('purchases-js in Chromium', () => {
  it('reads the customer info and identifies the user from a page of another origin', async () => {
    const page = await browser.newPage();
    // The page's origin is `null` (about:blank's content), never the API's: each call is cross-origin.
    await page.setContent('<!doctype html><title>shop</title>');
    await page.addScriptTag({ path: PURCHASES_JS });
    const answer = await page.evaluate(
      async ({ apiKey, proxyURL }) => {
        const { Purchases } = (globalThis as unknown as { Purchases: typeof import('@revenuecat/purchases-js') })
          .Purchases;
        const anonymous = Purchases.generateRevenueCatAnonymousAppUserId();
        const purchases = Purchases.configure({
          apiKey,
          appUserId: anonymous,
          httpConfig: { proxyURL },
          flags: { collectAnalyticsEvents: false },
        });
        const info = await purchases.getCustomerInfo();
        const identified = await purchases.identifyUser(`browser-${anonymous.slice(-8)}`);
        return {
          original: info.originalAppUserId === anonymous,
          active: Object.keys(info.entitlements.active),
          wasCreated: identified.wasCreated,
          user: purchases.getAppUserId(),
        };
      },
      { apiKey: `rcb_${app.sdkKey}`, proxyURL: url() },
    );
    expect(answer).toMatchObject({ original: true, active: [], wasCreated: true });
    expect(answer.user).toMatch(/^browser-/);
    await page.close();
  }, 60_000);
});
