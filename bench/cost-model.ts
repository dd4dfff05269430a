/**
 * Issue #8 (4): dollars per million requests of every endpoint, from measurements and the published
 * prices in support/prices.ts.
 *
 * For each deployed function of lib/routes.ts (V1 and V2 paths are one), a realistic request, prepared
 * afresh outside what is measured, is sent in-process to the handler, warm (module loaded, API key
 * cached as a warm function caches it):
 * - DynamoDB: read and write request units of the request (support/capacity.ts), the rate limiter's
 *   write (per secret key, or per mobile user) and, for a status change, the outbox item written in
 *   the same transaction included;
 * - Lambda: handler duration, median of RUNS invocations, billed at the configured 1024 MB (1 GB),
 *   rounded up to the millisecond; the heap growth of an invocation is reported as measured memory;
 * - per status change (an outbox item in the request's writes): one EventBridge custom event, one
 *   invocation of the stream publisher (one per event: the worst case, the stream batches up to 100)
 *   and one of the webhook deliverer, with their measured durations and the deliverer's DynamoDB
 *   units (the app has a webhook endpoint, answering 204 at once).
 * Durations are measured against DynamoDB Local on a shared two-core machine. It answers far more
 * slowly than DynamoDB (a subscription write, one transaction of several items, takes tens to hundreds of
 * milliseconds here), so the Lambda figures are an upper bound; the time spent waiting on it is
 * reported beside each duration. Each request's log lines (our logger at the deployed INFO level) and
 * the items it writes that expire (reports) are counted too.
 *
 * Then the monthly bill of one app at its SDK's traffic (support/monthly-bill.ts): given by flags or
 * the environment (`--help`), printed after the run; `--bill` prints it from the last results
 * without measuring.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import type { LogLevel } from '../lib/core/logger.js';
import type { BusEventDetail } from '../lib/events/schemas.js';
import type { Route } from '../lib/routes.js';
import { trustStandInAppleRoot } from './support/apple-stand-in-root.js';
import type { RecordedCommand } from './support/commands.js';
import type { BenchRequest } from './support/invoke.js';
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import {
  billInputsOf,
  billText,
  DEFAULT_TRAFFIC,
  grouped,
  monthlyBill,
  TRAFFIC_OPTIONS,
  trafficFrom,
} from './support/monthly-bill.js';
import { LAMBDA_MEMORY_GB, lambdaDurationUsd, PRICES } from './support/prices.js';
import { median, round, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

const option = (name: keyof typeof TRAFFIC_OPTIONS, what: string) =>
  `  --${TRAFFIC_OPTIONS[name].flag.padEnd(12)} ${what} (${TRAFFIC_OPTIONS[name].env}; default ${grouped(DEFAULT_TRAFFIC[name])})`;
const { values: flags, refuse } = benchArguments(
  `Usage: npm run bench:cost [-- [--bill] [--mau N] [--subscribers N] [--price USD] [--launches N] [--events N]]

Measures every route's cost per million requests and writes bench/results/cost-model.json, then
prints the monthly bill of one app at the traffic its users' SDK makes. With --bill, prints that
bill from the last results without measuring. The app (a flag, else the environment variable):
${option('mau', 'monthly active users')}
${option('subscribers', 'paying subscribers')}
${option('priceUsd', 'what a subscriber pays a month, USD')}
${option('launchesPerDay', 'launches and returns to the foreground per user per day')}
${option('eventsPerDay', 'events reported per user per day')}`,
  {
    bill: { type: 'boolean' },
    ...Object.fromEntries(Object.values(TRAFFIC_OPTIONS).map(({ flag }) => [flag, { type: 'string' as const }])),
  },
);
let traffic = DEFAULT_TRAFFIC;
try {
  traffic = trafficFrom(flags, process.env);
} catch (error) {
  refuse((error as Error).message);
}
if (flags.bill) {
  const results = JSON.parse(readFileSync(new URL('results/cost-model.json', import.meta.url), 'utf8'));
  console.log(billText(monthlyBill(billInputsOf(results.figures), traffic)).join('\n'));
  process.exit(0);
}

/**
 * Routes that create a subscription or change one. Issue #15: at most 15 write units each; a
 * creation may take one more, its entry in the customers index (docs/decisions/customer-search-index.md).
 */
const SUBSCRIPTION_WRITES = {
  creation: ['CreateSubscription', 'VerifyPurchase', 'VerifyFirstReceipt'],
  change: [
    'UpdateSubscription',
    'CancelSubscription',
    'RenewSubscription',
    'PauseSubscription',
    'ResumeSubscription',
    'AppStoreNotification',
    'GooglePlayNotification',
    'TestStoreNotification',
  ],
} as const;
const WRITE_BUDGET = { creation: 16, change: 15 } as const;

/**
 * The most write units of a subscription creation, and of a change, of the whole request and
 * without the list and revenue counter items (the part the counters' move to the stream aggregator removes).
 */
function subscriptionWriteBudgets(
  rows: { routes: string[]; write_units: number; counter_write_units: number }[],
): { name: string; value: number; budget: string; pass: boolean }[] {
  return (['creation', 'change'] as const).flatMap((kind) => {
    const routes: readonly string[] = SUBSCRIPTION_WRITES[kind];
    const writes = rows.filter((row) => row.routes.some((route) => routes.includes(route)));
    if (writes.length !== routes.length) throw new Error(`a subscription ${kind} route was not measured`);
    const worst = (units: (row: (typeof writes)[number]) => number) => {
      const row = writes.reduce((a, b) => (units(b) > units(a) ? b : a));
      return { value: units(row), route: row.routes[0]! };
    };
    const total = worst((row) => row.write_units);
    const own = worst((row) => row.write_units - row.counter_write_units);
    const budget = WRITE_BUDGET[kind];
    return [
      {
        name: `WRU per subscription ${kind}, most of ${writes.length} routes (${total.route})`,
        value: total.value,
        budget: `<= ${budget}`,
        pass: total.value <= budget,
      },
      {
        name: `the same ${kind} without list and revenue counter items (${own.route})`,
        value: own.value,
        budget: `<= ${budget}`,
        pass: own.value <= budget,
      },
    ];
  });
}

