/**
 * The monthly AWS bill of one app at the traffic its users' SDK makes, line by line, from the
 * per-request figures `npm run bench:cost` measures (bench/results/cost-model.json) and the prices
 * in prices.ts; next to what a service taking 1% of the app's revenue charges for the same app.
 *
 * The request mix, per monthly active user, per launch (a cold start or a return to the foreground,
 * where an SDK refreshes what it shows):
 * - the session report (`POST /v2/sessions/report`, the DingYue SDK's `activate`);
 * - customer info (`GET /v2/users/customer_info`, what a RevenueCat-style SDK reads at every launch
 *   and foreground to decide the entitlements);
 * - what the app shows the user (`GET /v2/offerings`: offerings, placements, remote switches),
 *   which such an SDK reads at every launch too; the DingYue SDK's launch reads it within its
 *   session report, so for an app on that SDK this line is an upper bound;
 * - the events since the last launch in one batch (`POST /v2/users/report/events`): an SDK queues
 *   its events and flushes them at the next launch, so a request carries events per day / launches
 *   per day of them (at least 1, at most the 1,000 a request may carry).
 * Per subscriber and month (a monthly plan): the store's renewal notification (App Store), and the
 * receipt the app sends again at its next launch (`POST /receipt/verify/recover`). Each status change
 * also goes through the bus: the stream publisher, one EventBridge event, the webhook deliverer.
 * Lambda's duration is estimated from each request's CPU time and DynamoDB requests (estimatedMs).
 */
import { DEFAULT_REPORT_QUOTAS } from '../../lib/domain/report-quota.js';
import { LAMBDA_MEMORY_GB, PRICES } from './prices.js';

/** What the app's users do. */
export interface AppTraffic {
  /** Monthly active users. */
  mau: number;
  subscribers: number;
  /** What a subscriber pays a month, USD. */
  priceUsd: number;
  /** Launches and returns to the foreground per active user per day. */
  launchesPerDay: number;
  /** Events an active user's app reports per day. */
  eventsPerDay: number;
}

export const DEFAULT_TRAFFIC: AppTraffic = {
  mau: 3_000_000,
  subscribers: 100_000,
  priceUsd: 5,
  launchesPerDay: 5,
  eventsPerDay: 20,
};

export const DAYS_PER_MONTH = 30;
/** The web ACL's rules (cdk/constructs/waf.ts: the per-IP limit, the notification routes' and RevenueCat's dialect's; test/cdk/stack.test.ts counts them). */
export const WAF_RULES = 3;
/** Log groups keep a month (cdk/constructs/service-function.ts, api.ts: RetentionDays.ONE_MONTH). */
const LOG_RETENTION_MONTHS = 1;
/** DynamoDB counts 100 bytes of overhead per stored item. */
const ITEM_OVERHEAD_BYTES = 100;
/** AWS bills GB of data as 2^30 bytes (GiB). */
const GB = 1024 ** 3;
/** The most events one request may carry (lib/domain/events.ts). */
const MAX_EVENTS_PER_REQUEST = 1000;
/**
 * Lambda's duration, estimated from a request's measurements rather than taken from its wall time
 * against DynamoDB Local (far slower than DynamoDB, and on a loaded machine mostly a wait for a
 * core): the handler's CPU time at the share of a vCPU 1 GB gets (Lambda gives one vCPU at 1,769
 * MB), plus each DynamoDB request one after the other at DynamoDB's single-digit milliseconds.
 */
export const VCPU_SHARE = (LAMBDA_MEMORY_GB * 1024) / 1769;
export const DYNAMODB_ROUND_TRIP_MS = 5;
export const estimatedMs = (r: Pick<MeasuredRequest, 'handler_cpu_ms' | 'dynamodb_requests'>): number =>
  r.handler_cpu_ms / VCPU_SHARE + r.dynamodb_requests * DYNAMODB_ROUND_TRIP_MS;
/** What a revenue-share service takes. */
export const REVENUE_SHARE = 0.01;

/**
 * What a successful invocation logs besides our own lines, as Lambda (text format, active tracing)
 * and the API's access log (AccessLogFormat.jsonWithStandardFields) write them.
 */
