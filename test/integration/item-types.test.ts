/**
 * Every item of the table says what it is: a story that writes each kind of item (an app and its
 * keys, catalogue, settings and entitlements; purchases verified, transferred and counted; a grant,
 * a webhook delivery, a store notification, mobile reports, an erasure, the jobs' and Google's
 * items), then a scan of the whole table. Each item's key shape names one kind of the table below,
 * and its `type` is that kind's, written here, not read from lib/: an operator reading the table
 * (the console, PartiQL, an export) tells the kinds apart by it. The kinds without a type are
 * listed with why. Its own table, so the scan sees this file's items only.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `item-types-${process.pid}`;
});

import { putAdsConfig, putSegments } from '../../lib/data/app-config.js';
import { setRestorePolicy } from '../../lib/data/apps.js';
import { advanceCheckpoint } from '../../lib/data/due.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { startErasure } from '../../lib/data/erasure-writes.js';
import { saveGoogleOidcKeys } from '../../lib/data/google-oidc-keys.js';
import { putOfferings, putRemoteSwitches } from '../../lib/data/offerings.js';
import { recordPaywallVersion } from '../../lib/data/paywalls.js';
import { scanPages } from '../../lib/data/query.js';
import { countUserRequest } from '../../lib/data/rate-limits.js';
import { chargeReportQuota } from '../../lib/data/report-quotas.js';
import { appendReport, storeEvents, storeOrder, storeSession } from '../../lib/data/reports.js';
import { putExchangeRates } from '../../lib/data/revenue-reads.js';
import { writeTake, writeUnknownToStore } from '../../lib/data/store-call-budget.js';
import { recordNotification } from '../../lib/data/store-notifications.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { setWebhook } from '../../lib/data/webhooks.js';
import { NO_COUNTS } from '../../lib/domain/erasure-scope.js';
import { grantEntitlement } from '../../lib/services/grants.js';
import { verifyPurchase } from '../../lib/services/verification.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, statusChange } from '../support/fixtures.js';
import { createOwnTable, emptyOwnTable } from '../support/own-table.js';
import { freePort } from '../support/ports.js';
import { mintReceipt } from '../support/receipts.js';

/** [kind, pk, sk, type]: the key shapes of docs/architecture.md's data model, and each kind's type. */
const KINDS: [string, RegExp, RegExp, string | null][] = [
  ['app', /^APP#app_\w+$/, /^APP$/, 'app'],
  ['app directory entry', /^APPS$/, /^APP#app_\w+$/, 'app_directory'],
  ["app's key", /^APP#app_\w+$/, /^KEY#(secret|sdk)#[0-9a-f]{64}$/, 'app_key'],
  ['product', /^APP#app_\w+$/, /^PRODUCT#/, 'product'],
  ['store settings', /^APP#app_\w+$/, /^STORE#app_store$/, 'store_settings'],
  ['webhook endpoint', /^APP#app_\w+$/, /^WEBHOOK$/, 'webhook'],
  ['entitlement definitions', /^APP#app_\w+$/, /^ENTITLEMENTS$/, 'entitlements'],
  ['segments', /^APP#app_\w+$/, /^SEGMENTS$/, 'segments'],
  ['ads configuration', /^APP#app_\w+$/, /^ADS$/, 'ads_config'],
  ['offerings and placements', /^APP#app_\w+$/, /^OFFERINGS$/, 'offerings'],
  ['remote switches', /^APP#app_\w+$/, /^SWITCHES$/, 'remote_switches'],
  ['paywall bundles', /^APP#app_\w+$/, /^PAYWALLS$/, 'paywalls'],
  ['API key lookup', /^APIKEY#[0-9a-f]{64}$/, /^APIKEY$/, 'api_key'],
  ['subscription state', /^SUB#app_\w+#sub_[0-9a-f]{24}$/, /^SUB$/, 'subscription'],
  ['its payment', /^SUB#app_\w+#sub_[0-9a-f]{24}$/, /^PAYMENT$/, 'subscription_payment'],
  ['its receipt', /^SUB#app_\w+#sub_[0-9a-f]{24}$/, /^RECEIPT$/, 'subscription_receipt'],
  ['a transfer of its purchase', /^SUB#app_\w+#sub_[0-9a-f]{24}$/, /^TRANSFER#/, 'subscription_transfer'],
  ['transaction binding and purchase', /^TXN#app_\w+#/, /^TXN$/, 'transaction'],
  ['list counts', /^COUNT#app_\w+$/, /^LIST#/, 'list_count'],
  ['revenue counter', /^REV#app_\w+#\d{4}-\d{2}$/, /^\d{4}-\d{2}-\d{2}#/, 'revenue_counter'],
  ['metrics of a day', /^METRICS#app_\w+#\d{4}-\d{2}$/, /^\d{4}-\d{2}-\d{2}#[A-Z]{3}$/, 'metrics_counter'],
  ['metrics now', /^METRICS#app_\w+$/, /^NOW#[A-Z]{3}$/, 'metrics_now'],
  ["a subscription's history entry", /^HISTORY#app_\w+#sub_/, /^HIST#\d{10}$/, 'history'],
  ['user profile', /^USER#app_\w+#/, /^PROFILE$/, 'user_profile'],
  ['grant of an entitlement', /^USER#app_\w+#/, /^GRANT#/, 'entitlement_grant'],
  ['latest report of a type', /^USER#app_\w+#/, /^REPORT#/, 'latest_report'],
  ['a report', /^REPORTS#app_\w+#/, /^[\w-]+#\d{4}-/, 'report'],
  ['a session', /^SESSIONS#app_\w+#/, /^session-/, 'reported_session'],
  ['an order', /^ORDERS#app_\w+#/, /^ORDER#/, 'reported_order'],
  ['store notification', /^NOTIFICATION#app_\w+#app_store#/, /^NOTIFICATION$/, 'store_notification'],
  ['outbox event', /^OUTBOX#evt_[0-9a-f]{24}$/, /^OUTBOX$/, 'outbox'],
  ['webhook delivery', /^DELIVERY#evt_[0-9a-f]{24}$/, /^DELIVERY$/, 'webhook_delivery'],
  ['exchange rate', /^FX#[A-Z]{3}#\d{4}-\d{2}$/, /^\d{4}-\d{2}-\d{2}#[A-Z]{3}$/, 'fx_rate'],
  ['job checkpoint', /^CHECKPOINT#/, /^CHECKPOINT$/, 'checkpoint'],
  ["Google's OIDC keys", /^GOOGLE_KEYS#/, /^KEYS$/, 'google_oidc_keys'],
  ["an app's store call budget", /^STOREBUDGET#app_\w+#(app_store|google_play)$/, /^BUDGET$/, 'store_call_budget'],
  [
    'a purchase unknown to its store',
    /^STOREMISS#app_\w+#(app_store|google_play)#[0-9a-f]{64}$/,
    /^MISS$/,
    'unknown_to_store',
  ],
  ['erasure under way', /^ERASURE#app_\w+#/, /^ERASURE$/, 'erasure'],
  ['an event naming a user', /^USEREVENTS#app_\w+#/, /^EVT#evt_[0-9a-f]{24}$/, 'user_event'],
  // Without a type: an event is stored in one write unit, so the key alone tells its kind; the
  // activity and features items are written by update expressions next to the profile, keyed alone.
  ['reported event', /^EVENTS#app_\w+#/, /^EVT#/, null],
  ["user's activity", /^USER#app_\w+#/, /^ACTIVITY$/, null],
  ['features used', /^USER#app_\w+#/, /^FEATURES$/, null],
  // A counter every mobile request of the user updates, gone by TTL.
  ["a user's requests in the rate-limit window", /^RATE#app_\w+#/, /^WINDOW$/, null],
  // The app's report quota windows, a counter every report updates, gone by TTL.
  ["an app's report quota", /^QUOTA#app_\w+$/, /^REPORTS$/, null],
];

const NOW = new Date();
const DAY = NOW.toISOString().slice(0, 10);

beforeAll(() => createOwnTable());

/** Every item of the table, read consistently page by page. */
async function scanAll(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of scanPages({ ConsistentRead: true })) items.push(...(page.Items ?? []));
  return items;
}

async function writeEveryKind(): Promise<Record<string, unknown>[]> {
  // From an empty table: a kind an earlier run of this file wrote must not stand in for one this run failed to write.
  await emptyOwnTable();
  const app = await createTestApp();
  const { appId } = app;
  await putStoreSettings(appId, 'app_store', { bundle_id: 'com.example.types', environment: 'Sandbox' });
  await putEntitlements(appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  await putSegments(appId, [{ id: 'all', name: 'All', type: 'built_in' }] as never);
  await putAdsConfig(appId, { enabled: false } as never);
  await putOfferings(appId, { current: 'o', offerings: [], placements: [] }, []);
  await putRemoteSwitches(appId, []);
  await recordPaywallVersion(appId, { id: 'main', name: 'Main', sha256: '0'.repeat(64), bytes: 1, files: 1 });
  await grantEntitlement(appId, 'granted-user', 'pro', { duration: 'P1M' }, NOW);
  // A purchase verified by one user, then restored by another: a transfer.
  const { receipt_data } = await mintReceipt(app);
  await verifyPurchase(appId, { platform: 'ios', receipt_data, user_id: 'buyer' });
  await setRestorePolicy(appId, 'transfer');
  await verifyPurchase(appId, { platform: 'ios', receipt_data, user_id: 'restorer' }, { restore: true });
  await settleCounters();
  // A delivery to an endpoint that refuses connections stays pending, recorded.
  await setWebhook(appId, `http://127.0.0.1:${await freePort()}/hook`);
  await deliverStatusChange(statusChange(appId));
  await recordNotification(
    appId,
    {
      store: 'app_store',
      notification_id: 'types-1',
      type: 'TEST',
      subtype: null,
      environment: 'Sandbox',
      sent_at: NOW.toISOString(),
      state: null,
    },
    'recorded',
    NOW,
  );
  const context = { appId, platform: 'ios', sdkVersion: '1.0.0' };
  await storeEvents(
    context,
    'reporter',
    [
      {
        key: 'e1',
        name: 'feature_used',
        session_id: null,
        timestamp: NOW.toISOString(),
        extra: { feature_name: 'export' },
      },
    ],
    NOW,
  );
  await storeSession(
    context,
    'reporter',
    { sessionId: 'session-1', startTime: NOW.getTime() - 1000, duration: 1 },
    NOW,
  );
  await appendReport(context, 'reporter', 'attribution', { source: 'x' }, {}, NOW, {
    keepLatestOfType: { type: 'attribution', typesPerUser: 32 },
  });
  await storeOrder(
    context,
    'reporter',
    { orderId: 'order-1', productId: 'premium_monthly', price: 9.99, currency: 'USD' },
    NOW,
  );
  await countUserRequest(appId, 'reporter');
  await putExchangeRates([{ date: DAY, from: 'EUR', to: 'USD', rate: 1.1 }]);
  await advanceCheckpoint('SUB', DAY);
  await chargeReportQuota(appId, { events: 1, bytes: 100 }, { events: 10, bytes: 1000 }, NOW.getTime());
  await saveGoogleOidcKeys('http://127.0.0.1/jwks', { keys: [{ kid: 'k1' }], fetched_at: NOW.getTime() });
  await writeTake(
    appId,
    'google_play',
    undefined,
    { tokens: 1, refilledAt: NOW.getTime(), backOffUntil: 0 },
    NOW.getTime(),
  );
  await writeUnknownToStore(appId, 'google_play', 'a'.repeat(64), NOW.getTime() + 600_000);
  await startErasure(
    { app_id: appId, user_id: 'leaving', anonymous_id: 'erased_1', removed: NO_COUNTS, started_at: NOW.toISOString() },
    NOW,
  );
  return scanAll();
}

describe('every item of the table says what it is', () => {
  it('the story writes every kind; each item is of one kind of the data model, and carries that kind’s type', {
    timeout: 60_000,
  }, async () => {
    // Written inside the test, not in beforeAll: the mutation run maps code to the tests that ran
    // it, and what a beforeAll runs counts as run by none (docs/mutation.md).
    const items = await writeEveryKind();
    const unknown: string[] = [];
    const wrong: string[] = [];
    for (const item of items) {
      const kinds = KINDS.filter(([, pk, sk]) => pk.test(String(item.pk)) && sk.test(String(item.sk)));
      if (kinds.length !== 1) {
        unknown.push(`${item.pk} | ${item.sk} (${kinds.length} kinds)`);
        continue;
      }
      const [kind, , , type] = kinds[0]!;
      if ((item.type ?? null) !== type) wrong.push(`${kind}: ${String(item.type)} where ${type} was expected`);
    }
    expect(unknown).toEqual([]);
    expect(wrong).toEqual([]);
    // In this test too: a kind missing because its writer changed must fail where the writer ran.
    const written = new Set(
      items.flatMap((item) =>
        KINDS.filter(([, pk, sk]) => pk.test(String(item.pk)) && sk.test(String(item.sk))).map(([kind]) => kind),
      ),
    );
    expect(KINDS.map(([kind]) => kind).filter((kind) => !written.has(kind))).toEqual([]);
  });

  it("docs/architecture.md's data model lists these kinds and types", () => {
    const page = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('## Data model (one table)')).split('\n\n')[1]!;
    const documented = table
      .split('\n')
      .slice(2)
      .map((row) => /\| (?:`([a-z_]+)`|none[^|]*) \|$/.exec(row)?.[1] ?? null);
    const sort = (types: (string | null)[]) => types.map((type) => type ?? 'none').sort();
    expect(sort(documented)).toEqual(sort(KINDS.map(([, , , type]) => type)));
  });
});