/** Read units a launch's read of what the user is shown may take (issue #39). */
const LAUNCH_READ_BUDGET = 4;

/**
 * What a launch reads (UserOfferings): as measured, with the app's settings kept by the warm
 * function; and on a cold cache, with them read too: the same BatchGetItem GET /v1/offerings
 * sends (ListOfferings, whose only other request is the key's count).
 */
function launchReadBudgets(
  rows: { routes: string[]; read_units: number }[],
): { name: string; value: number; budget: string; pass: boolean }[] {
  const units = (route: string) => {
    const row = rows.find((r) => r.routes.includes(route));
    if (!row) throw new Error(`${route} was not measured`);
    return row.read_units;
  };
  const warm = units('UserOfferings');
  const cold = warm + units('ListOfferings');
  return [
    {
      name: 'RRU per launch read of offerings (app settings cached)',
      value: warm,
      budget: `<= ${LAUNCH_READ_BUDGET}`,
      pass: warm <= LAUNCH_READ_BUDGET,
    },
    {
      name: 'RRU per launch read of offerings (app settings read too)',
      value: cold,
      budget: `<= ${LAUNCH_READ_BUDGET}`,
      pass: cold <= LAUNCH_READ_BUDGET,
    },
  ];
}

/** Subscription writes the aggregator's cost is measured on (the last ones the measured requests made). */
const AGGREGATED_WRITES = 40;
/** Measured invocations per handler for the duration (the first, capacity-measured one, is extra). */
const RUNS = 7;
/** Events per request of the event batch endpoint (as in the throughput benchmark). */
const EVENT_BATCH = 100;

// The webhook receiver listens on 127.0.0.1: the local-development opt-in (docs/security.md#webhook-targets).
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
process.env.KEY_CACHE_TTL_SECONDS = '30'; // the default in AWS: a warm function looks a key up once per 30 s

const EXCLUDED = [
  'free tiers',
  'data transfer out',
  'CloudWatch Logs ingestion and storage (the bill of one app counts them), X-Ray traces (tracing is on)',
  "DynamoDB storage (the bill of one app counts the reports'), streams (GetRecords by a Lambda trigger is free), backups",
  'sdk key reads when the 30 s key cache misses (1 RRU, a strongly consistent read, once per key and warm function)',
  'App Store / Google Play API calls and Secrets Manager reads of store credentials (cached 5 min per function)',
  'the scheduled jobs (expiry sweeper, webhook retries: per minute, not per request)',
  'cold starts (init duration)',
  "the PutEvents round trip in the publisher's duration (locally an in-process dispatcher stands in for EventBridge)",
];

// Store notifications (support/notifications.ts): App Store ones signed by the stand-in chain, Google's
// state read from the Google stand-in; both set before lib/ is imported.
trustStandInAppleRoot();
const { startGooglePlayStandIn } = await import('../test/support/google-play-standin.js');
const google = await startGooglePlayStandIn('com.example.subs');
process.env.GOOGLE_OAUTH_TOKEN_URL = google.tokenUrl;
process.env.GOOGLE_PLAY_API_BASE_URL = google.url;
process.env.GOOGLE_OIDC_JWKS_URL = google.jwksUrl;