export const PLATFORM_LOG_LINES = {
  lambda: [
    'START RequestId: 0b0b3f7e-5a64-4a3c-9f55-6d2f4c0e8a11 Version: $LATEST\n',
    'END RequestId: 0b0b3f7e-5a64-4a3c-9f55-6d2f4c0e8a11\n',
    'REPORT RequestId: 0b0b3f7e-5a64-4a3c-9f55-6d2f4c0e8a11\tDuration: 23.61 ms\tBilled Duration: 24 ms\tMemory Size: 1024 MB\tMax Memory Used: 98 MB\t\n' +
      'XRAY TraceId: 1-674c1e2a-0a1b2c3d4e5f60718293a4b5\tSegmentId: 1a2b3c4d5e6f7a8b\tSampled: true\t\n',
  ],
  accessLog:
    '{"requestId":"0b0b3f7e-5a64-4a3c-9f55-6d2f4c0e8a11","ip":"203.0.113.42","user":"-","caller":"-","requestTime":"01/Dec/2026:10:15:42 +0000","httpMethod":"GET","resourcePath":"/v2/users/customer_info","status":"200","protocol":"HTTP/1.1","responseLength":"712"}\n',
};
const bytesOf = (lines: string[]) => lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
/** Bytes logged per invocation by Lambda itself, and per request by the gateway's access log. */
export const LAMBDA_PLATFORM_LOG_BYTES = bytesOf(PLATFORM_LOG_LINES.lambda);
export const ACCESS_LOG_BYTES = Buffer.byteLength(PLATFORM_LOG_LINES.accessLog);

/** One measured request of a route (a row of cost-model.json's endpoints, or one measured beside them). */
export interface MeasuredRequest {
  read_units: number;
  write_units: number;
  /** Wall time of the handler against DynamoDB Local: an upper bound of Lambda's duration. */
  handler_ms: number;
  /** CPU time of the handler, and the DynamoDB requests it sent: the estimate of Lambda's duration. */
  handler_cpu_ms: number;
  dynamodb_requests: number;
  status_changes: number;
  /** What our logger wrote while it was served, at the deployed level (INFO). */
  log_bytes: number;
  /** Items written that expire (reports: sessions, events), and their bytes as DynamoDB counts them. */
  expiring_items: number;
  expiring_bytes: number;
}

export interface BillInputs {
  session: MeasuredRequest;
  customerInfo: MeasuredRequest;
  offerings: MeasuredRequest;
  /** An event batch of one event and one of `events` events, between which a batch is interpolated. */
  eventsOfOne: MeasuredRequest;
  eventsBatch: MeasuredRequest & { events: number };
  renewal: MeasuredRequest;
  reverify: MeasuredRequest;
  perStatusChange: {
    publisher_ms: number;
    deliverer_ms: number;
    deliverer_read_units: number;
    deliverer_write_units: number;
  };
  /** The aggregator's write units per subscription write it counts (alone in its stream batch). */
  aggregatorWriteUnits: number;
  /** How long reported items are kept. */
  retentionDays: number;
}

/** The inputs of the bill from cost-model.json's figures. */
export function billInputsOf(figures: any): BillInputs {
  const measured = (figures: { operations: string[] } & Omit<MeasuredRequest, 'dynamodb_requests'>) => ({
    ...figures,
    dynamodb_requests: figures.operations.length,
  });
  const row = (route: string): MeasuredRequest => {
    const found = figures.endpoints.find((e: { routes: string[] }) => e.routes.includes(route));
    if (!found) throw new Error(`cost-model.json has no row of ${route}`);
    return measured(found);
  };
  return {
    session: row('ReportSession'),
    customerInfo: row('CustomerInfo'),
    offerings: row('UserOfferings'),
    eventsOfOne: measured(figures.events_of_one),
    eventsBatch: { ...row('ReportEvents'), events: figures.event_batch },
    renewal: row('AppStoreNotification'),
    reverify: row('RecoverReceipt'),
    perStatusChange: figures.per_status_change,
    aggregatorWriteUnits: figures.aggregator.write_units_per_write_alone,
    retentionDays: figures.event_retention_days,
  };
}

