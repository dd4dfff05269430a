/**
 * One soak run: a private DynamoDB Local on disk (so a restart keeps the data), the runtime of
 * `npm start` (gateway, stream poller, local bus and webhook deliverer, scheduler) in this
 * process, a webhook receiver verifying Standard Webhooks signatures, mixed client traffic for a
 * bounded time with DynamoDB Local killed (SIGKILL) and restarted on the same port midway, a
 * bounded wait for the notification pipeline to drain, then the reconciliation. `npm run soak`
 * prints what this returns; test/integration/soak-smoke.test.ts runs a short one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureTable, type LocalDynamoDb, localClient, startDynamoDbLocal } from '../../local/dynamodb.js';
import { freePort } from '../../test/support/ports.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import type { BudgetCheck } from './report.js';
import type { ReconciliationCheck } from './soak-reconcile.js';
import {
  isWrite,
  type OutageRecord,
  type Outcome,
  REQUEST_TYPES,
  type RequestSample,
  type RequestType,
  runTraffic,
  type SoakLedger,
  type TrafficResult,
} from './soak-traffic.js';

export interface SoakOptions {
  /**
   * How long the clients run; with an outage, also until DynamoDB Local answers again and a write
   * sent after that was acknowledged (at most RECOVERY_LIMIT_MS past durationMs).
   */
  durationMs: number;
  clients: number;
  /**
   * DynamoDB Local is killed `atMs` into the traffic (but not before some write was acknowledged:
   * the outage must interrupt work) and started again `downMs` later; no outage when absent.
   */
  outage?: { atMs: number; downMs: number } | undefined;
  sweepIntervalSeconds: number;
  /** Longest wait, once traffic stops, for every notification and due expiry to be done. */
  drainTimeoutMs: number;
  log?: (line: string) => void;
}

export interface LatencySummary {
  requests: number;
  ok: number;
  p50_ms: number;
  p99_ms: number;
}

export interface SoakOutcome {
  options: Omit<SoakOptions, 'log'>;
  trafficMs: number;
  requests: number;
  byType: Record<RequestType, LatencySummary & { statuses: Record<string, number> }>;
  overall: LatencySummary;
  statuses: Record<string, number>;
  outcomes: Partial<Record<Outcome, number>>;
  /** 2xx answers without the rate limiter's RateLimit header: the limiter did not count them. */
  acknowledgedWithoutRateLimit: number;
  outage:
    | (OutageRecord & {
        retryableDuring: number;
        retryableOutside: number;
        writesAcknowledgedWhileDown: number;
        writesAcknowledgedAfterRestart: number;
      })
    | null;
  unexpected: TrafficResult['unexpected'];
  acknowledged: {
    event_batches_events: number;
    sessions: number;
    subscriptions: number;
    unacknowledged_purchases: number;
    unanswered_lifecycle_changes: number;
  };
  webhooks: { received: number; accepted: number; distinct_ids: number };
  drain: { ms: number; completed: boolean; outstanding: string[] };
  table: { items: number; read_ms: number; outbox_items: number; subscriptions: number };
  reconciliation: ReconciliationCheck[];
}

const TABLE_NAME = 'soak';
/** Longest the clients keep going past durationMs for DynamoDB Local to come back and take a write. */
const RECOVERY_LIMIT_MS = 60_000;
/** Retryable answers that finish this soon after DynamoDB Local answers again still count as the outage's. */
const OUTAGE_TAIL_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summarize(samples: readonly RequestSample[]): LatencySummary {
  const latencies = samples.map((s) => s.end - s.start).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests: samples.length,
    ok: samples.filter((s) => s.outcome === 'ok').length,
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
  };
}

const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

/** Requests by type, status codes, latencies, and how the answers fell around the outage. */
function summarizeAnswers(
  samples: readonly RequestSample[],
  outage: OutageRecord | null,
): Pick<
  SoakOutcome,
  'requests' | 'byType' | 'overall' | 'statuses' | 'outcomes' | 'acknowledgedWithoutRateLimit' | 'outage'
