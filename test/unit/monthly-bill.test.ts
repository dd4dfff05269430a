/** `npm run bench:cost`'s monthly bill of one app: the request mix, each line's arithmetic, the flags. */
import { describe, expect, it } from 'vitest';
import {
  ACCESS_LOG_BYTES,
  type BillInputs,
  billText,
  DEFAULT_TRAFFIC,
  eventBatch,
  LAMBDA_PLATFORM_LOG_BYTES,
  type MeasuredRequest,
  monthlyBill,
  restApiUsd,
  trafficFrom,
} from '../../bench/support/monthly-bill.js';
import { PRICES } from '../../bench/support/prices.js';

const request = (extra: Partial<MeasuredRequest> = {}): MeasuredRequest => ({
  read_units: 0,
  write_units: 0,
  handler_ms: 0,
  handler_cpu_ms: 0,
  dynamodb_requests: 0,
  status_changes: 0,
  log_bytes: 0,
  expiring_items: 0,
  expiring_bytes: 0,
  ...extra,
});

const INPUTS: BillInputs = {
  session: request({
    write_units: 5,
    handler_ms: 19.2,
    handler_cpu_ms: 2,
    dynamodb_requests: 2,
    expiring_items: 1,
    expiring_bytes: 200,
  }),
  customerInfo: request({ read_units: 2, write_units: 1, handler_ms: 20, handler_cpu_ms: 3, dynamodb_requests: 4 }),
  offerings: request({ read_units: 2, write_units: 1, handler_ms: 18, handler_cpu_ms: 3, dynamodb_requests: 4 }),
  eventsOfOne: request({
    write_units: 3,
    handler_ms: 10,
    handler_cpu_ms: 1,
    dynamodb_requests: 3,
    expiring_items: 1,
    expiring_bytes: 150,
  }),
  eventsBatch: {
    ...request({
      write_units: 102,
      handler_ms: 109,
      handler_cpu_ms: 34,
      dynamodb_requests: 6,
      expiring_items: 100,
      expiring_bytes: 15_000,
    }),
    events: 100,
  },
  renewal: request({
    read_units: 5,
    write_units: 12,
    handler_ms: 40,
    handler_cpu_ms: 6,
    dynamodb_requests: 3,
    status_changes: 1,
    log_bytes: 300,
  }),
  reverify: request({ read_units: 4, write_units: 1, handler_ms: 15, handler_cpu_ms: 2, dynamodb_requests: 3 }),
  perStatusChange: { publisher_ms: 1, deliverer_ms: 30, deliverer_read_units: 0.5, deliverer_write_units: 14 },
  aggregatorWriteUnits: 3.8,
  retentionDays: 90,
};
const GB = 1024 ** 3;

