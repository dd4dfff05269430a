/**
 * docs/benchmarks.md, rendered from bench/results/*.json: every figure in it comes from a results
 * file, and the prose around the figures (what each benchmark measures, its budget) lives here.
 * `npm run bench` writes it after its runs; `npm run bench:report` rewrites it from the results
 * as they are; test/unit/benchmarks-doc.test.ts checks the committed page equals this output.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { billInputsOf, type MonthlyBill, monthlyBill, REVENUE_SHARE } from './monthly-bill.js';
import { byFolder, type MutationScopeResult } from './mutation-report.js';
import { type BudgetCheck, median } from './report.js';

export interface Results {
  benchmark: string;
  measured_at: string;
  node: string;
  figures: any;
  checks: BudgetCheck[];
}

export const RESULTS_DIR = resolve(import.meta.dirname, '../results');
export const BENCHMARKS_MARKDOWN = resolve(import.meta.dirname, '../../docs/benchmarks.md');

/** Every results file of `dir`, by benchmark name. */
export function loadResults(dir = RESULTS_DIR): Record<string, Results> {
  const results: Record<string, Results> = {};
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort())
    results[file.slice(0, -'.json'.length)] = JSON.parse(readFileSync(resolve(dir, file), 'utf8')) as Results;
  return results;
}

/** Renders the page from `results` and writes it to `out`; returns the path. */
export function writeBenchmarksMarkdown(out = BENCHMARKS_MARKDOWN, results = loadResults()): string {
  writeFileSync(out, renderBenchmarks(results));
  return out;
}

/** A number with thousands separators (no locale data involved, so every machine renders alike). */
const num = (value: number, digits?: number): string => {
  const text = digits === undefined ? String(value) : value.toFixed(digits);
  const [whole, fraction] = text.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
};
const kb = (bytes: number) => num(Math.round(bytes / 1024));
const usd = (value: number) => value.toFixed(2);
const range = ([low, high]: number[]) => `${num(low!)}–${num(high!)}`;
const code = (text: string) => `\`${text}\``;
/** A table row; a `|` inside a cell is escaped so it stays one cell. */
const row = (cells: (string | number)[]) =>
  `| ${cells.map((cell) => String(cell).replaceAll('|', '\\|')).join(' | ')} |`;
const table = (head: string[], rows: (string | number)[][], align?: string[]) =>
  [row(head), row(align ?? head.map(() => '---')), ...rows.map(row)].join('\n');
const when = (results: Results) => `Measured ${results.measured_at.slice(0, 10)} on Node ${results.node}.`;

/** The bill of the default app, as a table. */
function billSection(bill: MonthlyBill): string[] {
  const t = bill.traffic;
  return [
    `The bill of an app with ${num(t.mau)} monthly active users and ${num(t.subscribers)} subscribers at ` +
      `$${usd(t.priceUsd)} a month, ${t.launchesPerDay} launches and ${t.eventsPerDay} events per user per day ` +
      `(the defaults): ${num(Math.round(bill.requests.total / 1e6))} million requests a month, ${num(bill.events_per_request, 1)} events per batch.`,
    '',
    table(
      ['item', 'USD a month', 'of'],
      [
        ...bill.lines.map((line) => [line.item, num(line.usd, 2), line.detail]),
        ['**total**', `**${num(bill.total_usd, 2)}**`, `API Gateway ${Math.round(bill.gateway_share * 100)}% of it`],
        [
          `a ${REVENUE_SHARE * 100}% revenue-share service`,
          num(bill.revenue_share_usd, 2),
          `of $${num(bill.revenue_usd, 2)} revenue a month`,
        ],
      ],
      ['---', '---:', '---'],
    ),
    ...(bill.over_default_quotas.length === 0
      ? []
      : [
          '',
          `This app passes the default report quotas, which it must raise or have these reports refused (429): ${bill.over_default_quotas.join('; ')} ([security.md](security.md#report-quotas)).`,
        ]),
  ];
}

interface Section {
  name: string;
  title: string;
  command: string;
  /** What the benchmark measures and how, and its budget: prose, no figures. */
  about: string;
  render: (results: Results) => string;
}