/** A request of `events` events, on the line through the one-event and the batch measurements. */
export function eventBatch(inputs: BillInputs, events: number): MeasuredRequest {
  const { eventsOfOne: one, eventsBatch: batch } = inputs;
  const at = (of: (r: MeasuredRequest) => number) =>
    of(one) + ((of(batch) - of(one)) * (events - 1)) / (batch.events - 1);
  return {
    read_units: at((r) => r.read_units),
    write_units: at((r) => r.write_units),
    handler_ms: at((r) => r.handler_ms),
    handler_cpu_ms: at((r) => r.handler_cpu_ms),
    dynamodb_requests: at((r) => r.dynamodb_requests),
    status_changes: 0,
    log_bytes: at((r) => r.log_bytes),
    expiring_items: at((r) => r.expiring_items),
    expiring_bytes: at((r) => r.expiring_bytes),
  };
}

/** REST API calls of a month at the tiered price. */
export function restApiUsd(requests: number): number {
  const tiers: [number, number][] = [
    [333e6, PRICES.apiGatewayRestRequest.usd],
    [667e6, PRICES.apiGatewayRestRequestNext667M.usd],
    [19e9, PRICES.apiGatewayRestRequestNext19B.usd],
    [Number.POSITIVE_INFINITY, PRICES.apiGatewayRestRequestOver20B.usd],
  ];
  let left = requests;
  let usd = 0;
  for (const [size, price] of tiers) {
    const inTier = Math.min(left, size);
    usd += inTier * price;
    left -= inTier;
  }
  return usd;
}

export interface BillLine {
  item: 'API Gateway' | 'WAF' | 'Lambda' | 'DynamoDB' | 'EventBridge' | 'CloudWatch Logs';
  usd: number;
  /** What it is made of, in words and figures. */
  detail: string;
}

export interface MonthlyBill {
  traffic: AppTraffic;
  requests: {
    session: number;
    customer_info: number;
    offerings: number;
    events: number;
    renewal: number;
    reverify: number;
    total: number;
  };
  events_per_request: number;
  status_changes: number;
  lines: BillLine[];
  total_usd: number;
  /** API Gateway's part of the total. */
  gateway_share: number;
  revenue_usd: number;
  revenue_share_usd: number;
  /** Where the traffic passes the default report quotas (docs/security.md#report-quotas). */
  over_default_quotas: string[];
}

/** A number with thousands separators, to `digits` decimals (no locale data: every machine prints alike). */
export const grouped = (value: number, digits = 0): string => {
  const [whole, fraction] = value.toFixed(digits).split('.');
  const text = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? text : `${text}.${fraction}`;
};
const millions = (n: number) => `${grouped(n / 1e6, 1)} million`;
const usdText = (value: number) => `$${grouped(value, 2)}`;