describe('the monthly bill at an SDK’s traffic', () => {
  it('REST API calls are priced by AWS’s monthly tiers', () => {
    expect(restApiUsd(1e6)).toBeCloseTo(3.5, 9);
    expect(restApiUsd(333e6)).toBeCloseTo(1165.5, 6);
    expect(restApiUsd(1e9)).toBeCloseTo(1165.5 + 667 * 2.8, 6);
    expect(restApiUsd(21e9)).toBeCloseTo(1165.5 + 667 * 2.8 + 19_000 * 2.38 + 1000 * 1.51, 4);
  });

  it('an event batch lies on the line through one event and the measured batch', () => {
    expect(eventBatch(INPUTS, 1)).toEqual(INPUTS.eventsOfOne);
    expect(eventBatch(INPUTS, 100).write_units).toBeCloseTo(102, 9);
    const four = eventBatch(INPUTS, 4);
    expect(four.write_units).toBeCloseTo(6, 9);
    expect(four.handler_ms).toBeCloseTo(13, 9);
    expect(four.handler_cpu_ms).toBeCloseTo(2, 9);
    expect(four.dynamodb_requests).toBeCloseTo(3 + 3 / 33, 9);
    expect(four.expiring_items).toBeCloseTo(4, 9);
  });

  it('per launch a session report, customer info, what the app shows and the events since the last launch; per subscriber a renewal and a re-sent receipt', () => {
    const traffic = { mau: 1000, subscribers: 10, priceUsd: 5, launchesPerDay: 2, eventsPerDay: 8 };
    const bill = monthlyBill(INPUTS, traffic);
    const launches = 1000 * 2 * 30;
    expect(bill.requests).toEqual({
      session: launches,
      customer_info: launches,
      offerings: launches,
      events: launches,
      renewal: 10,
      reverify: 10,
      total: 4 * launches + 20,
    });
    expect(bill.events_per_request).toBe(4);
    expect(bill.status_changes).toBe(10);
    const line = (item: string) => bill.lines.find((l) => l.item === item)!.usd;
    const requests = bill.requests.total;
    expect(line('API Gateway')).toBeCloseTo(requests * PRICES.apiGatewayRestRequest.usd, 9);
    expect(line('WAF')).toBeCloseTo(5 + 3 + requests * 0.6e-6, 9);
    // Durations billed per started millisecond at 1 GB: the CPU at 1,024/1,769 of a vCPU and 5 ms
    // per DynamoDB request (session 3.46 + 10 ms, customer info and offerings 5.18 + 20 each, four
    // events 3.46 + 15.45, renewal 10.37 + 15, receipt 3.46 + 15); the bus adds the publisher and the deliverer.
    const gbSeconds = launches * (0.014 + 0.026 + 0.026 + 0.019) + 10 * (0.026 + 0.019) + 10 * (0.001 + 0.03);
    expect(line('Lambda')).toBeCloseTo(
      (requests + 20) * PRICES.lambdaRequest.usd + gbSeconds * PRICES.lambdaArmGbSecond.usd,
      9,
    );
    const readUnits = launches * (2 + 2) + 10 * (5 + 4) + 10 * 0.5;
    const writeUnits = launches * (5 + 1 + 1 + 6) + 10 * (12 + 1) + 10 * (14 + 3.8);
    // Sessions (200 B) and four events (150 B each) per launch, each item 100 B more, kept 90 days.
    const stored = ((launches * (200 + 100 + 4 * (150 + 100))) / 30) * 90;
    expect(line('DynamoDB')).toBeCloseTo(
      readUnits * PRICES.dynamodbReadRequestUnit.usd +
        writeUnits * PRICES.dynamodbWriteRequestUnit.usd +
        (stored / GB) * PRICES.dynamodbStorageGbMonth.usd,
      9,
    );
    expect(line('EventBridge')).toBeCloseTo(10 * PRICES.eventBridgeCustomEvent.usd, 12);
    const logged =
      requests * (LAMBDA_PLATFORM_LOG_BYTES + ACCESS_LOG_BYTES) + 10 * 300 + 10 * 2 * LAMBDA_PLATFORM_LOG_BYTES;
    expect(line('CloudWatch Logs')).toBeCloseTo((logged / GB) * (0.5 + 0.03), 9);
    expect(bill.total_usd).toBeCloseTo(
      bill.lines.reduce((sum, l) => sum + l.usd, 0),
      9,
    );
    expect(bill.gateway_share).toBeCloseTo(line('API Gateway') / bill.total_usd, 12);
    expect(bill.revenue_usd).toBe(50);
    expect(bill.revenue_share_usd).toBeCloseTo(0.5, 12);
    expect(bill.over_default_quotas).toEqual([]);
  });

  it('few events ride on some launches only; a request carries at most 1,000', () => {
    const sparse = monthlyBill(INPUTS, { ...DEFAULT_TRAFFIC, launchesPerDay: 5, eventsPerDay: 2 });
    expect(sparse.events_per_request).toBe(1);
    expect(sparse.requests.events).toBe(DEFAULT_TRAFFIC.mau * 2 * 30);
    const dense = monthlyBill(INPUTS, { ...DEFAULT_TRAFFIC, launchesPerDay: 1, eventsPerDay: 5000 });
    expect(dense.events_per_request).toBe(1000);
    expect(dense.requests.events).toBe(DEFAULT_TRAFFIC.mau * 5 * 30);
  });

  it('names the default report quotas an app passes', () => {
    const bill = monthlyBill(INPUTS);
    expect(bill.over_default_quotas).toHaveLength(2);
    expect(bill.over_default_quotas[0]).toMatch(/^events a minute: 41,667 on average, default quota 10,000/);
    expect(bill.over_default_quotas[1]).toMatch(/REPORT_STORED_BYTES_PER_APP/);
  });

  it('prints one line per item, the total and the revenue-share service’s charge', () => {
    const text = billText(monthlyBill(INPUTS)).join('\n');
    for (const item of ['API Gateway', 'WAF', 'Lambda', 'DynamoDB', 'EventBridge', 'CloudWatch Logs', 'total'])
      expect(text).toMatch(new RegExp(`^  ${item} +\\$[\\d,]+\\.\\d\\d  `, 'm'));
    expect(text).toContain('3,000,000 monthly active users, 100,000 subscribers at $5.00 a month');
    expect(text).toContain('A 1% revenue-share service: $5,000.00 a month (of $500,000.00 revenue).');
  });

  it('takes the traffic from flags, else the environment, else the defaults; refuses a bad value', () => {
    expect(trafficFrom({}, {})).toEqual(DEFAULT_TRAFFIC);
    expect(trafficFrom({ mau: '1000' }, { COST_MAU: '5', COST_EVENTS_PER_DAY: '7', COST_PRICE_USD: '' })).toEqual({
      ...DEFAULT_TRAFFIC,
      mau: 1000,
      eventsPerDay: 7,
    });
    expect(() => trafficFrom({ price: 'five' }, {})).toThrow('--price (COST_PRICE_USD) must be a number');
    expect(() => trafficFrom({}, { COST_SUBSCRIBERS: '-1' })).toThrow('--subscribers (COST_SUBSCRIBERS)');
    expect(() => trafficFrom({ launches: '0' }, {})).toThrow(
      '--launches (COST_LAUNCHES_PER_DAY) must be a number above 0',
    );
    expect(() => monthlyBill(INPUTS, { ...DEFAULT_TRAFFIC, mau: Number.NaN })).toThrow('mau must be a number');
  });
});