const SECTIONS: Section[] = [
  {
    name: 'cold-start',
    title: 'Cold start',
    command: 'npm run bench:cold-start',
    about: `Every deployed function (the route handlers of \`lib/routes.ts\`, the event and job functions) is
built as the stack builds it (esbuild, minified ESM, AWS SDK inside) next to a floor bundle that only
creates a DynamoDBDocumentClient and does one GetItem. Each bundle runs in a fresh Node 24 process
with Lambda's environment: it is imported and serves one realistic request against a seeded DynamoDB
Local, in pairs with a floor process, the order alternating from pair to pair; a ratio is the median
of the pairs' ratios.

**Budgets** ([decisions/cold-start-budget.md](decisions/cold-start-budget.md)), on **CPU time**:
- every bundle within the floor + 120 KB (\`test/integration/bundle-sizes.test.ts\` checks it in
  \`npm test\` too);
- init (process start to the bundle imported: Node's bootstrap and the import, the phase Lambda bills
  as Init) within 1.2× the floor's, every function;
- init plus the first request: the median function within 1.25× the floor's, every function within 1.45×.

Each ratio is the median of at least 15 pairs. Its **noise band** is the 95% distribution-free
confidence interval of that median: the 4th to the 12th of 15 sorted pair ratios (in general the
order statistics the binomial distribution gives, \`bench/support/noise-band.ts\`). A function whose
band holds a budget it is judged by gets 16 more pairs, up to 63, before it is judged; for the median
function, the band runs from the median of the functions' lower bounds to that of their upper bounds,
and while it holds 1.25 the functions whose own band holds 1.25 are measured again. Past 63 pairs a
ratio still inside its band is judged by its median, and the run names it. CPU time, because wall
time on shared two-core machines mostly measures waiting for a core and swings between runs of the
same bundle; the wall ratio is shown beside it. Lambda cannot be measured here: the expected init on
Lambda is our init ratio times the published lambda-perf references. \`COLD_START_ONLY=<function
names>\` and \`COLD_START_RUNS\` (pairs before any is measured again, at least 15) run a subset (the
other functions' rows are kept from the last results, each row with its own floor runs); \`-- --help\`
lists every setting. A store notification's first request is the renewal of a purchase verified a
month ago; the App Store one runs a bundle built with the test chain's root in place of Apple's
(Apple signs no notification for a benchmark; only that constant differs), its size is the deployed
bundle's.`,
    render: (results) => {
      const f = results.figures;
      const functions = [...f.functions].sort((a: any, b: any) => b.total_ratio.median - a.total_ratio.median);
      const ratio = (value: number) => value.toFixed(2);
      const band = (r: { median: number; low: number; high: number }) =>
        `${ratio(r.median)} (${ratio(r.low)}–${ratio(r.high)})`;
      const typical = f.init_plus_first_request_ratio.median_function;
      return [
        `${when(results)} ${f.min_pairs} pairs per function, up to ${f.max_pairs} inside a noise band; load average ` +
          `${f.load_average.during[0]}–${f.load_average.during[1]} during the run (other work on the machine).`,
        '',
        `Floor: ${kb(f.floor.bytes)} KB, ${num(f.floor.cpu.total)} ms of CPU to import and serve one GetItem ` +
          `(wall ${num(f.floor.wall.total)} ms). Init plus the first request, against the floor: median function ` +
          `${ratio(typical.median)}× (band ${ratio(typical.low)}–${ratio(typical.high)}), worst ${ratio(f.init_plus_first_request_ratio.worst)}× ` +
          `(${f.init_plus_first_request_ratio.worst_function}). ` +
          (f.inside_a_band_at_max_pairs.length === 0
            ? 'Every budget was judged outside its noise band.'
            : `Judged by the median after ${f.max_pairs} pairs, still inside a band: ${f.inside_a_band_at_max_pairs.join(', ')}.`),
        '',
        `Expected init on Lambda (arm64): the median function's init is ${f.expected_lambda_init_ms.median_init_ratio}× ` +
          `the floor's, so about ${range(f.expected_lambda_init_ms.median.hello_world)} ms by the hello-world ` +
          `reference (${range(f.lambda_references_ms.hello_world)} ms) or ${range(f.expected_lambda_init_ms.median.bundled_sdk_client)} ms ` +
          `by the bundled-SDK reference (${range(f.lambda_references_ms.bundled_sdk_client)} ms); the worst ` +
          `(${f.expected_lambda_init_ms.worst_function}, ${f.expected_lambda_init_ms.worst_init_ratio}×) ` +
          `${range(f.expected_lambda_init_ms.worst.hello_world)} or ${range(f.expected_lambda_init_ms.worst.bundled_sdk_client)} ms.`,
        '',
        'Ratios with their noise band in parentheses:',
        '',
        table(
          [
            'function',
            'bundle KB',
            'over floor KB',
            'pairs',
            'CPU ms (init + first request)',
            'ratio (CPU)',
            'init ratio (CPU)',
            'ratio (wall)',
          ],
          functions.map((fn: any) => [
            fn.names.join(', '),
            kb(fn.bytes),
            kb(fn.over_floor_bytes),
            fn.pairs,
            num(fn.cpu.total),
            band(fn.total_ratio),
            band(fn.init_ratio),
            ratio(fn.wall_ratio.median),
          ]),
          ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'hot-path',
    title: 'Hot path',
    command: 'npm run bench:hot-path',
    about: `In one warm process, the handler (middy, header normalisation, zod, authentication and the rate
limit, the response envelope) against the \`lib/\` calls it makes with the same DynamoDB work,
alternating in pairs; the overhead is the median of the pair differences. **Budget**: ≤ 300 µs of
wall time for the detail read and a 10-event batch. The limiter's own logic is measured as
\`authenticateAndLimit\` against its counting write alone.`,
    render: (results) => {
      const f = results.figures;
      const scenarios = Object.entries(f).filter(([, value]) => typeof value === 'object') as [string, any][];
      return [
        `${when(results)} ${num(f.pairs)} alternating pairs.`,
        '',
        table(
          ['scenario', 'handler µs (wall / CPU)', 'direct µs (wall / CPU)', 'overhead µs (wall / CPU)'],
          scenarios.map(([name, s]) => [
            name,
            `${num(s.handler_us.wall)} / ${num(s.handler_us.cpu)}`,
            `${num(s.direct_us.wall)} / ${num(s.direct_us.cpu)}`,
            `**${num(s.overhead_us.wall)}** / ${num(s.overhead_us.cpu)}`,
          ]),
          ['---', '---:', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'throughput',
    title: 'Throughput',
    command: 'npm run bench:throughput',
    about: `Requests through the local gateway (autocannon) against a replay of the DynamoDB Local
operations recorded during one request of the same endpoint (the counting write included), in
alternating pairs of short slices; the median of the pair ratios. **Budgets**: API / raw ≥ 0.7 for
reads (detail, list), ≥ 0.8 for event ingestion (100-event batches, in events/s); create is
measured without a budget.`,
    render: (results) => {
      const f = results.figures;
      const scenarios = Object.entries(f).filter(([, value]) => typeof value === 'object') as [string, any][];
      return [
        `${when(results)} ${f.concurrency} clients, ${f.pairs} pairs of ${f.slice_s} s slices.`,
        '',
        table(
          [
            'endpoint',
            'DynamoDB operations',
            'API (median)',
            'raw (median)',
            'ratio',
            'CPU ms per request (API / raw)',
          ],
          scenarios.map(([name, s]) => [
            name,
            s.operations,
            `${num(median(s.api_per_s))} ${s.unit}`,
            `${num(median(s.raw_per_s))} ${s.unit}`,
            `**${s.ratio}**`,
            `${s.cpu_ms_per_request.api} / ${s.cpu_ms_per_request.raw}`,
          ]),
          ['---', '---', '---:', '---:', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'scaling',
    title: 'Scaling',
    command: 'npm run bench:scaling',
    about: `Consumed read capacity of the same queries for an app with few and an app with many
subscriptions, through the real handlers: list page 1 (unfiltered and filtered; counters give the
total, keys-only index queries and one batch read the page), 90 days of revenue by week (per-day counters, never the subscriptions)
and customer info of one user with three subscriptions on both APIs (the profile, the user's keys, one batch read; the
entitlement definitions cached by the warm function; the sdk key's figure includes its 1-unit read, the key cache being off
here). **Budget**: the larger app's capacity within 10% of the smaller's. Each request also makes the one write that
authenticates and counts it.`,
    render: (results) => {
      const f = results.figures;
      const queries = Object.entries(f) as [string, Record<string, { read_units: number; items: number }>][];
      const sizes = Object.keys(queries[0]![1]);
      return [
        when(results),
        '',
        table(
          ['query', ...sizes.map((size) => `read units at ${num(Number(size))} subscriptions`)],
          queries.map(([name, bySize]) => [name, ...sizes.map((size) => num(bySize[size]!.read_units))]),
          ['---', ...sizes.map(() => '---:')],
        ),
      ].join('\n');
    },
  },
  {
    name: 'cost-model',
    title: 'Cost per endpoint',
    command: 'npm run bench:cost',
    about: `Dollars per million requests of every route, US East (N. Virginia), on-demand, first pricing
tier, no free tier. Each handler is called in-process, warm, with one realistic request; consumed
capacity comes from \`ReturnConsumedCapacity\`, with \`TransactWriteItems\` units recomputed by AWS's
rules from the items before and after, because DynamoDB Local under-counts the table's and doubles
the indexes': 2 write units per started KB per item, and per index entry added, removed or with
changed projected attributes 1 per started KB (both when its key moves). Of the WRU, the index
entries' and the list and revenue counter items' (\`COUNT#\`, \`REV#\`) are shown apart. The
Lambda duration is measured against DynamoDB Local, far slower than DynamoDB, so it is an upper
bound (the part spent waiting on DynamoDB Local is in brackets). A status change adds one
EventBridge event, a stream-publisher invocation (one per event: the worst case) and the webhook
deliverer's invocation and units. V1 and V2 paths are one function and one row. DynamoDB Local counts
a \`BatchGetItem\` only for the items it finds, so rows that read by batch are slightly low.
The store notification rows are each the renewal of a subscription verified before (App Store in
Production, signed by the test chain; Google's state read from a local stand-in), and the DynamoDB
requests of that one notification are listed below. **Budgets**: every route of \`lib/routes.ts\` is
priced; processing one notification reads the purchase at most once and writes in one transaction;
a subscription creation or change writes at most 15 units (whole request, and without counter items).
Prices live in one module, \`bench/support/prices.ts\`.

**The bill of one app** (\`bench/support/monthly-bill.ts\`), from these per-request figures, at the
traffic an SDK makes: per monthly active user and launch (a start or a return to the foreground),
the session report (\`POST /v2/sessions/report\`: what the DingYue SDK's \`activate\` sends) and
customer info (\`GET /v2/users/customer_info\`: what a RevenueCat-style SDK reads at every launch and
foreground), what the app shows the user (\`GET /v2/offerings\`, read at every launch too; the DingYue
SDK's launch reads it within its session report, so for its apps an upper bound), and the events queued since the last launch in one batch (\`POST /v2/users/report/events\`,
events per day ÷ launches per day of them; its units, duration, log and stored bytes on the line
through a measured batch of 1 and one of 100 events); per subscriber and month, the store's renewal
notification (App Store) and the receipt the app sends again after it
(\`POST /receipt/verify/recover\`), each status change through the publisher, the bus and the
webhook deliverer, and the aggregator's units. REST calls by AWS's monthly tiers; WAF's web ACL, its
two rules and every request; the reports' storage for their 90 days; CloudWatch Logs ingested and
kept a month: our lines as the request wrote them at the deployed level (INFO), plus Lambda's START,
END, REPORT and X-Ray lines and the stage's access log line, per request. Lambda's duration is
estimated from the handler's CPU time (measured beside its wall time: a loaded machine inflates
wall time, not CPU time) at the share of a vCPU 1 GB gets (1,024 of the 1,769 MB that get one),
plus 5 ms per DynamoDB request it sends; the durations of the table (against DynamoDB Local) give
the upper bound shown beside it. \`npm run bench:cost -- --bill\`
prints the bill from the committed results without measuring; \`--mau\`, \`--subscribers\`,
\`--price\`, \`--launches\`, \`--events\` (or \`COST_MAU\`, \`COST_SUBSCRIBERS\`, \`COST_PRICE_USD\`,
\`COST_LAUNCHES_PER_DAY\`, \`COST_EVENTS_PER_DAY\`) describe another app; \`-- --help\` lists them.`,
    render: (results) => {
      const f = results.figures;
      const prices = Object.values(f.prices) as { usd: number; unit: string; source: string; date: string }[];
      return [
        `${when(results)} Lambda billed at ${f.lambda_memory_gb} GB; duration the median of ${f.runs_per_handler} invocations.`,
        '',
        table(
          [
            'endpoint',
            'RRU',
            'WRU',
            'of which indexes',
            'of which counters',
            'handler ms (waiting on DynamoDB Local)',
            'heap Δ KB',
            'status changes',
            'API Gateway',
            'Lambda',
            'DynamoDB',
            'notifications',
            '**$ / million**',
          ],
          f.endpoints.map((e: any) => [
            code(e.endpoint),
            num(e.read_units),
            num(e.write_units),
            num(e.index_write_units ?? 0),
            num(e.counter_write_units ?? 0),
            `${num(e.handler_ms)} (${num(e.waiting_on_dynamodb_ms)})`,
            num(e.heap_delta_kb),
            e.status_changes,
            usd(e.usd_per_million_requests.api_gateway),
            usd(e.usd_per_million_requests.lambda),
            usd(e.usd_per_million_requests.dynamodb),
            usd(e.usd_per_million_requests.notifications),
            `**${usd(e.usd_per_million_requests.total)}**`,
          ]),
          ['---', ...Array(12).fill('---:')],
        ),
        ...(f.store_notification_commands
          ? [
              '',
              'DynamoDB requests of one renewal notification, in order (items as partition / sort key prefix):',
              '',
              table(
                ['route', 'reads of the purchase', 'other reads', 'transactions', 'requests'],
                Object.entries(f.store_notification_commands).map(([name, c]: [string, any]) => [
                  name,
                  c.purchase_reads,
                  c.other_reads,
                  c.transactions,
                  c.commands.map(code).join(' → '),
                ]),
                ['---', '---:', '---:', '---:', '---'],
              ),
            ]
          : []),
        '',
        `Per status change: $${usd(f.per_status_change.usd)} per million (the deliverer ${num(f.per_status_change.deliverer_ms)} ms, ` +
          `${num(f.per_status_change.deliverer_read_units)} RRU, ${num(f.per_status_change.deliverer_write_units)} WRU). ` +
          `The benchmark process peaked at ${num(f.process_rss_mb)} MB RSS.`,
        '',
        ...(f.aggregator
          ? [
              `The aggregator (list counts, revenue counters and subscription history, from the table's stream) adds, ` +
                `per subscription write it counts, ${num(f.aggregator.write_units_per_write_alone)} WRU when the write is ` +
                `alone in its stream batch (an app with about one change a second) and ` +
                `${num(f.aggregator.write_units_per_write_batched)} WRU in a batch of ${num(f.aggregator.writes)} (one ` +
                'write per counter item per batch' +
                (f.aggregator.history_write_units_per_write === undefined
                  ? ''
                  : `, and ${num(f.aggregator.history_write_units_per_write)} WRU per write for its history entry`) +
                '); the table above does not include it.',
            ]
          : []),
        '',
        ...(f.events_of_one ? ['', ...billSection(monthlyBill(billInputsOf(f)))] : []),
        '',
        `**Not included**: ${f.excluded.join('; ')}.`,
        '',
        'Prices:',
        '',
        table(
          ['item', 'USD per million', 'source', 'date'],
          prices.map((price) => [
            price.unit,
            String(Number((price.usd * 1e6).toPrecision(6))),
            price.source,
            price.date,
          ]),
          ['---', '---:', '---', '---'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'hot-app',
    title: 'Hot app',
    command: 'npm run bench:hot-app',
    about: `One app's subscriptions changing at once, on a model of DynamoDB's transaction conflicts and
per-item throughput (the conflict proxy, [capacity.md](capacity.md)). **Real run**: verifications,
renewals, cancellations (now and at the period's end) and test-store renewal notifications of one app,
each on its own subscription, sent in-process to the handlers by rising numbers of concurrent
writers, every transaction holding its items for the transaction time; afterwards the list counters
must equal a recount of the app's subscriptions and the revenue items the deltas of the changes the
table shows applied (polled for up to 15 s, for counters kept behind the writes). **Simulation**: each
kind of change run alone twice gives the items it writes (shared: touched by both, named by neither's
ids); those item sets replayed at 1,000 and 10,000 changes/s of one app, with conflict on overlap and
1,000 WCU/s per item. **Budgets**: no client-visible error (non-2xx, or a notification not applied) and
exact figures at every concurrency; at 1,000 changes/s, under 1% of transactions conflicting and no
item needing more than 500 WCU/s. \`-- --quick\` runs two short levels; \`-- --hold-ms N\` sets the
transaction time.`,
    render: (results) => {
      const f = results.figures;
      const units = (items: { write_units: number }[]) => items.reduce((sum, i) => sum + i.write_units, 0);
      const s = f.simulation_settings;
      return [
        `${when(results)} ${num(f.seeded_subscriptions)} subscriptions seeded; transaction time ${f.transaction_hold_ms} ms` +
          `${f.quick ? ' (quick run)' : ''}; mix by weight: ${Object.entries(f.mix)
            .map(([kind, weight]) => `${kind} ${weight}`)
            .join(', ')}.`,
        '',
        table(
          [
            'writers',
            'changes',
            'succeeded',
            'changes/s',
            'p50 ms',
            'p99 ms',
            'conflicts (retried)',
            'client-visible errors',
            'figures',
          ],
          f.real_run.map((r: any) => [
            r.writers,
            num(r.changes),
            num(r.succeeded),
            num(r.changes_per_s),
            num(r.p50_ms),
            num(r.p99_ms),
            `${num(r.conflicts)} (${num(r.conflicts_retried)})`,
            `**${num(r.client_visible_errors)}**`,
            r.figures_exact
              ? `exact after ${num(r.settle_ms)} ms`
              : `**${num(r.mismatches)} off** after ${num(r.settle_ms)} ms`,
          ]),
          ['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---'],
        ),
        '',
        "What each change writes, from the proxy's record of it run alone (table write units: 1 per KB, doubled in a transaction; index writes not included):",
        '',
        table(
          ['change', 'weight', 'writes', 'WCU', 'shared items (WCU)'],
          f.profiles.map((p: any) => {
            const items = p.writes.flatMap((w: any) => w.items);
            const shared = items.filter((i: any) => i.shared);
            return [
              p.name,
              p.weight,
              p.writes.map((w: any) => code(w.operation)).join(' + '),
              units(items),
              `${shared.length} (${units(shared)})`,
            ];
          }),
          ['---', '---:', '---', '---:', '---:'],
        ),
        '',
        `Simulated ${num(s.seconds)} s per rate: transaction ${s.transaction_ms} ms, single-item write ${s.single_write_ms} ms, ` +
          `${num(s.item_wcu_per_s)} WCU/s per item (${s.burst_s} s of burst), ${s.retries} retry of a conflict after up to ` +
          `${s.retry_jitter_ms} ms of jitter, seed ${s.seed}; background writers: ${
            f.background_writers.length === 0
              ? 'none'
              : f.background_writers.map((w: any) => `${w.name} (${w.flushesPerSecond} flushes/s)`).join(', ')
          }.`,
        '',
        table(
          [
            'changes/s',
            'transactions conflicting (first try)',
            'changes failed after retry',
            'throttled writes',
            'hottest item',
            'WCU/s needed',
            'items needing > 500 WCU/s',
          ],
          f.simulation.map((r: any) => [
            num(r.changes_per_s),
            `**${r.conflict_rate_percent}%**`,
            `${r.failed_changes_percent}%`,
            num(r.throttled_writes),
            code(r.hottest[0]?.item ?? '-'),
            `**${num(r.hottest[0]?.demand_wcu_per_s ?? 0)}**`,
            num(r.items_over_500_wcu_per_s),
          ]),
          ['---:', '---:', '---:', '---:', '---', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'events',
    title: 'Event ingestion',
    command: 'npm run bench:events',
    about: `Write units and dollars per reported event: \`POST /v2/users/report/events\` through the real
handler, in-process (authentication, the per-user rate limit and the user's activity included), at 1
to 1,000 events per request (1,000 is the most a request may carry), with small events and events of
exactly 1 KB as sent (a purchase with a dozen properties), for a returning user whose profile holds 100
custom properties (about 6 KB). Events are stored by \`BatchWriteItem\` of plain puts keyed by the
event's key (its \`eventId\`, or a hash of its content and place in the batch): a resent event overwrites
itself, so it is stored once without a condition or a transaction. A request writes its events (1 write
unit per started KB of each), its rate-limit window and the user's activity; the app's report quota item
(issue #36: events a minute and bytes a day per app) is written by a function instance once per flush
share of the app's limits or after 5 s, not per request ([security.md](security.md#report-quotas)). The bench
sets quotas no request reaches (\`bench/support/local-dynamodb.ts\`), so the quota item is written at the
first request and once 5 s passed since the last write (after a run of 1,000-event requests): about 6 of its 38
requests, 1 write unit each, which the medians below leave out. At the default quotas a request of 100
events or more also writes it (1 write unit, at most 0.01 per event). Dollars per million events
as in the cost table (API Gateway REST, Lambda at 1 GB with the duration measured against DynamoDB
Local: an upper bound, DynamoDB on-demand). **Budgets**: an event of at most 1 KB as sent (small, and
the one with a dozen properties) costs at most 1 write unit (its marginal cost from 1 to 1,000 events per request); what a request writes besides its
events costs at most 2 write units whatever the size of the user's profile; a resent batch stores nothing twice.`,
    render: (results) => {
      const f = results.figures;
      const rows = Object.entries(f.batches as Record<string, any[]>).flatMap(([kind, batches]) =>
        batches.map((b) => [
          kind,
          num(b.events_per_request),
          num(b.bytes_per_event),
          num(b.stored_bytes_per_event),
          num(b.write_units),
          num(b.write_units_per_event),
          num(b.read_units_per_event),
          num(b.handler_ms),
          `**${usd(b.usd_per_million_events)}**`,
        ]),
      );
      return [
        when(results),
        '',
        table(
          [
            'event',
            'events / request',
            'bytes as sent',
            'bytes stored',
            'WRU / request',
            'WRU / event',
            'RRU / event',
            'handler ms',
            '**$ / million events**',
          ],
          rows,
          ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
        ),
        '',
        `A resent batch of ${num(f.resend.events)} events costs ${num(f.resend.write_units)} write units again and ` +
          `stores ${num(f.resend.stored_added)} more events. An event is stored without what its key holds, so its ` +
          'item is about its size as sent; DynamoDB encodes a property in fewer bytes than JSON does, so the rows ' +
          'with more properties store smaller. An event whose item passes 1 KB (the one-property row) takes ' +
          '2 write units: that row is reported, not budgeted.',
      ].join('\n');
    },
  },
  {
    name: 'soak',
    title: 'Soak',
    command: 'npm run soak',
    about: `Mixed traffic from concurrent clients over HTTP at the local runtime of \`npm start\` (gateway,
stream poller, bus, webhook deliverer, sweeper), with DynamoDB Local killed (SIGKILL) and restarted
midway; then the whole table and the webhooks received are reconciled against what the clients
were told (see [security.md](security.md#load-and-faults)). Separate from \`npm test\`
(\`test/integration/soak-smoke.test.ts\` runs a short version there). \`SOAK_SECONDS\`,
\`SOAK_CLIENTS\` and \`SOAK_OUTAGE_SECONDS\` size it. It reads for correctness, not capacity: these
machines are shared. **Budgets**: only retryable 503s, and only during the outage; every
reconciliation without a mismatch.`,
    render: (results) => {
      const f = results.figures;
      return [
        `${when(results)} ${num(f.seconds)} s, ${f.clients} clients, ${num(f.requests)} requests ` +
          `(${num(f.requests_per_s)}/s): ${num(f.outcomes.ok)} 2xx and ${num(f.outcomes.retryable)} retryable 503s; ` +
          `p50 ${num(f.overall.p50_ms)} ms, p99 ${num(f.overall.p99_ms)} ms. Outage: ` +
          `${num((f.outage.restoredAt - f.outage.killedAt) / 1000, 1)} s, ${num(f.outage.writesAcknowledgedWhileDown)} writes ` +
          `acknowledged while down, ${num(f.outage.writesAcknowledgedAfterRestart)} after the restart. ` +
          `${num(f.webhooks.distinct_ids)} distinct webhooks received; notifications drained ` +
          `${num(f.drain.ms / 1000, 1)} s after the traffic stopped.`,
        '',
        table(
          ['request type', 'requests', '2xx', 'p50 ms', 'p99 ms', 'statuses'],
          Object.entries(f.by_type).map(([name, t]: [string, any]) => [
            name,
            num(t.requests),
            num(t.ok),
            num(t.p50_ms),
            num(t.p99_ms),
            Object.entries(t.statuses)
              .map(([status, count]) => `${status}: ${num(count as number)}`)
              .join(', '),
          ]),
          ['---', '---:', '---:', '---:', '---:', '---'],
        ),
        '',
        table(
          ['reconciliation', 'checked', 'mismatches'],
          f.reconciliation.map((r: any) => [
            r.name,
            num(r.checked),
            `${r.mismatches.length}${r.tolerated ? ` (tolerated: ${r.tolerated})` : ''}`,
          ]),
          ['---', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'dynamodb-local-sigkill',
    title: 'DynamoDB Local under SIGKILL',
    command: 'node --import tsx bench/dynamodb-local-sigkill.ts',
    about: `What DynamoDB Local itself loses when killed with SIGKILL, with no service in between: writers
send \`PutItem\` or \`TransactWriteItems\` straight to it, it is killed mid-stream and restarted on
the same data, and every acknowledged write is read back. It acknowledges a transaction a few
milliseconds before it is durable, so a kill can lose the last one; the soak tolerates exactly that
(DynamoDB does not do this). No budget: it documents the engine the tests run on.`,
    render: (results) => {
      const f = results.figures;
      return [
        `${when(results)} ${f.writers} writers, ${num(f.write_ms / 1000)} s of writes per round.`,
        '',
        table(
          ['round', 'write', 'acknowledged', 'lost (ms from acknowledgement to kill)', 'torn'],
          f.rounds.map((r: any, index: number) => [
            index + 1,
            code(r.kind),
            num(r.acknowledged),
            r.lost.length === 0
              ? '0'
              : `${r.lost.length} (${r.lost.map((lost: any) => num(-lost.acknowledged_ms_from_kill)).join(', ')})`,
            num(r.torn),
          ]),
          ['---:', '---', '---:', '---', '---:'],
        ),
      ].join('\n');
    },
  },
  {
    name: 'mutation',
    title: 'Mutation testing',
    command: 'npm run mutate',
    about: `StrykerJS makes one-line changes (mutants) to \`lib/\` and runs the tests that cover each; the score
is the share of mutants some test detects. One scope per folder (\`lib/data\` in three parts, summed
here), each against the tests meant to hold it (\`bench/support/mutation-scopes.ts\`). Goals: 85% in
\`lib/domain\` and \`lib/http\`, 75% elsewhere.
\`npm run bench\` does not run it (it takes minutes per folder); it reads the last report. A rerun tests
only what changed (code, or the tests covering it); \`npm run mutate -- <scope> --force\` tests every
mutant again, and \`--ignore-static\` leaves out the mutants that only run while a module loads (each
runs every test of its scope), counting them as not run; the tests that hold such import-time tables
load the module afresh so that the mutants count as theirs ([mutation.md](mutation.md#import-time-tables)).
Every surviving mutant, and every one ignored as equivalent with its reason: [mutation.md](mutation.md).`,
    render: (results) => {
      const scopes = Object.entries(byFolder(results.figures.scopes as Record<string, MutationScopeResult>));
      return [
        `${when(results)}`,
        '',
        table(
          ['folder', 'score', 'goal', 'mutants', 'killed', 'timed out', 'survived', 'no coverage', 'ignored'],
          scopes.map(([name, r]) => [
            code(`lib/${name}`),
            `${num(r.score)}%`,
            `${r.goal}%`,
            num(r.mutants),
            num(r.killed),
            num(r.timed_out),
            num(r.survived),
            num(r.no_coverage),
            num(r.ignored),
          ]),
          ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
        ),
      ].join('\n');
    },
  },
];

export function renderBenchmarks(results: Record<string, Results>): string {
  const known = new Set(SECTIONS.map((section) => section.name));
  const unknown = Object.keys(results).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`no section renders bench/results/${unknown.join('.json, ')}.json`);
  const budgets = SECTIONS.flatMap((section) =>
    (results[section.name]?.checks ?? []).map((check) => [
      section.title,
      check.name,
      num(check.value),
      check.budget,
      check.pass ? 'PASS' : '**FAIL**',
    ]),
  );
  const failing = budgets.filter((budget) => budget[4] !== 'PASS').length;
  return `${[
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench:report` from bench/results/*.json (bench/support/report-markdown.ts). Do not edit. -->',
    '',
    `\`npm run bench\` runs the cold-start, hot-path, throughput, scaling, cost and hot-app benchmarks one after
another (several minutes), prints every budget with PASS or FAIL, and rewrites this page; each also runs
alone (the command under its heading) and writes \`bench/results/<name>.json\`, after which
\`npm run bench:report\` rewrites this page from the results as they are. Every figure below comes
from those files. The machines are shared and noisy, so performance is measured as ratios against
a reference run side by side in the same run (the floor bundle, raw DynamoDB Local operations);
reruns move a ratio by a few hundredths, more under load.`,
    '',
    '## Budgets',
    '',
    `${budgets.length} budgets, ${failing === 0 ? 'all PASS' : `${failing} FAIL`} in the committed results.`,
    '',
    table(['benchmark', 'check', 'value', 'budget', 'result'], budgets, ['---', '---', '---:', '---', '---']),
    ...SECTIONS.flatMap((section) => {
      const sectionResults = results[section.name];
      return [
        '',
        `## ${section.title}`,
        '',
        `\`${section.command}\``,
        '',
        section.about,
        '',
        sectionResults
          ? section.render(sectionResults)
          : `Not measured yet: no \`bench/results/${section.name}.json\`.`,
      ];
    }),
  ].join('\n')}\n`;
}