export function monthlyBill(inputs: BillInputs, traffic: AppTraffic = DEFAULT_TRAFFIC): MonthlyBill {
  for (const [name, value] of Object.entries(traffic))
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of at least 0, got ${value}`);
  if (traffic.launchesPerDay <= 0) throw new Error('launchesPerDay must be above 0');
  const launches = traffic.mau * traffic.launchesPerDay * DAYS_PER_MONTH;
  const events = traffic.mau * traffic.eventsPerDay * DAYS_PER_MONTH;
  const eventsPerRequest = Math.min(MAX_EVENTS_PER_REQUEST, Math.max(1, traffic.eventsPerDay / traffic.launchesPerDay));
  const kinds: [keyof Omit<MonthlyBill['requests'], 'total'>, number, MeasuredRequest][] = [
    ['session', launches, inputs.session],
    ['customer_info', launches, inputs.customerInfo],
    ['offerings', launches, inputs.offerings],
    ['events', events / eventsPerRequest, eventBatch(inputs, eventsPerRequest)],
    ['renewal', traffic.subscribers, inputs.renewal],
    ['reverify', traffic.subscribers, inputs.reverify],
  ];
  const sum = (of: (count: number, r: MeasuredRequest) => number) =>
    kinds.reduce((total, [, count, r]) => total + of(count, r), 0);
  const requests = sum((count) => count);
  const statusChanges = sum((count, r) => count * r.status_changes);
  const { perStatusChange: change } = inputs;
  const gbSeconds = (ms: number) => (Math.ceil(ms) / 1000) * LAMBDA_MEMORY_GB;

  const invocations = requests + 2 * statusChanges;
  // The bus's two functions at their measured durations: a few per subscriber a month.
  const busGbSeconds = statusChanges * (gbSeconds(change.publisher_ms) + gbSeconds(change.deliverer_ms));
  const computeGbSeconds = sum((count, r) => count * gbSeconds(estimatedMs(r))) + busGbSeconds;
  const measuredGbSeconds = sum((count, r) => count * gbSeconds(r.handler_ms)) + busGbSeconds;
  const readUnits = sum((count, r) => count * r.read_units) + statusChanges * change.deliverer_read_units;
  // Each status change is a subscription write the aggregator counts.
  const writeUnits =
    sum((count, r) => count * r.write_units) +
    statusChanges * (change.deliverer_write_units + inputs.aggregatorWriteUnits);
  // Reports expire after the retention: the table holds that many days of them.
  const storedBytes =
    (sum((count, r) => count * (r.expiring_bytes + r.expiring_items * ITEM_OVERHEAD_BYTES)) / DAYS_PER_MONTH) *
    inputs.retentionDays;
  const logBytes =
    sum((count, r) => count * (r.log_bytes + LAMBDA_PLATFORM_LOG_BYTES + ACCESS_LOG_BYTES)) +
    statusChanges * 2 * LAMBDA_PLATFORM_LOG_BYTES;
  const logsUsd =
    (logBytes / GB) *
    (PRICES.cloudWatchLogsIngestedGb.usd + LOG_RETENTION_MONTHS * PRICES.cloudWatchLogsStoredGbMonth.usd);

  const lines: BillLine[] = [
    {
      item: 'API Gateway',
      usd: restApiUsd(requests),
      detail: `${millions(requests)} REST API calls, tiered`,
    },
    {
      item: 'WAF',
      usd: PRICES.wafWebAclMonth.usd + WAF_RULES * PRICES.wafRuleMonth.usd + requests * PRICES.wafRequest.usd,
      detail: `web ACL and ${WAF_RULES} rules, ${millions(requests)} requests inspected`,
    },
    {
      item: 'Lambda',
      usd: invocations * PRICES.lambdaRequest.usd + computeGbSeconds * PRICES.lambdaArmGbSecond.usd,
      detail:
        `${millions(invocations)} invocations, ${millions(computeGbSeconds)} GB-s (CPU at 1 GB's vCPU share, ${DYNAMODB_ROUND_TRIP_MS} ms per DynamoDB request; ` +
        `${usdText(measuredGbSeconds * PRICES.lambdaArmGbSecond.usd)} at the durations against DynamoDB Local, an upper bound)`,
    },
    {
      item: 'DynamoDB',
      usd:
        readUnits * PRICES.dynamodbReadRequestUnit.usd +
        writeUnits * PRICES.dynamodbWriteRequestUnit.usd +
        (storedBytes / GB) * PRICES.dynamodbStorageGbMonth.usd,
      detail: `${millions(readUnits)} RRU, ${millions(writeUnits)} WRU, ${grouped(storedBytes / GB)} GB of reports kept ${inputs.retentionDays} days`,
    },
    {
      item: 'EventBridge',
      usd: statusChanges * PRICES.eventBridgeCustomEvent.usd,
      detail: `${millions(statusChanges)} events (status changes)`,
    },
    {
      item: 'CloudWatch Logs',
      usd: logsUsd,
      detail: `${grouped(logBytes / GB)} GB ingested and kept a month`,
    },
  ];
  const total = lines.reduce((t, line) => t + line.usd, 0);
  const revenue = traffic.subscribers * traffic.priceUsd;
  const eventsPerMinute = events / (DAYS_PER_MONTH * 24 * 60);
  const over: string[] = [];
  if (eventsPerMinute > DEFAULT_REPORT_QUOTAS.eventsPerMinute)
    over.push(
      `events a minute: ${grouped(eventsPerMinute)} on average, default quota ${grouped(DEFAULT_REPORT_QUOTAS.eventsPerMinute)} (REPORT_EVENTS_PER_APP_PER_MINUTE)`,
    );
  if (storedBytes > DEFAULT_REPORT_QUOTAS.storedBytes)
    over.push(
      `reports stored: ${grouped(storedBytes / GB)} GiB, default quota ${DEFAULT_REPORT_QUOTAS.storedBytes / GB} GiB (REPORT_STORED_BYTES_PER_APP)`,
    );
  return {
    traffic,
    requests: {
      session: launches,
      customer_info: launches,
      offerings: launches,
      events: events / eventsPerRequest,
      renewal: traffic.subscribers,
      reverify: traffic.subscribers,
      total: requests,
    },
    events_per_request: eventsPerRequest,
    status_changes: statusChanges,
    lines,
    total_usd: total,
    gateway_share: lines[0]!.usd / total,
    revenue_usd: revenue,
    revenue_share_usd: revenue * REVENUE_SHARE,
    over_default_quotas: over,
  };
}

