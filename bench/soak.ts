/**
 * `npm run soak`: mixed traffic at the local runtime for a bounded time (SOAK_SECONDS, default
 * 120) with DynamoDB Local killed and restarted midway, then a reconciliation of everything the
 * clients were told against the table and the webhooks received. Prints requests, status codes,
 * p50/p99 per request type, the outage's retryable errors and every reconciliation check; writes
 * bench/results/soak.json; exits non-zero when any check fails. Separate from `npm test`.
 *
 *   SOAK_SECONDS          traffic duration (default 120)
 *   SOAK_CLIENTS          concurrent clients (default 8)
 *   SOAK_OUTAGE_SECONDS   how long DynamoDB Local stays dead before its restart (default 5; 0: no outage)
 */
import { writeResults } from './support/report.js';
import { runSoak, type SoakOutcome, soakChecks } from './support/soak-run.js';
import { REQUEST_TYPES } from './support/soak-traffic.js';
import { benchArguments } from './support/usage.js';

benchArguments(`Usage: npm run soak

Mixed traffic at the local runtime with DynamoDB Local killed and restarted midway, then a
reconciliation of the table and the webhooks; writes bench/results/soak.json and exits 1 when a
check fails. Environment:
  SOAK_SECONDS=N          traffic duration (default 120)
  SOAK_CLIENTS=N          concurrent clients (default 8)
  SOAK_OUTAGE_SECONDS=N   DynamoDB Local's outage (default 5; 0: none)`);

function positiveNumber(name: string, fallback: number, allowZero = false): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
    console.error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

const seconds = positiveNumber('SOAK_SECONDS', 120);
const clients = Math.round(positiveNumber('SOAK_CLIENTS', 8));
const outageSeconds = positiveNumber('SOAK_OUTAGE_SECONDS', 5, true);

const outcome = await runSoak({
  durationMs: seconds * 1000,
  clients,
  outage: outageSeconds > 0 ? { atMs: (seconds * 1000) / 2, downMs: outageSeconds * 1000 } : undefined,
  sweepIntervalSeconds: 1,
  drainTimeoutMs: 90_000,
  log: (line) => console.log(line),
});

function printReport(result: SoakOutcome): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `\nDuration ${s(result.trafficMs)}, ${result.options.clients} clients: ${result.requests} requests (${(result.requests / (result.trafficMs / 1000)).toFixed(1)}/s)`,
  );
  console.log(
    `The per-key rate limiter counts every request (limits set far above the load: never limiting); 2xx answers without its RateLimit header: ${result.acknowledgedWithoutRateLimit}.`,
  );
  console.log('\n| request | count | 2xx | status codes | p50 ms | p99 ms |\n|---|---|---|---|---|---|');
  for (const type of REQUEST_TYPES) {
    const row = result.byType[type];
    if (row.requests === 0) continue;
    const statuses = Object.entries(row.statuses)
      .map(([code, n]) => `${code}: ${n}`)
      .join(', ');
    console.log(`| ${type} | ${row.requests} | ${row.ok} | ${statuses} | ${row.p50_ms} | ${row.p99_ms} |`);
  }
  console.log(
    `| all | ${result.overall.requests} | ${result.overall.ok} | ${Object.entries(result.statuses)
      .map(([code, n]) => `${code}: ${n}`)
      .join(', ')} | ${result.overall.p50_ms} | ${result.overall.p99_ms} |`,
  );
  if (result.outage) {
    const {
      killedAt,
      restoredAt,
      retryableDuring,
      retryableOutside,
      writesAcknowledgedWhileDown,
      writesAcknowledgedAfterRestart,
    } = result.outage;
    console.log(
      `\nOutage: DynamoDB Local killed at ${s(killedAt)}, answering again at ${s(restoredAt)} (${s(restoredAt - killedAt)} down):`,
    );
    console.log(
      `  ${retryableDuring} retryable 503s during it, ${retryableOutside} outside it; writes acknowledged while down: ${writesAcknowledgedWhileDown}, after the restart: ${writesAcknowledgedAfterRestart}`,
    );
  }
  const a = result.acknowledged;
  console.log(
    `\nAcknowledged: ${a.event_batches_events} events, ${a.sessions} sessions, ${a.subscriptions} subscriptions; ${a.unacknowledged_purchases} purchases and ${a.unanswered_lifecycle_changes} lifecycle changes unanswered (either outcome is right)`,
  );
  console.log(
    `Webhooks: ${result.webhooks.accepted} accepted of ${result.webhooks.received} received, ${result.webhooks.distinct_ids} distinct webhook-ids; table ${result.table.items} items (read in ${s(result.table.read_ms)}), ${result.table.outbox_items} outbox items`,
  );
  console.log(
    `Drain: ${result.drain.completed ? 'complete' : 'INCOMPLETE'} after ${s(result.drain.ms)}${result.drain.outstanding.length > 0 ? `; outstanding: ${result.drain.outstanding.join(', ')}` : ''}`,
  );
  console.log('\nReconciliation:');
  for (const check of result.reconciliation) {
    const tolerated = check.tolerated ? ` (${check.tolerated} tolerated)` : '';
    console.log(
      `  ${check.mismatches.length <= (check.tolerated ?? 0) ? 'ok  ' : 'FAIL'} ${check.name}: ${check.checked} checked, ${check.mismatches.length} mismatches${tolerated}`,
    );
    for (const mismatch of check.mismatches.slice(0, 10)) console.log(`         ${mismatch}`);
  }
  for (const response of result.unexpected.slice(0, 10))
    console.log(
      `unexpected: ${response.type} ${response.method} ${response.path} -> ${response.status} ${response.body}`,
    );
  console.log('');
}

printReport(outcome);
const checks = soakChecks(outcome);
writeResults(
  'soak',
  {
    seconds: Math.round(outcome.trafficMs / 100) / 10,
    clients,
    requests: outcome.requests,
    requests_per_s: Number((outcome.requests / (outcome.trafficMs / 1000)).toFixed(1)),
    rate_limiter: {
      limits: 'RATE_LIMIT_STANDARD_PER_MINUTE and RATE_LIMIT_PREMIUM_PER_MINUTE set to 1e9: active, never limiting',
      acknowledged_without_ratelimit_header: outcome.acknowledgedWithoutRateLimit,
    },
    overall: outcome.overall,
    by_type: outcome.byType,
    statuses: outcome.statuses,
    outcomes: outcome.outcomes,
    outage: outcome.outage,
    acknowledged: outcome.acknowledged,
    webhooks: outcome.webhooks,
    drain: outcome.drain,
    table: outcome.table,
    reconciliation: outcome.reconciliation.map((check) => ({ ...check, mismatches: check.mismatches.slice(0, 20) })),
    unexpected: outcome.unexpected.slice(0, 20),
  },
  checks,
);
process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
