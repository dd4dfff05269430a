/**
 * Issue #8 budget (3): throughput through the local gateway against the raw DynamoDB Local
 * operations the same requests need, side by side in one run.
 *
 * For each endpoint, one request is recorded (every DynamoDB operation the shared client sends,
 * with its overlap: the per-key rate limiter's write, the reads and writes of the use case; the API
 * key lookup is cached, as in a warm function). The API side sends requests over HTTP with autocannon to
 * the local gateway, which runs the real handler in this process; the raw side replays the recorded
 * operations through the low-level client, with fresh ids where a write must be new. Both sides run
 * CONCURRENCY clients for SLICE_S seconds, one after the other in alternating order, PAIRS times;
 * the ratio of each pair (close in time, so the shared machine's load changes little within one)
 * and their median.
 * Budgets: API / raw >= 0.7 for reads (detail, list), >= 0.8 for event ingestion (100-event
 * batches, counted in events/s). Create is measured and printed; it has no budget.
 */
import autocannon from 'autocannon';
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { type BudgetCheck, median, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

// As in AWS: a warm function caches the key lookup, so most requests skip it.
benchArguments(`Usage: npm run bench:throughput

Requests through the local gateway against a replay of the same DynamoDB Local operations, in
alternating pairs of slices, for the detail read, the list, create and 100-event batches; writes
bench/results/throughput.json and exits 1 when a budget fails. No settings.`);

process.env.KEY_CACHE_TTL_SECONDS = '30';
const PAIRS = 7;
const SLICE_S = 3;
const WARM_UP_S = 3;
const CONCURRENCY = 8;
const BATCH = 100;
/** Distinct users the requests rotate through (profiles, user index partitions). */
const USERS = 16;

interface Rate {
  /** Requests or events per second. */
  perSecond: number;
  /** CPU time of this process (gateway, handler, SDK; on the API side also autocannon) per request. */
  cpuMsPerRequest: number;
}

interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Scenario {
  name: string;
  /** What one request carries: 1 request, or BATCH events. */
  perRequest: number;
  unit: string;
  /** Lowest acceptable API / raw ratio; undefined: printed only. */
  budget?: number;
  /** The nth request (n unique in the run). */
  request(n: number): HttpRequest;
  /** Replacements that turn the recorded request's operations into those of the nth request. */
  fresh(template: { n: number; body: string }, n: number): (readonly [string, string])[];
}

const dynamo = await startBenchDynamoDb('bench-throughput');
try {
  const { describeStages, quiet, recordCommands, replay, stagesOf } = await import('./support/commands.js');
  const { seedApp } = await import('./support/seed.js');
  const { startGateway } = await import('../local/gateway.js');
  const { SUBSCRIPTIONS_BASE } = await import('../lib/routes.js');
  const { newSubscriptionId } = await import('../lib/core/ids.js');
  const { mobileHeaders } = await import('../test/support/mobile.js');

  const app = await seedApp(1_000);
  const gateway = await startGateway({ port: 0 });
  let sequence = 0;
  const next = () => ++sequence;
  const bearer = { authorization: `Bearer ${app.secretKey}` };
  // Ids end in a delimiter, so replacing one never touches another that merely starts the same.
  const user = (n: number) => `bench-user:${n % USERS}:`;

  const send = async ({ method, path, headers, body }: HttpRequest) => {
    const response = await fetch(`${gateway.url}${path}`, { method, headers, body });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text;
  };
  // Subscriptions the detail requests rotate through (ids and users as listed).
  const listed = JSON.parse(await send({ method: 'GET', path: SUBSCRIPTIONS_BASE, headers: bearer })) as {
    data: { id: string; user_id: string }[];
  };
  const pool = listed.data;

  const scenarios: Scenario[] = [
    {
      name: 'GET /v1/subscriptions/{id}',
      perRequest: 1,
      unit: 'requests/s',
      budget: 0.7,
      request: (n) => ({ method: 'GET', path: `${SUBSCRIPTIONS_BASE}/${pool[n % pool.length]!.id}`, headers: bearer }),
      fresh: (template, n) => {
        const [from, to] = [pool[template.n % pool.length]!, pool[n % pool.length]!];
        return [
          [from.id, to.id],
          [`#${from.user_id}`, `#${to.user_id}`],
        ];
      },
    },
    {
      name: 'GET /v1/subscriptions?status=active',
      perRequest: 1,
      unit: 'requests/s',
      budget: 0.7,
      request: () => ({ method: 'GET', path: `${SUBSCRIPTIONS_BASE}?status=active`, headers: bearer }),
      fresh: () => [],
    },
    {
      name: 'POST /v1/subscriptions',
      perRequest: 1,
      unit: 'requests/s',
      request: (n) => ({
        method: 'POST',
        path: SUBSCRIPTIONS_BASE,
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: user(n), product_id: 'premium_monthly', platform: 'ios' }),
      }),
      // The server picks the new subscription's id: each replay writes a new one.
      fresh: (template, n) => [
        [(JSON.parse(template.body) as { data: { id: string } }).data.id, newSubscriptionId()],
        [user(template.n), user(n)],
      ],
    },
    {
      name: `POST /v2/users/report/events (${BATCH}/batch)`,
      perRequest: BATCH,
      unit: 'events/s',
      budget: 0.8,
      request: (n) => ({
        method: 'POST',
        path: '/v2/users/report/events',
        headers: { ...mobileHeaders(app, user(n)), 'content-type': 'application/json' },
        body: JSON.stringify({
          events: Array.from({ length: BATCH }, (_, i) => ({
            name: 'screen_view',
            user: user(n),
            sessionId: `session:${n}:`,
            eventId: `batch:${n}:${i}`,
            extra: { screen_name: 'home', i },
          })),
        }),
      }),
      fresh: (template, n) => [
        [`batch:${template.n}:`, `batch:${n}:`],
        [`session:${template.n}:`, `session:${n}:`],
        [user(template.n), user(n)],
      ],
    },
  ];

  /**
   * Completions of one side in one slice. The rate runs from the first to the last completion
   * within the slice, so neither the ramp-up nor the cut at its end counts (one 100-event batch
   * takes a good part of a second). CPU time of this process per completion, all of them.
   */
  function slice(scenario: Scenario, seconds: number) {
    const end = performance.now() + seconds * 1000;
    const cpu = process.cpuUsage();
    const times: number[] = [];
    let all = 0;
    return {
      end,
      completed() {
        all++;
        const now = performance.now();
        if (now <= end) times.push(now);
      },
      result(): Rate {
        if (times.length < 2) throw new Error(`${scenario.name}: fewer than 2 completions in a ${seconds} s slice`);
        const { user, system } = process.cpuUsage(cpu);
        return {
          perSecond: ((times.length - 1) * scenario.perRequest) / ((times.at(-1)! - times[0]!) / 1000),
          cpuMsPerRequest: (user + system) / 1000 / all,
        };
      },
    };
  }

  /**
   * Through the gateway over HTTP. Load goes on a little past the slice, so the whole slice runs at
   * full concurrency; what autocannon abandons at its end finishes before the next slice starts.
   */
  async function viaApi(scenario: Scenario, seconds: number): Promise<Rate> {
    let failure: string | undefined;
    const measured = slice(scenario, seconds);
    const result = await autocannon({
      url: gateway.url,
      connections: CONCURRENCY,
      duration: seconds + 1,
      requests: [
        {
          setupRequest: (request) => ({ ...request, ...scenario.request(next()) }),
          onResponse: (status, body) => {
            if (status >= 300) failure ??= `${status}: ${body}`;
            else measured.completed();
          },
        },
      ],
    });
    await quiet();
    if (failure || result.errors > 0)
      throw new Error(`${scenario.name}: ${failure ?? `${result.errors} connection errors`}`);
    return measured.result();
  }

  /** The recorded operations, replayed by CONCURRENCY loops. */
  async function raw(
    scenario: Scenario,
    plan: ReturnType<typeof stagesOf>,
    template: { n: number; body: string },
    seconds: number,
  ): Promise<Rate> {
    const measured = slice(scenario, seconds);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < measured.end) {
          await replay(plan, scenario.fresh(template, next()));
          measured.completed();
        }
      }),
    );
    return measured.result();
  }

  const figures: Record<string, unknown> = { concurrency: CONCURRENCY, slice_s: SLICE_S, pairs: PAIRS, batch: BATCH };
  const checks: BudgetCheck[] = [];
  const summary: string[] = [];
  // Record each endpoint's operations, then warm the JVM and every code path on both sides.
  const recorded = [];
  for (const scenario of scenarios) {
    await send(scenario.request(next())); // loads the handler and fills the key cache, as in a warm function
    const n = next();
    const { commands, result: body } = await recordCommands(() => send(scenario.request(n)));
    const plan = stagesOf(commands);
    console.log(`${scenario.name}: ${describeStages(plan)}`);
    recorded.push({ scenario, plan, template: { n, body } });
  }
  for (const { scenario, plan, template } of recorded) {
    await raw(scenario, plan, template, WARM_UP_S);
    await viaApi(scenario, WARM_UP_S);
  }
  for (const { scenario, plan, template } of recorded) {
    console.log(`\n${scenario.name}`);
    const pairs: { raw: Rate; api: Rate; ratio: number }[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      // Alternate which side goes first, so a drift in the machine's load favours neither.
      const rawFirst = pair % 2 === 0;
      const first = rawFirst ? await raw(scenario, plan, template, SLICE_S) : await viaApi(scenario, SLICE_S);
      const second = rawFirst ? await viaApi(scenario, SLICE_S) : await raw(scenario, plan, template, SLICE_S);
      const [rawRate, apiRate] = rawFirst ? [first, second] : [second, first];
      pairs.push({ raw: rawRate, api: apiRate, ratio: apiRate.perSecond / rawRate.perSecond });
      console.log(
        `  pair ${pair + 1}: raw ${rawRate.perSecond.toFixed(0)}, API ${apiRate.perSecond.toFixed(0)} ${scenario.unit} (${pairs.at(-1)!.ratio.toFixed(2)})`,
      );
    }
    const ratio = median(pairs.map((p) => p.ratio));
    const rates = { raw: median(pairs.map((p) => p.raw.perSecond)), api: median(pairs.map((p) => p.api.perSecond)) };
    const cpu = {
      raw: median(pairs.map((p) => p.raw.cpuMsPerRequest)),
      api: median(pairs.map((p) => p.api.cpuMsPerRequest)),
    };
    const line =
      `${scenario.name}: API ${rates.api.toFixed(0)} vs raw ${rates.raw.toFixed(0)} ${scenario.unit} (medians); API / raw ${ratio.toFixed(2)} (median of ${PAIRS} pairs); ` +
      `node CPU per request ${cpu.api.toFixed(2)} vs ${cpu.raw.toFixed(2)} ms`;
    console.log(`  ${line}`);
    summary.push(line);
    figures[scenario.name] = {
      operations: describeStages(plan),
      unit: scenario.unit,
      api_per_s: pairs.map((p) => Number(p.api.perSecond.toFixed(1))),
      raw_per_s: pairs.map((p) => Number(p.raw.perSecond.toFixed(1))),
      ratios: pairs.map((p) => Number(p.ratio.toFixed(3))),
      ratio: Number(ratio.toFixed(3)),
      cpu_ms_per_request: { api: Number(cpu.api.toFixed(3)), raw: Number(cpu.raw.toFixed(3)) },
    };
    if (scenario.budget !== undefined) {
      checks.push({
        name: `${scenario.name}: API / raw DynamoDB Local ${scenario.unit}`,
        value: Number(ratio.toFixed(3)),
        budget: `>= ${scenario.budget}`,
        pass: ratio >= scenario.budget,
      });
    }
  }
  await gateway.close();
  console.log(`\n${summary.join('\n')}`);
  writeResults('throughput', figures, checks);
  process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
} finally {
  await dynamo.stop();
}