const dynamo = await startBenchDynamoDb('bench-cost');
try {
  const { measureCapacity } = await import('./support/capacity.js');
  const { itemSize } = await import('./support/item-size.js');
  const { TABLE } = await import('../lib/data/table.js');
  const { reportConfig } = await import('../lib/core/config.js');
  const { logger } = await import('../lib/core/logger.js');
  /** The level this process logs at outside a measured request (startBenchDynamoDb's). */
  const LOG_LEVEL = (process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO') as LogLevel;
  const { dynamodbBusyMs, recordCommands } = await import('./support/commands.js');
  const { invokeOk } = await import('./support/invoke.js');
  const { seedApp } = await import('./support/seed.js');
  const { NOTIFICATION_ROUTES, notificationRenewals } = await import('./support/notifications.js');
  const { countNotificationCommands } = await import('./support/notification-commands.js');
  const { endpointFunctions, ROUTES } = await import('../lib/routes.js');
  const { getApp } = await import('../lib/data/apps.js');
  const { createDelivery, replaceDelivery, setWebhook } = await import('../lib/data/webhooks.js');
  const { putHistoryEntries } = await import('../lib/data/history-items.js');
  const { historyEntryOf } = await import('../lib/domain/history-entries.js');
  const { useLocalBus } = await import('../lib/events/bus.js');
  const { isOutboxInsert, isPublishedRecord, subscriptionEventsOf } = await import('../lib/events/outbox.js');
  const { STATUS_CHANGED } = await import('../lib/events/schemas.js');
  const { newEventId } = await import('../lib/core/ids.js');
  const { grantEntitlement } = await import('../lib/services/grants.js');
  const { pauseSubscription } = await import('../lib/services/subscriptions.js');
  const { verifyPurchase } = await import('../lib/services/verification.js');
  const { mintTestReceipt } = await import('../lib/stores/test-store.js');
  const { mobileHeaders } = await import('../test/support/mobile.js');
  const { seedSubscription } = await import('../test/support/subscriptions.js');
  const { startWebhookReceiver } = await import('../test/support/webhook-receiver.js');

  const app = await seedApp(200);
  const { test_store_private_key: privateKeyPem } = (await getApp(app.appId))!;
  const mint = () =>
    mintTestReceipt({
      appId: app.appId,
      privateKeyPem: privateKeyPem!,
      productId: 'premium_monthly',
      platform: 'ios',
      price: 9.99,
      currency: 'USD',
      expiresInSeconds: 30 * 86_400,
      trial: false,
    });
  const renewals = await notificationRenewals(app, google);
  // Customer info of the returning user: the app's entitlements, and two subscriptions (one ended).
  const { putEntitlements } = await import('../lib/data/entitlements.js');
  await putEntitlements(app.appId, [
    { id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] },
    { id: 'yearly', name: 'Yearly', products: ['pro_yearly'] },
  ]);
  await seedSubscription(app.appId, { user_id: 'returning-user', product_id: 'pro_yearly', status: 'expired' });
  await seedSubscription(app.appId, { user_id: 'returning-user', product_id: 'premium_monthly' });
  // What the app shows, read at every launch.
  const { seedShownSettings } = await import('./support/shown-settings.js');
  await seedShownSettings(app.appId);
  const receiver = await startWebhookReceiver();
  receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);

  let sequence = 0;
  const fresh = (prefix: string) => `${prefix}-${++sequence}`;
  const api = { authorization: `Bearer ${app.secretKey}` };
  /** A returning user of the mobile SDK: their profile exists after the warm-up request. */
  const mobile = mobileHeaders(app, 'returning-user');
  const revenuecat = { authorization: `Bearer ${app.sdkKey}`, 'x-platform': 'iOS' };
  const pathOf = (route: Route, params: Record<string, string>) =>
    route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
  const activeSubscription = async () => (await seedSubscription(app.appId, { user_id: fresh('subscriber') })).id;
  /** A subscription and its history as the aggregator writes it: creation, then `entries - 1` renewals. */
  const subscriptionWithHistory = async (entries: number) => {
    const sub = await activeSubscription();
    const month = 30 * 86_400_000;
    await putHistoryEntries(
      Array.from({ length: entries }, (_, i) => ({
        appId: app.appId,
        subscriptionId: sub,
        entry: historyEntryOf(
          i === 0 ? undefined : { version: i, updated_at: '', expires_at: new Date(month * i).toISOString() },
          {
            version: i + 1,
            updated_at: new Date(month * i).toISOString(),
            expires_at: new Date(month * (i + 1)).toISOString(),
          },
          { by: 'store_notification', action: i === 0 ? 'create' : 'sync', notification: 'DID_RENEW', version: i + 1 },
        )!,
      })),
    );
    return sub;
  };
  /** A webhook delivery whose retries ran out, as the deliverer leaves it. */
  const deadDelivery = async () => {
    const created = await createDelivery(
      {
        app_id: app.appId,
        event_id: newEventId(),
        payload: {
          event: STATUS_CHANGED,
          timestamp: new Date().toISOString(),
          data: {
            subscription_id: await activeSubscription(),
            user_id: 'u',
            old_status: 'active',
            new_status: 'expired',
            expires_at: new Date().toISOString(),
            auto_renew: false,
          },
        },
      },
      new Date(),
    );
    if (!created) throw new Error('a new event was already recorded');
    await replaceDelivery({ ...created, status: 'dead', attempts: 5, next_attempt_at: null }, 0, true);
    return created.event_id;
  };
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

  /** A batch of `count` events of the returning user's session, as an SDK flushes its queue. */
  const eventsRequest = async (route: Route, count: number): Promise<BenchRequest> => {
    const batch = fresh('batch');
    const events = Array.from({ length: count }, (_, i) => ({
      name: 'screen_view',
      user: 'returning-user',
      sessionId: batch,
      eventId: `${batch}.${i}`,
      extra: { screen_name: 'home', i },
    }));
    return { path: route.path, headers: mobile, body: { events } };
  };
  /** One realistic request per handler module; called before every invocation (state it needs is created then). */
  const REQUESTS: Record<string, (route: Route) => Promise<BenchRequest>> = {
    'functions/subscriptions/list.ts': async (route) => ({
      path: route.path,
      headers: api,
      query: { status: 'active' },
    }),
    'functions/subscriptions/create.ts': async (route) => ({
      path: route.path,
      headers: api,
      body: { user_id: fresh('buyer'), product_id: 'premium_monthly', platform: 'ios' },
    }),
    'functions/subscriptions/verify.ts': async (route) => ({
      path: route.path,
      headers: api,
      body: { platform: 'ios', receipt_data: mint().receipt_data, user_id: fresh('buyer') },
    }),
    'functions/subscriptions/revenue.ts': async (route) => ({
      path: route.path,
      headers: api,
      query: { start_date: day(29), end_date: day(0), group_by: 'day' },
    }),
    'functions/subscriptions/metrics.ts': async (route) => ({
      path: route.path,
      headers: api,
      query: { start_date: day(29), end_date: day(0), group_by: 'day' },
    }),
    'functions/subscriptions/products.ts': async (route) => ({ path: route.path, headers: api }),
    'functions/subscriptions/get.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await activeSubscription() }),
      headers: api,
    }),
    // A subscription of a year of monthly renewals (13 entries): its first page.
    'functions/subscriptions/history.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await subscriptionWithHistory(13) }),
      headers: api,
    }),
    'functions/webhooks/deliveries.ts': async (route) => ({
      path: route.path,
      headers: api,
      query: { status: 'dead' },
    }),
    'functions/webhooks/redeliver.ts': async (route) => ({
      path: pathOf(route, { event_id: await deadDelivery() }),
      headers: api,
    }),
    'functions/subscriptions/update.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await activeSubscription() }),
      headers: api,
      body: { auto_renew: false },
    }),
    'functions/subscriptions/cancel.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await activeSubscription() }),
      headers: api,
      body: { reason: 'too expensive' },
    }),
    'functions/subscriptions/renew.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await activeSubscription() }),
      headers: api,
      body: {},
    }),
    'functions/subscriptions/pause.ts': async (route) => ({
      path: pathOf(route, { subscription_id: await activeSubscription() }),
      headers: api,
      body: { pause_duration: 14, unit: 'days' },
    }),
    'functions/subscriptions/resume.ts': async (route) => {
      const id = await activeSubscription();
      await pauseSubscription(app.appId, id, { pause_duration: 14, unit: 'days' });
      return { path: pathOf(route, { subscription_id: id }), headers: api, body: {} };
    },
    'functions/mobile/receipt-verify-first.ts': async (route) => ({
      path: route.path,
      headers: mobileHeaders(app, fresh('buyer')),
      body: { receipt: mint().receipt_data, productId: 'premium_monthly' },
    }),
    'functions/mobile/receipt-verify-recover.ts': async (route) => {
      // A reinstall: the user restores the purchase they made before.
      const user = fresh('buyer');
      const { receipt_data } = mint();
      await verifyPurchase(app.appId, { platform: 'ios', receipt_data, user_id: user });
      return { path: route.path, headers: mobileHeaders(app, user), body: { receipt: receipt_data } };
    },
    'functions/mobile/report-events.ts': async (route) => eventsRequest(route, EVENT_BATCH),
    'functions/mobile/report-session.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { sessionId: fresh('session'), startTime: Date.now() - 300_000, duration: 300 },
    }),
    'functions/mobile/report-order.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { orderId: fresh('order'), productId: 'premium_monthly', price: 9.99, currency: 'USD' },
    }),
    'functions/mobile/report-conversion.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { conversionType: 'signup', value: 1 },
    }),
    'functions/mobile/report-global-switch.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { push_enabled: true, dark_mode: false },
    }),
    'functions/mobile/report-typed.ts': async (route) => ({
      path: pathOf(route, { type: 'device_info' }),
      headers: mobile,
      body: { model: 'iPhone16,2', os: 'iOS 18.1', locale: 'en_US' },
    }),
    'functions/mobile/update-attributes.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { email: 'user@example.com', language: 'en', country: 'US' },
    }),
    'functions/mobile/report-attribution.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { network: 'appsflyer', data: { campaign: 'spring_sale', media_source: 'facebook' } },
    }),
    'functions/mobile/report-search-ads.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: {
        attribution: {
          'Version3.1': { 'iad-attribution': 'true', 'iad-campaign-id': '1234567', 'iad-campaign-name': 'spring' },
        },
      },
    }),
    'functions/mobile/segment-info.ts': async (route) => ({ path: route.path, headers: mobile }),
    // Every app launch: what the user is shown (the app's settings cached by the warm function, as in AWS).
    'functions/mobile/offerings.ts': async (route) => ({ path: route.path, headers: mobile }),
    'functions/subscriptions/offerings.ts': async (route) => ({ path: pathOf(route, {}), headers: api }),
    'functions/subscriptions/customer-offerings.ts': async (route) => ({
      path: pathOf(route, { user_id: 'returning-user' }),
      headers: api,
      query: { platform: 'ios' },
    }),
    // Every app launch (the entitlement definitions cached by the warm function, as in AWS).
    'functions/mobile/customer-info.ts': async (route) => ({ path: route.path, headers: mobile }),
    // RevenueCat's SDKs: a launch reads the customer info; a purchase posts its receipt.
    'functions/revenuecat/subscriber.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
    }),
    'functions/revenuecat/receipts.ts': async (route) => ({
      path: route.path,
      headers: revenuecat,
      body: { app_user_id: fresh('buyer'), fetch_token: mint().receipt_data, is_restore: false },
    }),
    // A promotional offer signed before its purchase (a test-store app: no key, so no signature).
    'functions/revenuecat/offers.ts': async (route) => ({
      path: route.path,
      headers: revenuecat,
      body: {
        app_user_id: 'returning-user',
        generate_offers: [{ offer_id: 'winback', product_id: 'premium_monthly', subscription_group: 'g' }],
      },
    }),
    // isPurchaseAllowedByRestoreBehavior() before a paywall: the device's oldest transaction, nobody's yet.
    'functions/revenuecat/restore-eligibility.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
      body: { fetch_token: mint().receipt_data },
    }),
    // A logIn from a fresh anonymous id: nothing of it to move, the identified user known.
    'functions/revenuecat/identify.ts': async (route) => ({
      path: route.path,
      headers: revenuecat,
      body: {
        app_user_id: `$RCAnonymousID:${randomBytes(16).toString('hex')}`,
        new_app_user_id: 'returning-user',
      },
    }),
    // The attributes the SDK syncs after a change: an email and a display name.
    'functions/revenuecat/attributes.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
      body: {
        attributes: {
          $email: { value: 'user@example.com', updated_at_ms: Date.now() },
          $displayName: { value: 'A user', updated_at_ms: Date.now() },
        },
      },
    }),
    'functions/revenuecat/offerings.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
    }),
    // StoreKit 1's intro eligibility of the products a paywall shows.
    'functions/revenuecat/intro-eligibility.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
      body: { product_identifiers: ['premium_monthly', 'pro_yearly'], fetch_token: 'AQID' },
    }),
    'functions/revenuecat/virtual-currencies.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
    }),
    // A debug build's question at each start, sent without a key.
    'functions/revenuecat/health-report-availability.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: {},
    }),
    // The Customer Center screen, opened from the app's settings.
    'functions/revenuecat/customer-center.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: revenuecat,
    }),
    // PurchasesDiagnostics's check, sent without a key.
    'functions/revenuecat/health.ts': async (route) => ({ path: pathOf(route, {}), headers: {} }),
    // The AdServices token, once per install.
    'functions/revenuecat/attribution.ts': async (route) => ({
      path: pathOf(route, { app_user_id: fresh('installer') }),
      headers: revenuecat,
      body: { aad_attribution_token: 'asdf' },
    }),
    // purchases-js's getOfferings: the web prices of the offerings' products.
    'functions/revenuecat/web-products.ts': async (route) => ({
      path: pathOf(route, { app_user_id: 'returning-user' }),
      headers: { authorization: `Bearer rcb_${app.sdkKey}`, 'x-platform': 'web' },
      query: { id: 'premium_monthly' },
    }),
    'functions/revenuecat/product-entitlement-mapping.ts': async (route) => ({ path: route.path, headers: revenuecat }),
    'functions/revenuecat/remote-config.ts': async (route) => ({
      path: pathOf(route, { domain: 'paywalls' }),
      headers: revenuecat,
      body: {},
    }),
    'functions/revenuecat/events.ts': async (route) => ({
      path: route.path,
      headers: revenuecat,
      body: { events: [{ type: 'paywall_impression', id: fresh('event'), app_user_id: 'returning-user' }] },
    }),
    'functions/subscriptions/customer.ts': async (route) => ({
      path: pathOf(route, { user_id: 'returning-user' }),
      headers: api,
    }),
    // The console's header and webhooks page: the app, its stores and its webhook endpoint.
    'functions/subscriptions/app.ts': async (route) => ({ path: pathOf(route, {}), headers: api }),
    // The console's customer search: the first page of customers whose id starts with what was typed.
    'functions/subscriptions/customers.ts': async (route) => ({
      path: pathOf(route, {}),
      headers: api,
      query: { prefix: 'returning', limit: '20' },
    }),
    // A support gesture: a month more for a user who has a grant running (the warm-up granted it).
    'functions/subscriptions/customer-grant.ts': async (route) => ({
      path: pathOf(route, { user_id: 'gifted-user', entitlement_id: 'pro' }),
      headers: api,
      body: { duration: 'P1M' },
    }),
    // A user with a profile, a grant, a session, a few events and a subscription: erased in one request.
    'functions/subscriptions/customer-delete.ts': async (route) => {
      const user = fresh('leaving');
      await grantEntitlement(app.appId, user, 'pro', { duration: 'P1M' });
      await seedSubscription(app.appId, { user_id: user });
      await invokeOk(ROUTES.find((r) => r.name === 'ReportEvents')!, {
        path: '/users/report/events',
        headers: mobileHeaders(app, user),
        body: { events: [1, 2, 3].map((n) => ({ eventName: `screen_${n}`, timestamp: Date.now() })) },
      });
      return { path: pathOf(route, { user_id: user }), headers: api };
    },
    'functions/subscriptions/customer-revoke.ts': async (route) => {
      const user = fresh('gifted');
      await grantEntitlement(app.appId, user, 'pro', { duration: 'P1M' });
      return { path: pathOf(route, { user_id: user, entitlement_id: 'pro' }), headers: api };
    },
    'functions/mobile/ads-info.ts': async (route) => ({
      path: pathOf(route, { platform: 'ios', app_id: app.appId, store_id: '1234567' }),
      headers: mobile,
    }),
    'functions/mobile/set-custom-properties.ts': async (route) => ({
      path: route.path,
      headers: mobile,
      body: { properties: { plan_tier: 'gold' } },
    }),
    // The renewal of a subscription verified a month ago (support/notifications.ts).
    'functions/notifications/app-store.ts': () => renewals.AppStoreNotification(),
    'functions/notifications/google-play.ts': () => renewals.GooglePlayNotification(),
    'functions/notifications/test-store.ts': () => renewals.TestStoreNotification(),
  };

  /** The stream records of the recorded writes that announce events (each event is one notification). */
  const announcingRecords = (commands: RecordedCommand[]): DynamoDBRecord[] =>
    commands
      .flatMap(({ name, input }) =>
        name === 'TransactWriteItemsCommand'
          ? (input as { TransactItems: { Put?: { Item: Record<string, AttributeValue> } }[] }).TransactItems.flatMap(
              ({ Put }) => (Put ? [Put.Item] : []),
            )
          : [],
      )
      .map(
        (item) =>
          ({
            eventName: 'INSERT',
            dynamodb: { Keys: { pk: item.pk, sk: item.sk }, NewImage: item, SequenceNumber: '1' },
          }) as DynamoDBRecord,
      )
      .filter(isPublishedRecord);
  const eventsOf = (record: DynamoDBRecord) =>
    isOutboxInsert(record)
      ? [unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>) as BusEventDetail]
      : subscriptionEventsOf(record);

  /**
   * Median duration of RUNS invocations (each on a freshly prepared input), the part of it spent
   * waiting on DynamoDB Local, and the heap growth of an invocation.
   */
  async function timeInvocations(
    invoke: () => Promise<unknown>,
  ): Promise<{ ms: number; dynamodbMs: number; cpuMs: number; heapKb: number }> {
    const runs: { ms: number; dynamodbMs: number; cpuMs: number; heapKb: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const heap = process.memoryUsage().heapUsed;
      const busy = dynamodbBusyMs();
      const cpu = process.cpuUsage();
      const started = performance.now();
      await invoke();
      const { user, system } = process.cpuUsage(cpu);
      runs.push({
        ms: performance.now() - started,
        dynamodbMs: dynamodbBusyMs() - busy,
        cpuMs: (user + system) / 1000,
        heapKb: (process.memoryUsage().heapUsed - heap) / 1024,
      });
    }
    return {
      ms: median(runs.map((r) => r.ms)),
      dynamodbMs: median(runs.map((r) => r.dynamodbMs)),
      cpuMs: median(runs.map((r) => r.cpuMs)),
      heapKb: median(runs.map((r) => r.heapKb)),
    };
  }

  /** What our logger writes while `work` runs, at the level the stack deploys (INFO, the default). */
  async function loggedBytes<T>(work: () => Promise<T>): Promise<{ bytes: number; result: T }> {
    let bytes = 0;
    const streams = [process.stdout, process.stderr] as const;
    const writes = streams.map((stream) => stream.write);
    logger.setLogLevel('INFO');
    for (const stream of streams)
      stream.write = ((chunk: string | Uint8Array) => {
        bytes += Buffer.byteLength(chunk);
        return true;
      }) as typeof stream.write;
    try {
      const result = await work();
      return { bytes, result };
    } finally {
      streams.forEach((stream, i) => {
        stream.write = writes[i]!;
      });
      logger.setLogLevel(LOG_LEVEL);
    }
  }
  /** The items the recorded writes put that expire (reports), and their size as DynamoDB counts it. */
  const expiringWrites = (commands: RecordedCommand[]) => {
    const items = commands
      .flatMap(({ name, input }): Record<string, AttributeValue>[] => {
        const given = input as any;
        if (name === 'PutItemCommand') return [given.Item];
        if (name === 'BatchWriteItemCommand')
          return Object.values(given.RequestItems as Record<string, { PutRequest?: { Item: any } }[]>)
            .flat()
            .flatMap((request) => (request.PutRequest ? [request.PutRequest.Item] : []));
        if (name === 'TransactWriteItemsCommand')
          return (given.TransactItems as { Put?: { Item: any } }[]).flatMap(({ Put }) => (Put ? [Put.Item] : []));
        return [];
      })
      .filter((item) => item[TABLE.ttlAttribute] !== undefined);
    return { items: items.length, bytes: items.reduce((sum, item) => sum + itemSize(item), 0) };
  };
  /** A request measured as the table's rows are: units, log bytes, expiring items, and the commands it sent. */
  const measureRequest = async (route: Route, request: BenchRequest) => {
    const { bytes, result: measured } = await loggedBytes(() =>
      measureCapacity(() => recordCommands(() => invokeOk(route, request))),
    );
    const expiring = expiringWrites(measured.result.commands);
    return { ...measured, log_bytes: bytes, expiring_items: expiring.items, expiring_bytes: expiring.bytes };
  };

  // Every deployed function, measured once through its first route: one row for all its routes.
  const measured = [];
  const notifications: DynamoDBRecord[] = [];
  /** Issue #14: what processing one renewal notification asks of DynamoDB, per notification route. */
  const storeNotificationCommands: Record<string, ReturnType<typeof countNotificationCommands>> = {};
  for (const { handler, routes } of endpointFunctions()) {
    const route = routes[0]!;
    const build = REQUESTS[handler];
    if (!build) throw new Error(`no realistic request for ${handler}: add one to bench/cost-model.ts`);
    await invokeOk(route, await build(route)); // warm: module loaded, key cached, profile created
    const request = await build(route);
    const { read, write, reported, counters, indexes, items, result, log_bytes, expiring_items, expiring_bytes } =
      await measureRequest(route, request);
    const announcing = announcingRecords(result.commands);
    notifications.push(...announcing);
    const announced = announcing.flatMap(eventsOf).length;
    // A 204 (RevenueCat's remote config) has no body.
    const outcome = result.result.body
      ? (JSON.parse(result.result.body) as { data?: { outcome?: string } }).data?.outcome
      : undefined;
    if ((NOTIFICATION_ROUTES as readonly string[]).includes(route.name)) {
      if (outcome !== 'applied') throw new Error(`${route.name}: the renewal was ${outcome}, not applied`);
      storeNotificationCommands[route.name] = countNotificationCommands(result.commands);
    }
    const prepared: BenchRequest[] = [];
    for (let run = 0; run < RUNS; run++) prepared.push(await build(route));
    const { ms, dynamodbMs, cpuMs, heapKb } = await timeInvocations(() => invokeOk(route, prepared.shift()!));
    measured.push({
      endpoint: routes.map((r) => `${r.method} ${r.path}`).join(', '),
      routes: routes.map((r) => r.name),
      operations: result.commands.map(({ name }) => name.replace(/Command$/, '')),
      read_units: read,
      write_units: write,
      index_write_units: indexes,
      counter_write_units: counters,
      /** Items written by transactions: kind, size, table + index write units. */
      transaction_items: items,
      reported_units: reported,
      status_changes: announced,
      log_bytes,
      expiring_items,
      expiring_bytes,
      handler_ms: round(ms, 1),
      waiting_on_dynamodb_ms: round(dynamodbMs, 1),
      /** This process's CPU time while the handler ran (the DynamoDB client's included, DynamoDB Local's not). */
      handler_cpu_ms: round(cpuMs, 1),
      heap_delta_kb: round(heapKb, 0),
    });
    console.log(
      `${route.name.padEnd(22)} ${String(read).padStart(5)} RRU ${String(write).padStart(5)} WRU (indexes ${indexes}, counters ${counters})  ${ms.toFixed(1).padStart(6)} ms (${dynamodbMs.toFixed(1)} on DynamoDB Local)  ${announced} status change(s)`,
    );
  }

  // The bill's event batches lie on the line from one event to EVENT_BATCH (support/monthly-bill.ts).
  const eventsRoute = endpointFunctions().find((fn) => fn.handler === 'functions/mobile/report-events.ts')!.routes[0]!;
  // Warm, as the batch's row: the request before it leaves no quota read or flush due (one per 5 s).
  await invokeOk(eventsRoute, await eventsRequest(eventsRoute, 1));
  const one = await measureRequest(eventsRoute, await eventsRequest(eventsRoute, 1));
  const ones: BenchRequest[] = [];
  for (let run = 0; run < RUNS; run++) ones.push(await eventsRequest(eventsRoute, 1));
  const oneTime = await timeInvocations(() => invokeOk(eventsRoute, ones.shift()!));
  const eventsOfOne = {
    read_units: one.read,
    write_units: one.write,
    handler_ms: round(oneTime.ms, 1),
    waiting_on_dynamodb_ms: round(oneTime.dynamodbMs, 1),
    handler_cpu_ms: round(oneTime.cpuMs, 1),
    operations: one.result.commands.map(({ name }) => name.replace(/Command$/, '')),
    status_changes: 0,
    log_bytes: one.log_bytes,
    expiring_items: one.expiring_items,
    expiring_bytes: one.expiring_bytes,
  };
  console.log(
    `${'ReportEvents (1 event)'.padEnd(22)} ${String(one.read).padStart(5)} RRU ${String(one.write).padStart(5)} WRU  ${oneTime.ms.toFixed(1).padStart(6)} ms`,
  );

  // Issue #39: the DingYue SDK's launch, its session written and what the user is shown read, in one request.
  const dingyueRoute = ROUTES.find((r) => r.name === 'DingYueReportSession')!;
  const dingyueLaunch = (): BenchRequest => ({
    path: dingyueRoute.path,
    headers: mobile,
    body: { osVersion: 'iOS 17.5', appVersion: '1.2.0', device: 'iPhone15,2', area: 'US', language: 'en-US' },
  });
  await invokeOk(dingyueRoute, dingyueLaunch());
  const dingyue = await measureRequest(dingyueRoute, dingyueLaunch());
  const dingyueLaunchRead = {
    read_units: dingyue.read,
    write_units: dingyue.write,
    operations: dingyue.result.commands.map(({ name }) => name.replace(/Command$/, '')),
  };
  console.log(
    `${'DingYueReportSession'.padEnd(22)} ${String(dingyue.read).padStart(5)} RRU ${String(dingyue.write).padStart(5)} WRU  ${dingyueLaunchRead.operations.join(', ')}`,
  );

  // What one status change costs downstream: the stream publisher, the bus, the webhook deliverer.
  const template = notifications[0];
  if (!template) throw new Error('no measured request changed a status: the notification path cannot be measured');
  const { app_id, payload } = eventsOf(template)[0]!;
  const { handler: publisher } = await import('../functions/events/publish-status-changes.js');
  const { handler: deliverWebhook } = await import('../functions/events/deliver-webhook.js');
  const { lambdaContext } = await import('../local/lambda-context.js');
  const { WEBHOOK_DELIVERER_TIMEOUT_SECONDS } = await import('../lib/domain/webhook-retry.js');
  const deliverer = (event: EventBridgeEvent<typeof STATUS_CHANGED, unknown>) =>
    deliverWebhook(event, lambdaContext('DeliverWebhook', 'bench', WEBHOOK_DELIVERER_TIMEOUT_SECONDS * 1000));
  // Locally there is no EventBridge: a dispatcher that accepts every event stands in for PutEvents.
  useLocalBus(async () => []);
  const streamEvent = (): DynamoDBStreamEvent => ({ Records: [template] });
  // Each delivery is of a new event: a delivery is recorded once per event id.
  const busEvent = () =>
    ({ 'detail-type': STATUS_CHANGED, detail: { app_id, event_id: newEventId(), payload } }) as EventBridgeEvent<
      typeof STATUS_CHANGED,
      unknown
    >;
  await publisher(streamEvent());
  await deliverer(busEvent());
  const publisherTime = await timeInvocations(() => publisher(streamEvent()));
  const deliveryCapacity = await measureCapacity(() => deliverer(busEvent()));
  const delivererTime = await timeInvocations(() => deliverer(busEvent()));
  await receiver.close();
  const perNotification = {
    publisher_ms: round(publisherTime.ms, 1),
    deliverer_ms: round(delivererTime.ms, 1),
    deliverer_read_units: deliveryCapacity.read,
    deliverer_write_units: deliveryCapacity.write,
    usd:
      PRICES.eventBridgeCustomEvent.usd +
      2 * PRICES.lambdaRequest.usd +
      lambdaDurationUsd(publisherTime.ms) +
      lambdaDurationUsd(delivererTime.ms) +
      deliveryCapacity.read * PRICES.dynamodbReadRequestUnit.usd +
      deliveryCapacity.write * PRICES.dynamodbWriteRequestUnit.usd,
  };
  console.log(
    `per status change: publisher ${perNotification.publisher_ms} ms, deliverer ${perNotification.deliverer_ms} ms and ${deliveryCapacity.read} RRU / ${deliveryCapacity.write} WRU, 1 EventBridge event`,
  );

  // What the aggregator writes per subscription write it counts (the list counts, the revenue
  // and metrics counters): alone in its stream batch, as at an app with one change a second, and batched.
  const { readTableStream } = await import('../test/support/table-stream.js');
  const { aggregateRecords, contributionsOf, isSubscriptionRecord } = await import('../lib/events/aggregator.js');
  const subscriptionWrites: DynamoDBRecord[] = [];
  await readTableStream((_shard, records) => {
    subscriptionWrites.push(...(records as unknown as DynamoDBRecord[]).filter(isSubscriptionRecord));
  });
  const counted = subscriptionWrites.filter((record) => contributionsOf(record).length > 0).slice(-AGGREGATED_WRITES);
  const alone = await measureCapacity(async () => {
    for (const record of counted) await aggregateRecords('cost-model-alone', [record]);
  });
  const batched = await measureCapacity(() => aggregateRecords('cost-model-batched', counted));
  // Of those, the subscription's history: one entry per change, in the same batch write whatever the batch.
  const { historyOf } = await import('../lib/events/aggregator.js');
  const history = await measureCapacity(() => putHistoryEntries(counted.flatMap((record) => historyOf(record) ?? [])));
  const aggregator = {
    writes: counted.length,
    write_units_per_write_alone: round(alone.write / counted.length, 2),
    write_units_per_write_batched: round(batched.write / counted.length, 2),
    history_write_units_per_write: round(history.write / counted.length, 2),
  };
  console.log(
    `aggregator, per counted subscription write: ${aggregator.write_units_per_write_alone} WRU alone in its batch, ` +
      `${aggregator.write_units_per_write_batched} WRU in a batch of ${counted.length}; ` +
      `of which its history entry: ${aggregator.history_write_units_per_write} WRU`,
  );

  const rows = measured.map((figures) => {
    const usd = {
      api_gateway: PRICES.apiGatewayRestRequest.usd,
      lambda: PRICES.lambdaRequest.usd + lambdaDurationUsd(figures.handler_ms),
      dynamodb:
        figures.read_units * PRICES.dynamodbReadRequestUnit.usd +
        figures.write_units * PRICES.dynamodbWriteRequestUnit.usd,
      notifications: figures.status_changes * perNotification.usd,
    };
    const total = usd.api_gateway + usd.lambda + usd.dynamodb + usd.notifications;
    const perMillion = Object.fromEntries(
      Object.entries({ ...usd, total }).map(([part, value]) => [part, round(value * 1e6, 3)]),
    );
    return { ...figures, usd_per_million_requests: perMillion };
  });

  console.log(
    '\n| endpoint | RRU | WRU | handler ms (on DynamoDB Local) | heap Δ KB | status changes | API Gateway | Lambda | DynamoDB | notifications | $ per million requests |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const usd = row.usd_per_million_requests;
    console.log(
      `| ${row.endpoint} | ${row.read_units} | ${row.write_units} | ${row.handler_ms} (${row.waiting_on_dynamodb_ms}) | ${row.heap_delta_kb} | ${row.status_changes} | ` +
        `${usd.api_gateway} | ${usd.lambda} | ${usd.dynamodb} | ${usd.notifications} | **${usd.total}** |`,
    );
  }
  writeResults(
    'cost-model',
    {
      prices: PRICES,
      lambda_memory_gb: LAMBDA_MEMORY_GB,
      runs_per_handler: RUNS,
      event_batch: EVENT_BATCH,
      events_of_one: eventsOfOne,
      dingyue_launch: dingyueLaunchRead,
      event_retention_days: reportConfig.eventRetentionDays,
      per_status_change: { ...perNotification, usd: round(perNotification.usd * 1e6, 3) },
      aggregator,
      process_rss_mb: round(process.memoryUsage().rss / 1_048_576, 0),
      excluded: EXCLUDED,
      endpoints: rows,
      store_notification_commands: storeNotificationCommands,
    },
    [
      ...Object.entries(storeNotificationCommands).flatMap(([name, counted]) => [
        {
          name: `${name}: reads of the purchase per renewal notification`,
          value: counted.purchase_reads,
          budget: '<= 1',
          pass: counted.purchase_reads <= 1,
        },
        {
          name: `${name}: transactions per renewal notification`,
          value: counted.transactions,
          budget: '= 1 (no other write)',
          pass: counted.transactions === 1 && counted.other_writes === 0,
        },
      ]),
      ...subscriptionWriteBudgets(rows),
      ...launchReadBudgets(rows),
      {
        name: 'RRU per DingYue SDK launch (its session and what the user is shown; app settings cached)',
        value: dingyueLaunchRead.read_units,
        budget: `<= ${LAUNCH_READ_BUDGET}`,
        pass: dingyueLaunchRead.read_units <= LAUNCH_READ_BUDGET,
      },
      {
        name: 'routes priced (every route of lib/routes.ts)',
        value: rows.reduce((n, row) => n + row.routes.length, 0),
        budget: `= ${ROUTES.length}`,
        pass: rows.reduce((n, row) => n + row.routes.length, 0) === ROUTES.length,
      },
    ],
  );
  const results = JSON.parse(readFileSync(new URL('results/cost-model.json', import.meta.url), 'utf8'));
  console.log(`\n${billText(monthlyBill(billInputsOf(results.figures), traffic)).join('\n')}`);
} finally {
  await dynamo.stop();
  await google.close();
}