> {
  const byType = Object.fromEntries(
    REQUEST_TYPES.map((type) => {
      const ofType = samples.filter((s) => s.type === type);
      return [type, { ...summarize(ofType), statuses: countBy(ofType, (s) => String(s.status)) }];
    }),
  ) as SoakOutcome['byType'];
  const acknowledgedWrites = samples.filter((s) => s.outcome === 'ok' && isWrite(s.type));
  const retryable = samples.filter((s) => s.outcome === 'retryable');
  const during = (s: RequestSample) =>
    outage !== null && s.end >= outage.killedAt && s.end <= outage.restoredAt + OUTAGE_TAIL_MS;
  return {
    requests: samples.length,
    byType,
    overall: summarize(samples),
    statuses: countBy(samples, (s) => String(s.status)),
    outcomes: countBy(samples, (s) => s.outcome),
    acknowledgedWithoutRateLimit: samples.filter((s) => s.status >= 200 && s.status < 300 && !s.rateLimitHeader).length,
    outage: outage && {
      ...outage,
      retryableDuring: retryable.filter(during).length,
      retryableOutside: retryable.filter((s) => !during(s)).length,
      writesAcknowledgedWhileDown: acknowledgedWrites.filter(
        (s) => s.start > outage.killedAt && s.end < outage.restoredAt,
      ).length,
      writesAcknowledgedAfterRestart: acknowledgedWrites.filter((s) => s.start > outage.restoredAt).length,
    },
  };
}

/**
 * Sets the environment the handlers read at import (so call it before anything imports lib/data):
 * the private table, API keys cached as in AWS, webhook retries in seconds, and the per-key rate
 * limits so high that the limiter runs on every request but never refuses one.
 */
function configureEnvironment(endpoint: string): void {
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = TABLE_NAME;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.KEY_CACHE_TTL_SECONDS = '30';
  process.env.RATE_LIMIT_STANDARD_PER_MINUTE = '1000000000';
  process.env.RATE_LIMIT_PREMIUM_PER_MINUTE = '1000000000';
  process.env.REPORT_EVENTS_PER_APP_PER_MINUTE = '1000000000';
  process.env.REPORT_STORED_BYTES_PER_APP = '1000000000000000';
  process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS = '1,2,5,10,30';
  // The receiver listens on 127.0.0.1: the local-development opt-in (docs/security.md#webhook-targets).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  // Every 503 of the outage would log a stack trace: the soak counts them instead.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
}

/**
 * Waits, at most drainTimeoutMs, until the receiver has been quiet for a while and then until the
 * table owes nothing: every outbox item delivered and recorded, every lapsed purchase expired.
 * `lookedAt` is when the table last looked so: expiries are owed for purchases lapsed before it.
 */
