/**
 * Issue #8 (2), hot path. In one warm process, the handler (middy, header normalisation, zod,
 * authentication and the rate limit, the response envelope) against the lib/ calls it makes,
 * with the same DynamoDB work: the write that authenticates the key and counts the request, and
 * the service call. The difference is the handler's own cost per request. Budget: median <= 300 us,
 * for GET /v1/subscriptions/{id} (detail) and POST /v2/users/report/events (10 events).
 *
 * Handler and direct call alternate (ABAB...), so both see the same DynamoDB Local and the same
 * load; the overhead is the median of the per-pair differences. Wall time is the budget; CPU time
 * (process.cpuUsage, which DynamoDB Local's latency does not blur) is reported next to it. The
 * limiter's own cost is reported separately: its counting write alone, and its logic (hash,
 * checks, decision and headers) as authenticateAndLimit minus that write.
 */
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { type BudgetCheck, median, round, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

benchArguments(`Usage: npm run bench:hot-path

The handler's own cost per request against the lib/ calls it makes, in alternating pairs; writes
bench/results/hot-path.json and exits 1 when a budget fails. Environment:
  HOT_PATH_PAIRS=N   pairs per scenario (default 400)`);

const PAIRS = Number(process.env.HOT_PATH_PAIRS ?? 400);
const WARMUP_PAIRS = 60;
const BUDGET_US = 300;
const EVENTS_PER_REQUEST = 10;

// Before lib/ is imported (config is read once): limits no benchmark reaches (the counting write
// is measured, not the refusal).
process.env.KEY_CACHE_TTL_SECONDS = '30';
process.env.RATE_LIMIT_STANDARD_PER_MINUTE = '1000000000';
process.env.RATE_LIMIT_PREMIUM_PER_MINUTE = '1000000000';

const dynamo = await startBenchDynamoDb('bench-hot-path');
try {
  const { findApiKey } = await import('../lib/data/api-keys.js');
  const { countKeyRequest, countUserRequest } = await import('../lib/data/rate-limits.js');
  const { authenticateAndLimit } = await import('../lib/http/auth.js');
  const { sha256Hex } = await import('../lib/core/ids.js');
  const { reportEvents } = await import('../lib/services/reporting.js');
  const { getSubscriptionDetail } = await import('../lib/services/subscriptions.js');
  const { SUBSCRIPTIONS_BASE } = await import('../lib/routes.js');
  const { createTestApp } = await import('../test/support/fixtures.js');
  const { mobileHeaders } = await import('../test/support/mobile.js');
  const { seedSubscription } = await import('../test/support/subscriptions.js');
  const { prepareInvocation, routeNamed } = await import('./support/invoke.js');
  type MobileCaller = import('../lib/domain/callers.js').MobileCaller;

  const app = await createTestApp();
  const subscription = await seedSubscription(app.appId);
  const sdkKey = (await findApiKey(app.sdkKey))!;
  const user = 'hot-path-user';
  /** The caller the mobile endpoint builds from the key and the headers. */
  const mobileCaller: MobileCaller = {
    appId: app.appId,
    keyId: sdkKey.key_id,
    kind: 'sdk',
    tier: sdkKey.tier ?? 'standard',
    userId: user,
    appIdHeader: app.appId,
    platform: 'ios',
    sdkVersion: '1.0.0',
    userProven: false,
  };

  let sequence = 0;
  /** A fresh batch each time, so every request stores new events (a repeated one is deduplicated). */
  const batch = () =>
    Array.from({ length: EVENTS_PER_REQUEST }, () => ({
      name: 'screen_view',
      user,
      sessionId: 's-1',
      eventId: `e-${++sequence}`,
      extra: { screen_name: 'home' },
    }));
  const ok = (result: { statusCode: number; body: string }) => {
    if (result.statusCode !== 200) throw new Error(`handler answered ${result.statusCode}: ${result.body}`);
  };

  interface Subject {
    /** Prepares one request outside the measured time and returns the call to measure. */
    prepare(): Promise<() => Promise<unknown>>;
  }
  interface Scenario {
    name: string;
    handler: Subject;
    direct: Subject;
  }
  const scenarios: Scenario[] = [
    {
      name: 'GET /v1/subscriptions/{id}',
      handler: {
        prepare: async () => {
          const call = await prepareInvocation(routeNamed('GetSubscription'), {
            path: `${SUBSCRIPTIONS_BASE}/${subscription.id}`,
            headers: { authorization: `Bearer ${app.secretKey}` },
          });
          return async () => ok(await call());
        },
      },
      direct: {
        prepare: async () => async () => {
          await countKeyRequest(sha256Hex(app.secretKey));
          await getSubscriptionDetail(app.appId, subscription.id);
        },
      },
    },
    {
      name: `POST /v2/users/report/events (${EVENTS_PER_REQUEST} events)`,
      handler: {
        prepare: async () => {
          const call = await prepareInvocation(routeNamed('ReportEventsV2'), {
            path: '/v2/users/report/events',
            headers: mobileHeaders(app, user),
            body: { events: batch() },
          });
          return async () => ok(await call());
        },
      },
      direct: {
        prepare: async () => {
          const events = batch();
          return async () => {
            // The sdk key is served from the warm instance's copy (KEY_CACHE_TTL_SECONDS=30): only the user is counted.
            await countUserRequest(app.appId, user);
            await reportEvents(mobileCaller, events);
          };
        },
      },
    },
    {
      // Authentication and the limiter: their logic (hash, checks, decision, headers) around the write that counts, against the write alone.
      name: 'authentication and rate limit: authenticateAndLimit vs its counting write',
      handler: { prepare: async () => () => authenticateAndLimit(app.secretKey, 'secret') },
      direct: { prepare: async () => () => countKeyRequest(sha256Hex(app.secretKey)) },
    },
  ];

  interface Sample {
    wallUs: number;
    cpuUs: number;
  }
  async function sample(subject: Subject): Promise<Sample> {
    const call = await subject.prepare();
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    await call();
    const wallUs = Number(process.hrtime.bigint() - start) / 1000;
    const { user: u, system } = process.cpuUsage(cpu);
    return { wallUs, cpuUs: u + system };
  }

  const figures: Record<string, unknown> = { pairs: PAIRS, events_per_request: EVENTS_PER_REQUEST };
  const checks: BudgetCheck[] = [];
  for (const scenario of scenarios) {
    const pairs: { handler: Sample; direct: Sample }[] = [];
    for (let i = 0; i < WARMUP_PAIRS + PAIRS; i++) {
      // Alternate which goes first, so neither always follows the other's socket and GC state.
      const first = i % 2 === 0 ? scenario.handler : scenario.direct;
      const a = await sample(first);
      const b = await sample(first === scenario.handler ? scenario.direct : scenario.handler);
      if (i >= WARMUP_PAIRS)
        pairs.push(first === scenario.handler ? { handler: a, direct: b } : { handler: b, direct: a });
    }
    const stat = (pick: (p: { handler: Sample; direct: Sample }) => number) => round(median(pairs.map(pick)), 1);
    const result = {
      handler_us: { wall: stat((p) => p.handler.wallUs), cpu: stat((p) => p.handler.cpuUs) },
      direct_us: { wall: stat((p) => p.direct.wallUs), cpu: stat((p) => p.direct.cpuUs) },
      overhead_us: {
        wall: stat((p) => p.handler.wallUs - p.direct.wallUs),
        cpu: stat((p) => p.handler.cpuUs - p.direct.cpuUs),
      },
    };
    figures[scenario.name] = result;
    console.log(
      `${scenario.name.padEnd(52)} handler ${result.handler_us.wall.toFixed(0).padStart(6)} us, direct ${result.direct_us.wall.toFixed(0).padStart(6)} us:` +
        ` overhead ${result.overhead_us.wall.toFixed(0).padStart(5)} us wall, ${result.overhead_us.cpu.toFixed(0).padStart(5)} us CPU (medians of ${PAIRS} pairs)`,
    );
    if (scenario.name.startsWith('rate limiter')) {
      console.log(
        `  the counter write (UpdateItem) alone: ${result.direct_us.wall.toFixed(0)} us wall, ${result.direct_us.cpu.toFixed(0)} us CPU per request`,
      );
    } else {
      checks.push({
        name: `${scenario.name}: handler overhead, median us`,
        value: result.overhead_us.wall,
        budget: `<= ${BUDGET_US}`,
        pass: result.overhead_us.wall <= BUDGET_US,
      });
    }
  }
  writeResults('hot-path', figures, checks);
  process.exitCode = checks.every((c) => c.pass) ? 0 : 1;
} finally {
  await dynamo.stop();
}
