/**
 * Issue #15 (2): one hot app. `npm run bench:hot-app [-- --quick]`, in two parts, because a
 * two-core machine running DynamoDB Local cannot carry 1,000 writes per second itself.
 *
 * Real run: concurrent subscription changes of ONE app (verifications through the API with test
 * store receipts, renewals, cancellations now and at the period's end, test-store renewal
 * notifications; each change on its own subscription of an app seeded with many) are sent
 * in-process to the route handlers, with lib/ pointed at the conflict proxy
 * (test/support/dynamodb-conflict-proxy.ts: DynamoDB's transaction conflicts and per-item
 * throughput, a transaction holding its items `--hold-ms` (15) ms), at 8, 16, 32 and 64 writers.
 * Per level: changes/s, p50/p99 latency, the proxy's conflicts and how many of them a later write
 * of the same item retried successfully, client-visible errors (any non-2xx, or a notification not
 * applied). Then the figures: the list counts (COUNT#<app>) must equal a recount from a
 * consistent Scan of the app's subscriptions (lib/data/list-counters.ts countCells), and the
 * revenue items (REV#<app>#<month>) their value before the run plus, for every change the table
 * shows applied (its subscription's version moved, or the verified subscription exists), the delta
 * lib/domain/revenue-figures.ts gives for it. Counters may trail the writes (a stream consumer may keep
 * them): they are polled until equal, up to SETTLE_MS, and the lag is reported. The aggregator
 * keeps them from the table's stream (lib/events/aggregator.ts): after the profiles are taken, the
 * local runtime's poller of that consumer runs in this process, as `npm start` runs it.
 *
 * Simulation (bench/support/hot-app-simulation.ts): each kind of change is run alone, twice, and
 * the proxy's record of its writes is its profile; items both instances touched that hold none of
 * their ids are the app's shared items, the others get fresh ids per simulated change. The profiles
 * are replayed at 1,000 and 10,000 changes/s of one app, by the mix's weights, with the conflict
 * and 1,000 WCU/s per item rules and the same transaction time.
 *
 * backgroundWritersAt is the simulation's other input: writes made by no request. The aggregator
 * writes each counter item it touches once per stream batch: with a 1 s batching window, once a
 * second per stream shard, whatever the request rate. A table stream has a shard per table
 * partition, and a partition takes 1,000 WCU/s, so the shards at a rate are the write units the
 * requests need per second over 1,000 (at least 1). Each counter item also keeps a marker per
 * shard (about 75 bytes), so its size, and the units of each write, grow with the shards.
 */

