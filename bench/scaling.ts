/**
 * Issue #8 budget (5): reads whose cost must not grow with the app's size. One app with 1,000 and
 * one with 20,000 subscriptions (created over 90 days) in the same DynamoDB Local, seeded once for
 * both measurements; through the real handlers (authentication and rate limiting included):
 * - GET /v1/subscriptions page 1, unfiltered and filtered (counters give the total; issue #2),
 * - GET /v1/subscriptions/revenue over 90 days by week (per-day counters, never the subscriptions; issue #6),
 * - GET /v1/subscriptions/metrics over 90 days by day (per-day metrics counters and the levels; issue #17),
 * - customer info of one user (three subscriptions, a profile) on both APIs, the app's entitlement
 *   definitions already read by the warm function (issue #16).
 * Budget: consumed capacity at 20,000 within 10% of that at 1,000.
 */
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { type BudgetCheck, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

benchArguments(`Usage: npm run bench:scaling

Consumed read capacity of the same queries for an app of 1,000 and one of 20,000 subscriptions;
writes bench/results/scaling.json and exits 1 when a budget fails. No settings.`);

const SIZES = [1_000, 20_000] as const;

const dynamo = await startBenchDynamoDb('bench-scaling');
try {
  const { measureCapacity } = await import('./support/capacity.js');
  const { seedApp } = await import('./support/seed.js');
  const { invokeOk, routeNamed } = await import('./support/invoke.js');
  const { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } = await import('../lib/routes.js');
  const { putEntitlements } = await import('../lib/data/entitlements.js');
  const { seedSubscription } = await import('../test/support/subscriptions.js');
  const { mobileHeaders } = await import('../test/support/mobile.js');

  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const list = routeNamed('ListSubscriptions');
  const revenue = routeNamed('RevenueStatistics');
  /** The user whose customer info is read: the same subscriptions in both apps. */
  const CUSTOMER = 'bench-customer';
  const measurements: {
    label: string;
    route: typeof list;
    path: string;
    query: Record<string, string>;
    mobile?: boolean;
  }[] = [
    { label: 'list status=active page 1', route: list, path: SUBSCRIPTIONS_BASE, query: { status: 'active' } },
    { label: 'list unfiltered page 1', route: list, path: SUBSCRIPTIONS_BASE, query: {} },
    {
      label: 'list status=active&platform=ios page 1',
      route: list,
      path: SUBSCRIPTIONS_BASE,
      query: { status: 'active', platform: 'ios' },
    },
    {
      label: '90-day revenue by week',
      route: revenue,
      path: `${SUBSCRIPTIONS_BASE}/revenue`,
      query: { start_date: day(89), end_date: day(0), group_by: 'week' },
    },
    {
      label: '90-day metrics by day',
      route: routeNamed('SubscriptionMetrics'),
      path: `${SUBSCRIPTIONS_BASE}/metrics`,
      query: { start_date: day(89), end_date: day(0), group_by: 'day' },
    },
    {
      label: 'customer info (secret key)',
      route: routeNamed('GetCustomer'),
      path: `${CUSTOMERS_BASE}/${CUSTOMER}`,
      query: {},
    },
    {
      label: 'customer info (sdk key)',
      route: routeNamed('CustomerInfo'),
      path: '/users/customer_info',
      query: {},
      mobile: true,
    },
  ];

  const apps = [];
  for (const size of SIZES) {
    const app = await seedApp(size, 90);
    await putEntitlements(app.appId, [
      { id: 'pro', name: 'Pro', products: ['premium_monthly', 'pro_yearly'] },
      { id: 'yearly', name: 'Yearly', products: ['pro_yearly'] },
    ]);
    for (const [product_id, status] of [
      ['premium_monthly', 'expired'],
      ['pro_yearly', 'cancelled'],
      ['premium_monthly', 'active'],
    ] as const)
      await seedSubscription(app.appId, { user_id: CUSTOMER, product_id, status });
    apps.push({ size, ...app });
  }
  const figures: Record<string, Record<string, { read_units: number; items: number }>> = {};
  const checks: BudgetCheck[] = [];
  for (const { label, route, path, query, mobile } of measurements) {
    figures[label] = {};
    for (const app of apps) {
      const headers = mobile ? mobileHeaders(app, CUSTOMER) : { authorization: `Bearer ${app.secretKey}` };
      // Warm: the function has read the key and the app's entitlement definitions once already.
      await invokeOk(route, { path, query, headers });
      const { read, write, result } = await measureCapacity(() => invokeOk(route, { path, query, headers }));
      const { data } = JSON.parse(result.body) as {
        data: unknown[] | { breakdown: unknown[] } | { subscriptions: unknown[] };
      };
      const items = Array.isArray(data)
        ? data.length
        : 'breakdown' in data
          ? data.breakdown.length
          : data.subscriptions.length;
      figures[label][`${app.size}`] = { read_units: read, items };
      // The per-key rate limiter's write does not depend on the table size either; the budget is about reads.
      console.log(
        `${label.padEnd(40)} ${String(app.size).padStart(6)} subscriptions: ${read} RCU, ${write} WCU (${items} ${'breakdown' in data ? 'buckets' : 'items'})`,
      );
    }
    const [small, large] = SIZES.map((size) => figures[label]![`${size}`]!.read_units);
    const ratio = large! / small!;
    checks.push({
      name: `${label}: read capacity at ${SIZES[1]} / at ${SIZES[0]} subscriptions`,
      value: Number(ratio.toFixed(3)),
      budget: '0.9 - 1.1',
      pass: Math.abs(ratio - 1) <= 0.1,
    });
  }
  writeResults('scaling', figures, checks);
  process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
} finally {
  await dynamo.stop();
}