/** The bill as text: one line per item, the total, and the revenue-share service's charge. */
export function billText(bill: MonthlyBill): string[] {
  const usd = usdText;
  const t = bill.traffic;
  return [
    `Monthly bill of an app with ${grouped(t.mau)} monthly active users, ${grouped(t.subscribers)} subscribers at ${usd(t.priceUsd)} a month, ` +
      `${t.launchesPerDay} launches and ${t.eventsPerDay} events per user per day (${millions(bill.requests.total)} requests, ${bill.events_per_request.toFixed(1)} events per batch):`,
    ...bill.lines.map((line) => `  ${line.item.padEnd(16)} ${usd(line.usd).padStart(12)}  ${line.detail}`),
    `  ${'total'.padEnd(16)} ${usd(bill.total_usd).padStart(12)}  (API Gateway ${(bill.gateway_share * 100).toFixed(0)}%)`,
    `A ${REVENUE_SHARE * 100}% revenue-share service: ${usd(bill.revenue_share_usd)} a month (of ${usd(bill.revenue_usd)} revenue).`,
    ...bill.over_default_quotas.map(
      (over) => `Over a default report quota, raise it or these reports are refused: ${over}.`,
    ),
  ];
}

/** Flags of `npm run bench:cost`, and the environment variables that stand for them when a flag is not given. */
export const TRAFFIC_OPTIONS = {
  mau: { flag: 'mau', env: 'COST_MAU' },
  subscribers: { flag: 'subscribers', env: 'COST_SUBSCRIBERS' },
  priceUsd: { flag: 'price', env: 'COST_PRICE_USD' },
  launchesPerDay: { flag: 'launches', env: 'COST_LAUNCHES_PER_DAY' },
  eventsPerDay: { flag: 'events', env: 'COST_EVENTS_PER_DAY' },
} as const satisfies Record<keyof AppTraffic, { flag: string; env: string }>;

/** The traffic the flags give, else the environment, else DEFAULT_TRAFFIC; throws naming a bad value. */
export function trafficFrom(
  flags: Partial<Record<string, string | boolean | undefined>>,
  env: NodeJS.ProcessEnv,
): AppTraffic {
  const traffic = { ...DEFAULT_TRAFFIC };
  for (const [field, { flag, env: variable }] of Object.entries(TRAFFIC_OPTIONS) as [
    keyof AppTraffic,
    { flag: string; env: string },
  ][]) {
    const given = flags[flag] ?? env[variable];
    if (given === undefined || given === '') continue;
    const value = Number(given);
    if (
      typeof given !== 'string' ||
      !Number.isFinite(value) ||
      value < 0 ||
      (field === 'launchesPerDay' && value === 0)
    )
      throw new Error(
        `--${flag} (${variable}) must be a number ${field === 'launchesPerDay' ? 'above' : 'of at least'} 0, got "${given}"`,
      );
    traffic[field] = value;
  }
  return traffic;
}