import type { SubscriptionRecord } from '../lib/data/subscription-items.js';
import type { RevenueDelta } from '../lib/domain/revenue-figures.js';
import { type RecordedOperation, startConflictProxy } from '../test/support/dynamodb-conflict-proxy.js';
import {
  type BackgroundWriter,
  type ChangeProfile,
  DEFAULT_SIMULATION,
  type SimulationResult,
  sharedItems,
  simulate,
} from './support/hot-app-simulation.js';
import type { BenchRequest } from './support/invoke.js';
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { round, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

/**
 * Requests one secret key carries per second at most. Its rate-limit counter is on the key's
 * item, one write per request counted (an instance that knows the window is spent refuses
 * without writing), and an item takes 1,000 WCU/s: an app's backend that sends more requests
 * spreads them over several secret keys, each with its own counter and limit (docs/capacity.md).
 */
const REQUESTS_PER_SECRET_KEY = 400;
/** Secret keys the simulated app's backend uses at a rate: its subscription-API share over REQUESTS_PER_SECRET_KEY. */
const secretKeysAt = (changesPerSecond: number): number =>
  Math.max(
    1,
    Math.ceil(
      (changesPerSecond * KINDS.filter((k) => k !== 'store renewal notification').reduce((sum, k) => sum + MIX[k], 0)) /
        KINDS.reduce((sum, k) => sum + MIX[k], 0) /
        REQUESTS_PER_SECRET_KEY,
    ),
  );
/** Bytes of one shard's marker on a counter item: `applied#shardId-<20 digits>-<8 hex>` and its value. */
const MARKER_BYTES = 75;
/** The aggregator's writes at a request rate (see the header); each item as `pk|sk`, the app id written `<app>`. */
function backgroundWritersAt(
  changesPerSecond: number,
  requestUnitsPerChange: number,
  counterItems: { item: string; bytes: number }[],
): BackgroundWriter[] {
  const shards = Math.max(1, Math.ceil((changesPerSecond * requestUnitsPerChange) / 1000));
  return counterItems.map(({ item, bytes }) => ({
    name: `aggregator: ${item}`,
    items: [item],
    flushesPerSecond: shards,
    writeUnits: Math.ceil((bytes + shards * MARKER_BYTES) / 1024),
  }));
}

const { values: flags, refuse } = benchArguments(
  `Usage: npm run bench:hot-app [-- [--quick] [--hold-ms N]]

One app's subscriptions changing at once through the conflict proxy at 8 to 64 writers, then a
simulation at 1,000 and 10,000 changes/s; writes bench/results/hot-app.json and exits 1 when a
budget fails.
  --quick       two short levels (8 and 32 writers, 48 changes each)
  --hold-ms N   how long a transaction holds its items, ms (default 15)`,
  { quick: { type: 'boolean', default: false }, 'hold-ms': { type: 'string', default: '15' } },
);
const HOLD_MS = Number(flags['hold-ms']);
if (!Number.isFinite(HOLD_MS) || HOLD_MS < 0)
  refuse(`--hold-ms must be a number of at least 0, got "${flags['hold-ms']}"`);
const LEVELS = flags.quick ? [8, 32] : [8, 16, 32, 64];
const changesAt = (writers: number) => (flags.quick ? 48 : Math.max(160, 4 * writers));
/** How long the counters may take to equal the recount after a level. */
const SETTLE_MS = 15_000;
const SEEDED = 1000;
const SIMULATED_RATES = [1000, 10_000];
const SIMULATED_SECONDS = 10;
const PRODUCT = 'premium_monthly';
const PRICE = 9.99;
const DAY_MS = 86_400_000;

/** The mix of changes, by weight. */
const MIX = {
  verification: 30,
  renewal: 25,
  'cancel now': 10,
  'cancel at period end': 10,
  'store renewal notification': 25,
} as const;
type Kind = keyof typeof MIX;
const KINDS = Object.keys(MIX) as Kind[];

// The handlers log every 503 at ERROR; the bench counts them itself.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const dynamo = await startBenchDynamoDb('bench-hot-app');
const proxy = await startConflictProxy({ target: dynamo.endpoint, transactionHoldMs: HOLD_MS });
// lib/ reads DYNAMODB_ENDPOINT once, when first imported: every lib/ call below goes through the proxy.
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
try {
  const { dynamodb } = await import('../lib/data/client.js');
  const keys = await import('../lib/data/entity-keys.js');
  const { listCountsPartition } = await import('../lib/data/table-keys.js');
  const { countCells } = await import('../lib/data/list-counters.js');
  const { AGGREGATOR, startStreamPoller } = await import('../local/stream-poller.js');
  const { facetValuesOf } = await import('../lib/data/subscription-items.js');
  const { scanSubscriptions: scanAppSubscriptions } = await import('../lib/data/subscription-queries.js');
  const { queryAll } = await import('../lib/data/query.js');
  const { getApp } = await import('../lib/data/apps.js');
  const { revenueDelta } = await import('../lib/domain/revenue-figures.js');
  const { countsAsRevenue } = await import('../lib/domain/store-sync.js');
  const { notificationPath } = await import('../lib/routes.js');
  const { verifyPurchase } = await import('../lib/services/verification.js');
  const { mintTestReceipt } = await import('../lib/stores/test-store.js');
  const { mintTestNotification } = await import('../lib/stores/test-store-notifications.js');
  const { invoke, routeNamed } = await import('./support/invoke.js');
  const { seedApp } = await import('./support/seed.js');

  const app = await seedApp(SEEDED);
  const privateKeyPem = (await getApp(app.appId))!.test_store_private_key!;
  const api = { authorization: `Bearer ${app.secretKey}` };
  /** An item as the simulation and the results name it: the app's id and its secret key's hash left out. */
  const itemId = (key: Record<string, string>) =>
    `${key.pk}|${key.sk}`.replaceAll(app.appId, '<app>').replace(/^APIKEY#[0-9a-f]{64}\|/, 'APIKEY#<secret key hash>|');

  /** Every subscription of the app, read consistently from the table itself (not an index). */
  async function scanSubscriptions(): Promise<Map<string, SubscriptionRecord>> {
    const records = new Map<string, SubscriptionRecord>();
    for await (const page of scanAppSubscriptions(app.appId)) for (const record of page) records.set(record.id, record);
    return records;
  }
  const queryPartition = (pk: string) =>
    queryAll({ ConsistentRead: true, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });

  // Subscriptions seeded active, to renew and cancel, each once; the profiles take iOS monthly ones
  // so that two instances of a kind touch the same counters.
  const seeded = [...(await scanSubscriptions()).values()].filter((r) => r.status === 'active');
  const profileTargets = seeded.filter((r) => r.product_id === PRODUCT && r.platform === 'ios').slice(0, 6);
  const targets = seeded.filter((r) => !profileTargets.includes(r));
  const takeTarget = (forProfile: boolean) => {
    const target = (forProfile ? profileTargets : targets).shift();
    if (!target) throw new Error('out of seeded active subscriptions: seed more');
    return target;
  };

  let sequence = 0;
  const fresh = (prefix: string) => `hot-${prefix}-${++sequence}`;

  /** A change ready to send: its route and request, and what the table will show of it. */
  interface Change {
    kind: Kind;
    route: string;
    request: BenchRequest;
    /** The subscription it changes; a verification's is found by its user. */
    subscriptionId?: string;
    userId: string;
    /** Ids that are this change's own (to classify the items it touches). */
    ownIds: string[];
  }

  /** Purchases verified to prepare notifications: changes too, whose revenue the figures must show. */
  const preparedVerifications: Change[] = [];

  /** Prepares a change of this kind (a notification's purchase is verified now, outside what is measured). */
  async function prepare(kind: Kind, forProfile = false): Promise<Change> {
    if (kind === 'verification') {
      const userId = fresh('buyer');
      const { receipt_data, transaction_id } = mintTestReceipt({
        appId: app.appId,
        privateKeyPem,
        productId: PRODUCT,
        platform: 'ios',
        price: PRICE,
        currency: 'USD',
        expiresInSeconds: 30 * 86_400,
        trial: false,
      });
      return {
        kind,
        route: 'VerifyPurchase',
        request: {
          path: routeNamed('VerifyPurchase').path,
          headers: api,
          body: { platform: 'ios', receipt_data, user_id: userId },
        },
        userId,
        ownIds: [userId, transaction_id],
      };
    }
    if (kind === 'store renewal notification') {
      const userId = fresh('notified');
      const purchaseDate = new Date(Date.now() - 30 * DAY_MS + 60_000);
      const latest = {
        transactionId: '',
        originalTransactionId: '',
        productId: PRODUCT,
        platform: 'ios' as const,
        purchaseDate,
        expiresDate: new Date(purchaseDate.getTime() + 30 * DAY_MS),
        price: PRICE,
        currency: 'USD',
        trial: false,
      };
      const { receipt_data, transaction_id } = mintTestReceipt({
        appId: app.appId,
        privateKeyPem,
        productId: PRODUCT,
        platform: 'ios',
        price: PRICE,
        currency: 'USD',
        expiresInSeconds: 30 * 86_400,
        trial: false,
        now: purchaseDate,
      });
      const verified = await verifyPurchase(app.appId, { platform: 'ios', receipt_data, user_id: userId });
      if (verified.verification_status !== 'valid')
        throw new Error(`purchase not verified: ${JSON.stringify(verified)}`);
      preparedVerifications.push({
        kind: 'verification',
        route: 'VerifyPurchase',
        request: { path: '' },
        userId,
        ownIds: [],
      });
      const body = mintTestNotification({
        appId: app.appId,
        privateKeyPem,
        type: 'renewed',
        latest: { ...latest, transactionId: transaction_id, originalTransactionId: transaction_id },
        autoRenew: true,
      });
      return {
        kind,
        route: 'TestStoreNotification',
        request: { path: notificationPath('test_store', app.appId), body },
        subscriptionId: verified.subscription_id,
        userId,
        ownIds: [userId, verified.subscription_id, transaction_id],
      };
    }
    const target = takeTarget(forProfile);
    const body =
      kind === 'renewal'
        ? {}
        : kind === 'cancel now'
          ? { reason: 'too expensive', immediate: true }
          : { reason: 'too expensive' };
    const route = kind === 'renewal' ? 'RenewSubscription' : 'CancelSubscription';
    return {
      kind,
      route,
      request: { path: routeNamed(route).path.replace('{subscription_id}', target.id), headers: api, body },
      subscriptionId: target.id,
      userId: target.user_id,
      ownIds: [target.id, target.user_id],
    };
  }

  interface Sent {
    change: Change;
    status: number;
    ms: number;
    /** Non-2xx, or a notification the handler did not apply. */
    error?: string;
  }
  async function send(change: Change): Promise<Sent> {
    const started = performance.now();
    const result = await invoke(routeNamed(change.route), change.request);
    const ms = performance.now() - started;
    const body = JSON.parse(result.body || '{}') as { data?: { outcome?: string }; error?: { code?: string } };
    if (result.statusCode < 200 || result.statusCode >= 300)
      return { change, status: result.statusCode, ms, error: `${result.statusCode} ${body.error?.code ?? ''}`.trim() };
    if (change.route === 'TestStoreNotification' && body.data?.outcome !== 'applied')
      return { change, status: result.statusCode, ms, error: `notification ${body.data?.outcome}` };
    return { change, status: result.statusCode, ms };
  }

  // The revenue the app's items must show: what they held after seeding, plus every applied change's delta.
  type Figures = RevenueDelta;
  const FIELDS = ['amount_micros', 'new_subscriptions', 'renewals', 'refunds', 'net_active'] as const;
  const month = () => new Date().toISOString().slice(0, 7);
  const revenueMonths = new Set([month()]);
  const expectedRevenue = new Map<string, Figures>();
  const readRevenue = async () => {
    const stored = new Map<string, Figures>();
    for (const m of revenueMonths)
      for (const item of await queryPartition(keys.revenueMonth(app.appId, m)))
        stored.set(
          `${item.pk}|${item.sk}`,
          Object.fromEntries(FIELDS.map((f) => [f, Number(item[f] ?? 0)])) as unknown as Figures,
        );
    return stored;
  };
  for (const [key, figures] of await readRevenue()) expectedRevenue.set(key, figures);

  /** Adds to expectedRevenue what each applied change moved, by comparing the table before and after. */
  function addAppliedRevenue(
    changes: Change[],
    before: Map<string, SubscriptionRecord>,
    after: Map<string, SubscriptionRecord>,
  ) {
    const byUser = new Map([...after.values()].map((r) => [r.user_id, r]));
    let applied = 0;
    for (const change of changes) {
      const now = change.subscriptionId ? after.get(change.subscriptionId) : byUser.get(change.userId);
      const was = change.subscriptionId ? before.get(change.subscriptionId) : undefined;
      if (!now || (was && now.version === was.version)) continue;
      applied++;
      const from = was ?? { ...now, status: 'pending_verification' as const };
      if (!countsAsRevenue(from.environment)) continue;
      const delta = revenueDelta({
        operation: change.kind === 'verification' ? 'activate' : change.kind.startsWith('cancel') ? 'cancel' : 'renew',
        refund: false,
        refundReversed: false,
        statusBefore: from.status,
        statusAfter: now.status,
        price: from.price,
        trial: from.trial_period,
        trialExpiresAt: from.trial_expires_at,
        expiresAtBefore: from.expires_at,
      });
      if (!delta) continue;
      const day = now.updated_at.slice(0, 10);
      revenueMonths.add(day.slice(0, 7));
      const key = keys.revenue(app.appId, day, now.product_id, now.currency);
      const id = `${key.pk}|${key.sk}`;
      const total = expectedRevenue.get(id) ?? {
        amount_micros: 0,
        new_subscriptions: 0,
        renewals: 0,
        refunds: 0,
        net_active: 0,
      };
      for (const field of FIELDS) total[field] += delta[field];
      expectedRevenue.set(id, total);
    }
    return applied;
  }

  /** Polls the counters and revenue items until they equal the recount, or SETTLE_MS passes. */
  async function checkFigures(subscriptions: Map<string, SubscriptionRecord>) {
    const recount = new Map<string, number>();
    for (const record of subscriptions.values())
      for (const { key, attribute } of countCells(app.appId, facetValuesOf(record)))
        recount.set(`${key.pk}|${key.sk} ${attribute}`, (recount.get(`${key.pk}|${key.sk} ${attribute}`) ?? 0) + 1);
    const started = performance.now();
    for (;;) {
      const mismatches: string[] = [];
      const counters = new Map<string, number>(
        (await queryPartition(listCountsPartition(app.appId))).flatMap((item) =>
          Object.entries(item)
            .filter(([attribute]) => attribute.startsWith('count#'))
            .map(([attribute, count]) => [`${item.pk}|${item.sk} ${attribute}`, Number(count)] as const),
        ),
      );
      for (const id of new Set([...recount.keys(), ...counters.keys()])) {
        if ((counters.get(id) ?? 0) !== (recount.get(id) ?? 0))
          mismatches.push(
            `${id.replaceAll(app.appId, '<app>')}: ${counters.get(id) ?? 0}, recount ${recount.get(id) ?? 0}`,
          );
      }
      const revenue = await readRevenue();
      for (const id of new Set([...expectedRevenue.keys(), ...revenue.keys()])) {
        for (const field of FIELDS) {
          const [stored, expected] = [revenue.get(id)?.[field] ?? 0, expectedRevenue.get(id)?.[field] ?? 0];
          if (stored !== expected)
            mismatches.push(
              `${itemId({ pk: id.split('|')[0]!, sk: id.split('|')[1]! })} ${field}: ${stored}, recount ${expected}`,
            );
        }
      }
      const lagMs = performance.now() - started;
      if (mismatches.length === 0) return { exact: true, settleMs: Math.round(lagMs), mismatches };
      if (lagMs > SETTLE_MS) return { exact: false, settleMs: Math.round(lagMs), mismatches };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  };
  const firstItem = (op: RecordedOperation) => (op.items[0] ? itemId(op.items[0].key) : '');
  /** Conflicts the proxy answered, and how many a later write of the same (first) item then made. */
  function conflictsOf(operations: RecordedOperation[]) {
    const conflicts = operations.filter((o) => o.outcome === 'conflict');
    const retried = conflicts.filter((c) =>
      operations.some((o) => o.outcome === 'written' && o.startedAt >= c.endedAt && firstItem(o) === firstItem(c)),
    ).length;
    return {
      conflicts: conflicts.length,
      retried,
      throttled: operations.filter((o) => o.outcome === 'throttled').length,
    };
  }

  /** The table before a batch of prepared changes, with the revenue of their preparation counted. */
  async function scanPrepared() {
    const scanned = await scanSubscriptions();
    addAppliedRevenue(preparedVerifications.splice(0), new Map(), scanned);
    return scanned;
  }

  // --- Profiles: each kind alone, twice, its writes recorded.
  const profileChanges: Change[] = [];
  for (const kind of KINDS) for (let i = 0; i < 2; i++) profileChanges.push(await prepare(kind, true));
  const instances = new Map<Kind, { change: Change; operations: RecordedOperation[] }[]>();
  let before = await scanPrepared();
  for (const kind of KINDS) {
    for (const change of profileChanges.filter((c) => c.kind === kind)) {
      proxy.reset();
      const sent = await send(change);
      if (sent.error) throw new Error(`${kind}, run alone, failed: ${sent.error}`);
      const operations = proxy.operations().filter((o) => o.operation !== 'TransactGetItems');
      instances.set(kind, [...(instances.get(kind) ?? []), { change, operations }]);
    }
  }
  const profiles: ChangeProfile[] = KINDS.map((kind) => {
    const measured = instances.get(kind)!;
    const shared = sharedItems(
      measured.map(({ change, operations }) => ({
        items: operations.flatMap((o) => o.items.map((i) => itemId(i.key))),
        ownIds: change.ownIds,
      })),
    );
    return {
      name: kind,
      weight: MIX[kind],
      writes: measured[0]!.operations.map((o) => ({
        operation: o.operation,
        items: o.items.map((i) => ({
          item: itemId(i.key),
          writeUnits: i.writeUnits,
          perChange: !shared.has(itemId(i.key)),
        })),
      })),
    };
  });
  // From here on the aggregator keeps the counters, as npm start runs it.
  const aggregator = await startStreamPoller({
    client: dynamodb,
    endpoint: dynamo.endpoint,
    intervalMs: 100,
    consumer: AGGREGATOR,
    onError: (error) => console.log(`aggregator: ${(error as Error).message}`),
  });
  let after = await scanSubscriptions();
  addAppliedRevenue(profileChanges, before, after);
  const profiled = await checkFigures(after);
  if (!profiled.exact)
    console.log(`after the profiles, the figures are off: ${profiled.mismatches.slice(0, 5).join('; ')}`);
  for (const profile of profiles) {
    const shared = profile.writes.flatMap((w) => w.items.filter((i) => !i.perChange));
    const units = (items: { writeUnits: number }[]) => items.reduce((sum, i) => sum + i.writeUnits, 0);
    console.log(
      `${profile.name.padEnd(28)} ${profile.writes.map((w) => w.operation).join(' + ')}: ` +
        `${units(profile.writes.flatMap((w) => w.items))} WCU, ${shared.length} shared items (${units(shared)} WCU)`,
    );
  }

  // --- Real run: rising concurrency.
  const realRun = [];
  for (const writers of LEVELS) {
    const count = changesAt(writers);
    // Kinds interleaved by weight, so every stretch of the run has the mix.
    const kinds = Array.from({ length: count }, (_, i) => {
      const total = KINDS.reduce((sum, k) => sum + MIX[k], 0);
      let slot = (i * 37) % total;
      return KINDS.find((k) => (slot -= MIX[k]) < 0)!;
    });
    const changes: Change[] = [];
    for (const kind of kinds) changes.push(await prepare(kind));
    before = await scanPrepared();
    proxy.reset();
    const queue = [...changes];
    const sent: Sent[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let change = queue.shift(); change; change = queue.shift()) sent.push(await send(change));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const { conflicts, retried, throttled } = conflictsOf(proxy.operations());
    after = await scanSubscriptions();
    const applied = addAppliedRevenue(changes, before, after);
    const figures = await checkFigures(after);
    const errors = sent.filter((s) => s.error);
    const ok = sent.length - errors.length;
    const byError: Record<string, number> = {};
    for (const { error, change } of errors)
      byError[`${change.kind}: ${error}`] = (byError[`${change.kind}: ${error}`] ?? 0) + 1;
    const row = {
      writers,
      changes: count,
      succeeded: ok,
      applied,
      changes_per_s: round(ok / seconds, 1),
      p50_ms: round(
        percentile(
          sent.map((s) => s.ms),
          50,
        ),
        0,
      ),
      p99_ms: round(
        percentile(
          sent.map((s) => s.ms),
          99,
        ),
        0,
      ),
      conflicts,
      conflicts_retried: retried,
      throttled,
      client_visible_errors: errors.length,
      errors_by_kind: byError,
      figures_exact: figures.exact,
      settle_ms: figures.settleMs,
      mismatches: figures.mismatches.length,
      first_mismatches: figures.mismatches.slice(0, 5),
    };
    realRun.push(row);
    console.log(
      `${String(writers).padStart(2)} writers: ${ok}/${count} ok (${applied} applied), ${row.changes_per_s} changes/s, ` +
        `p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms, ${conflicts} conflicts (${retried} retried), ` +
        `${errors.length} client-visible errors, figures ${figures.exact ? `exact after ${figures.settleMs} ms` : `OFF (${figures.mismatches.length})`}`,
    );
    for (const [error, n] of Object.entries(byError)) console.log(`    ${n} × ${error}`);
  }

  await aggregator.stop();

  // --- Simulation: the profiles at the rates DynamoDB Local cannot carry.
  const totalWeight = profiles.reduce((sum, p) => sum + p.weight, 0);
  const requestUnitsPerChange =
    profiles.reduce(
      (sum, p) => sum + p.weight * p.writes.flatMap((w) => w.items).reduce((u, i) => u + i.writeUnits, 0),
      0,
    ) / totalWeight;
  /** The items the aggregator writes for the profiled changes, with their size without markers. */
  const today = new Date().toISOString().slice(0, 10);
  const aggregated = [
    ...(await queryPartition(listCountsPartition(app.appId))).filter(
      (item) => item.sk === 'LIST#*' || item.sk === `LIST#${PRODUCT}`,
    ),
    ...(await queryPartition(keys.revenueMonth(app.appId, today.slice(0, 7)))).filter(
      (item) => item.sk === `${today}#${PRODUCT}#USD`,
    ),
  ];
  const counterItems = aggregated.map((item) => ({
    item: itemId(item as Record<string, string>),
    bytes: Object.entries(item)
      .filter(([name]) => !name.startsWith('applied#'))
      .reduce((sum, [name, value]) => sum + name.length + String(value).length, 0),
  }));
  const simulation = SIMULATED_RATES.map((changesPerSecond) => {
    const backgroundWriters = backgroundWritersAt(changesPerSecond, requestUnitsPerChange, counterItems);
    console.log(
      `simulated ${changesPerSecond} changes/s: the backend's requests over ${secretKeysAt(changesPerSecond)} secret keys, ` +
        `${backgroundWriters[0]?.flushesPerSecond ?? 0} stream shards ` +
        `(${round(requestUnitsPerChange, 1)} request WCU per change), aggregator writes of ` +
        backgroundWriters.map((w) => `${w.items[0]} ${w.writeUnits} WCU`).join(', '),
    );
    const keys = secretKeysAt(changesPerSecond);
    const result: SimulationResult = simulate({
      profiles: profiles.map((profile) => ({
        ...profile,
        writes: profile.writes.map((write) => ({
          ...write,
          items: write.items.map((i) => (i.item.startsWith('APIKEY#') ? { ...i, spreadOver: keys } : i)),
        })),
      })),
      backgroundWriters,
      settings: { changesPerSecond, seconds: SIMULATED_SECONDS, transactionMs: HOLD_MS },
    });
    const [hottest] = result.hottest;
    console.log(
      `simulated ${changesPerSecond} changes/s: ${round(result.conflictRatePercent, 1)}% of transactions conflict on the first try, ` +
        `${round(result.failedChangesPercent, 1)}% of changes fail after ${result.settings.retries} retry; ` +
        `hottest item ${hottest?.item} needs ${round(hottest?.demandWcuPerSecond ?? 0, 0)} WCU/s`,
    );
    return {
      changes_per_s: changesPerSecond,
      changes: result.changes,
      transactions: result.transactions,
      conflict_rate_percent: round(result.conflictRatePercent, 2),
      single_write_conflicts: result.singleWriteConflicts,
      failed_changes_percent: round(result.failedChangesPercent, 2),
      throttled_writes: result.throttledWrites,
      background_writes: result.backgroundWrites,
      items_over_500_wcu_per_s: result.hottest.filter((h) => h.demandWcuPerSecond > 500).length,
      hottest: result.hottest.slice(0, 6).map((h) => ({
        item: h.item,
        demand_wcu_per_s: round(h.demandWcuPerSecond, 0),
        committed_wcu_per_s: round(h.committedWcuPerSecond, 0),
      })),
    };
  });
  const settings = { ...DEFAULT_SIMULATION, transactionMs: HOLD_MS };

  const at1000 = simulation.find((s) => s.changes_per_s === 1000)!;
  writeResults(
    'hot-app',
    {
      quick: flags.quick,
      transaction_hold_ms: HOLD_MS,
      seeded_subscriptions: SEEDED,
      settle_limit_ms: SETTLE_MS,
      mix: MIX,
      real_run: realRun,
      profiles: profiles.map((p) => ({
        name: p.name,
        weight: p.weight,
        writes: p.writes.map((w) => ({
          operation: w.operation,
          items: w.items.map((i) => ({ item: i.item, write_units: i.writeUnits, shared: !i.perChange })),
        })),
      })),
      simulation_settings: {
        seconds: SIMULATED_SECONDS,
        transaction_ms: settings.transactionMs,
        single_write_ms: settings.singleWriteMs,
        item_wcu_per_s: settings.itemWriteUnitsPerSecond,
        burst_s: settings.burstSeconds,
        retries: settings.retries,
        retry_jitter_ms: settings.retryJitterMs,
        seed: settings.seed,
      },
      background_writers: SIMULATED_RATES.map((rate) => ({
        changes_per_s: rate,
        writers: backgroundWritersAt(rate, requestUnitsPerChange, counterItems),
      })),
      simulation,
    },
    [
      ...realRun.flatMap((row) => [
        {
          name: `real run, ${row.writers} writers: client-visible errors`,
          value: row.client_visible_errors,
          budget: '= 0',
          pass: row.client_visible_errors === 0,
        },
        {
          name: `real run, ${row.writers} writers: counter and revenue figures off the recount after ${SETTLE_MS / 1000} s`,
          value: row.mismatches,
          budget: '= 0',
          pass: row.figures_exact,
        },
      ]),
      {
        name: 'simulation, 1,000 changes/s of one app: transactions conflicting on the first try, %',
        value: at1000.conflict_rate_percent,
        budget: '< 1',
        pass: at1000.conflict_rate_percent < 1,
      },
      {
        name: 'simulation, 1,000 changes/s of one app: hottest item, WCU/s needed',
        value: at1000.hottest[0]?.demand_wcu_per_s ?? 0,
        budget: '<= 500',
        pass: (at1000.hottest[0]?.demand_wcu_per_s ?? 0) <= 500,
      },
    ],
  );
} finally {
  await proxy.close();
  await dynamo.stop();
}