async function drain(appId: string, ledger: SoakLedger, receiver: WebhookReceiver, options: SoakOptions) {
  const { readTable, outstandingWork } = await import('./soak-reconcile.js');
  const started = Date.now();
  const left = () => options.drainTimeoutMs - (Date.now() - started);
  const quietMs = Math.max(3000, 3 * options.sweepIntervalSeconds * 1000);
  for (let seen = -1, since = Date.now(); left() > 0; await sleep(250)) {
    if (receiver.received.length !== seen) [seen, since] = [receiver.received.length, Date.now()];
    else if (Date.now() - since >= quietMs) break;
  }
  for (;;) {
    const lookedAt = Date.now();
    const owed = outstandingWork(
      await readTable(appId),
      ledger,
      receiver.received,
      lookedAt,
      options.sweepIntervalSeconds,
    );
    if (owed.length === 0 || left() <= 0) return { ms: Date.now() - started, owed, lookedAt };
    await sleep(Math.min(2000, left()));
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakOutcome> {
  const log = options.log ?? (() => undefined);
  const dataDir = await mkdtemp(join(tmpdir(), 'soak-'));
  const port = await freePort();
  let dynamo: LocalDynamoDb = await startDynamoDbLocal({ port, dataDir });
  const receiver = await startWebhookReceiver();
  let stopRuntime: (() => Promise<void>) | undefined;
  try {
    const client = localClient(dynamo.endpoint);
    await ensureTable(client, TABLE_NAME);
    client.destroy();
    configureEnvironment(dynamo.endpoint);
    log(`DynamoDB Local on ${dynamo.endpoint}, data in ${dataDir}`);

    // Imported only now: the data layer reads its endpoint and table once, at import.
    const { createTestApp } = await import('../../test/support/fixtures.js');
    const { getApp } = await import('../../lib/data/apps.js');
    const { setWebhook } = await import('../../lib/data/webhooks.js');
    const { mintTestReceipt } = await import('../../lib/stores/test-store.js');
    const { startLocalRuntime } = await import('../../local/runtime.js');
    const { readTable, reconcile } = await import('./soak-reconcile.js');

    const app = await createTestApp();
    receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);
    const privateKeyPem = (await getApp(app.appId))!.test_store_private_key!;
    const mintReceipt = (expiresInSeconds: number) =>
      mintTestReceipt({
        appId: app.appId,
        privateKeyPem,
        productId: 'premium_monthly',
        platform: 'ios',
        price: 9.99,
        currency: 'USD',
        expiresInSeconds,
        trial: false,
      });
    const runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: options.sweepIntervalSeconds });
    stopRuntime = () => runtime.stop();
    log(`gateway on ${runtime.gateway.url}; ${options.clients} clients for ${options.durationMs / 1000} s`);

    const t0 = performance.now();
    const clock = () => performance.now() - t0;
    const answered: Partial<Record<Outcome, number>> = {};
    let acknowledgedWrites = 0;
    let acknowledgedWritesAfterRestart = 0;
    let outage: OutageRecord | null = null;
    let trafficOver = false;
    const faults = (async () => {
      if (!options.outage) return;
      await sleep(options.outage.atMs);
      while (acknowledgedWrites === 0 && !trafficOver) await sleep(100);
      if (trafficOver) return;
      const killedAt = Math.round(clock());
      await dynamo.kill();
      log(`${(killedAt / 1000).toFixed(1)} s: DynamoDB Local killed (SIGKILL)`);
      await sleep(options.outage.downMs);
      dynamo = await startDynamoDbLocal({ port, dataDir });
      outage = { killedAt, restoredAt: Math.round(clock()) };
      log(
        `${(outage.restoredAt / 1000).toFixed(1)} s: DynamoDB Local answers again on the same port (down ${((outage.restoredAt - killedAt) / 1000).toFixed(1)} s)`,
      );
    })();

    const progress = setInterval(() => {
      const counts = Object.entries(answered)
        .map(([outcome, n]) => `${outcome} ${n}`)
        .join(', ');
      log(
        `${(clock() / 1000).toFixed(0)} s: ${counts || 'no answers yet'}; ${receiver.received.length} webhooks received`,
      );
    }, 10_000);
    let traffic: TrafficResult;
    try {
      traffic = await runTraffic({
        baseUrl: runtime.gateway.url,
        app,
        clients: options.clients,
        mintReceipt,
        clock,
        // The clients see the service recover before they stop (unless that takes far too long).
        endsAt: () => {
          const recovered = !options.outage || (outage !== null && acknowledgedWritesAfterRestart > 0);
          return recovered ? options.durationMs : options.durationMs + RECOVERY_LIMIT_MS;
        },
        outage: () => outage,
        runId: `soak${Date.now().toString(36)}`,
        onSample: (sample) => {
          answered[sample.outcome] = (answered[sample.outcome] ?? 0) + 1;
          if (sample.outcome !== 'ok' || !isWrite(sample.type)) return;
          acknowledgedWrites += 1;
          if (outage !== null && sample.start > (outage as OutageRecord).restoredAt)
            acknowledgedWritesAfterRestart += 1;
        },
      });
    } finally {
      trafficOver = true;
      clearInterval(progress);
    }
    const trafficMs = Math.round(clock());
    await faults; // a restart still under way when the traffic ends is waited for
    // Assigned by the fault injector (TypeScript does not follow assignments made in callbacks).
    const finalOutage = outage as OutageRecord | null;
    log(`traffic stopped after ${(trafficMs / 1000).toFixed(1)} s: ${traffic.samples.length} requests; draining`);

    const drained = await drain(app.appId, traffic.ledger, receiver, options);
    log(
      `drain ${drained.owed.length === 0 ? 'complete' : `incomplete (${drained.owed.length} outstanding)`} after ${(drained.ms / 1000).toFixed(1)} s`,
    );

    // The final state: nothing runs any more while the table is read.
    await runtime.stop();
    stopRuntime = undefined;
    const snapshot = await readTable(app.appId);
    const reconciliation = reconcile(
      snapshot,
      traffic.ledger,
      receiver.received,
      app.appId,
      finalOutage,
      drained.lookedAt,
      options.sweepIntervalSeconds,
    );

    const { samples, ledger } = traffic;
    const count = (map: typeof ledger.events) =>
      [...map.values()].reduce((sum, entry) => sum + entry.acknowledged.size, 0);
    return {
      options: {
        durationMs: options.durationMs,
        clients: options.clients,
        outage: options.outage,
        sweepIntervalSeconds: options.sweepIntervalSeconds,
        drainTimeoutMs: options.drainTimeoutMs,
      },
      trafficMs,
      ...summarizeAnswers(samples, finalOutage),
      unexpected: traffic.unexpected,
      acknowledged: {
        event_batches_events: count(ledger.events),
        sessions: count(ledger.sessions),
        subscriptions: ledger.subscriptions.length,
        unacknowledged_purchases: ledger.unacknowledgedPurchases.size,
        unanswered_lifecycle_changes: ledger.subscriptions.reduce((sum, sub) => sum + sub.unansweredWrites, 0),
      },
      webhooks: {
        received: receiver.received.length,
        accepted: receiver.accepted().length,
        distinct_ids: new Set(receiver.accepted().map((w) => w.id)).size,
      },
      drain: { ms: drained.ms, completed: drained.owed.length === 0, outstanding: drained.owed.slice(0, 20) },
      table: {
        items: snapshot.items,
        read_ms: snapshot.readMs,
        outbox_items: snapshot.outbox.size,
        subscriptions: snapshot.subscriptions.size,
      },
      reconciliation,
    };
  } finally {
    await stopRuntime?.();
    await receiver.close();
    await dynamo.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** PASS/FAIL of one run: what the clients were answered, the drain, and every reconciliation check. */
export function soakChecks(outcome: SoakOutcome): BudgetCheck[] {
  const answered = (kind: Outcome) => outcome.outcomes[kind] ?? 0;
  const checks: BudgetCheck[] = [
    {
      name: 'responses 5xx other than a retryable 503 (retryable: true, Retry-After)',
      value: answered('server_error'),
      budget: '0',
      pass: answered('server_error') === 0,
    },
    {
      name: 'responses 4xx (every request of the mix is valid)',
      value: answered('client_error'),
      budget: '0',
      pass: answered('client_error') === 0,
    },
    {
      name: 'requests the gateway did not answer',
      value: answered('network_error'),
      budget: '0',
      pass: answered('network_error') === 0,
    },
    {
      name: '2xx answers without a RateLimit header (the limiter counts every request)',
      value: outcome.acknowledgedWithoutRateLimit,
      budget: '0',
      pass: outcome.acknowledgedWithoutRateLimit === 0,
    },
  ];
  if (outcome.options.outage) {
    const outage = outcome.outage;
    checks.push(
      {
        name: 'retryable 503s while DynamoDB Local was down',
        value: outage?.retryableDuring ?? 0,
        budget: '> 0',
        pass: (outage?.retryableDuring ?? 0) > 0,
      },
      {
        name: 'retryable 503s outside the outage',
        value: outage?.retryableOutside ?? 0,
        budget: '0',
        pass: outage !== null && outage.retryableOutside === 0,
      },
      {
        name: 'writes acknowledged while DynamoDB Local was down',
        value: outage?.writesAcknowledgedWhileDown ?? 0,
        budget: '0',
        pass: outage !== null && outage.writesAcknowledgedWhileDown === 0,
      },
      {
        name: 'writes acknowledged after the restart',
        value: outage?.writesAcknowledgedAfterRestart ?? 0,
        budget: '> 0',
        pass: (outage?.writesAcknowledgedAfterRestart ?? 0) > 0,
      },
    );
  }
  checks.push({
    name: 'notifications and due expiries done after the traffic (s)',
    value: Math.round(outcome.drain.ms / 100) / 10,
    budget: `<= ${outcome.options.drainTimeoutMs / 1000}`,
    pass: outcome.drain.completed,
  });
  for (const check of outcome.reconciliation) {
    const tolerated = check.tolerated ?? 0;
    checks.push({
      name: `${check.name} (mismatches of ${check.checked})`,
      value: check.mismatches.length,
      budget: tolerated > 0 ? `<= ${tolerated}` : '0',
      pass: check.mismatches.length <= tolerated,
    });
  }
  return checks;
}
