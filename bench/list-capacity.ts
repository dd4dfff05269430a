/**
 * Issue #2 budget: the consumed capacity of GET /v1/subscriptions page 1 does not grow with the
 * number of subscriptions in the app. Seeds one app with 100 and one with 5,000 subscriptions in
 * the same DynamoDB Local, then measures the real list handler (auth included) for each.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { writeResults, type BudgetCheck } from './support/report.js';

const SIZES = [100, 5_000];
const STATUSES = ['active', 'active', 'active', 'expired', 'cancelled'] as const;

const dynamo = await startBenchDynamoDb();
try {
  const { measureCapacity } = await import('./support/capacity.js');
  const { createApp } = await import('../lib/data/apps.js');
  const { bulkInsertSubscriptions } = await import('../lib/data/subscriptions.js');
  const { newSubscriptionId } = await import('../lib/ids.js');
  const { handler } = await import('../functions/subscriptions/list.js');
  const { INITIAL_LIFECYCLE } = await import('../lib/domain/subscription-state.js');

  async function seedApp(size: number) {
    const { app, secretKey } = await createApp({ name: `bench-${size}`, reportingCurrency: 'USD', testStore: false });
    const base = Date.UTC(2026, 0, 1);
    const entries = Array.from({ length: size }, (_, i) => {
      const at = new Date(base + i * 60_000).toISOString();
      return {
        record: {
          app_id: app.app_id, id: newSubscriptionId(), user_id: `user-${i % 997}`, product_id: i % 4 === 0 ? 'pro_yearly' : 'premium_monthly',
          platform: (['ios', 'android', 'web'] as const)[i % 3]!, status: STATUSES[i % STATUSES.length]!, price: 9.99, currency: 'USD',
          started_at: at, expires_at: '2027-01-01T00:00:00.000Z', auto_renew: true, trial_period: false, trial_expires_at: null,
          ...INITIAL_LIFECYCLE, created_at: at, updated_at: at, version: 1,
        },
        payment: { transaction_id: null, receipt_data: null, payment_method: 'app_store', last_payment: null },
      };
    });
    const started = Date.now();
    await bulkInsertSubscriptions(entries);
    console.log(`seeded ${size} subscriptions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return secretKey.key;
  }

  const invoke = (secretKey: string, query: Record<string, string>) =>
    handler(
      {
        resource: '/v1/subscriptions', path: '/v1/subscriptions', httpMethod: 'GET', headers: { Authorization: `Bearer ${secretKey}` },
        multiValueHeaders: {}, queryStringParameters: query, multiValueQueryStringParameters: null, pathParameters: null,
        stageVariables: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'bench' } as APIGatewayProxyEvent['requestContext'],
      },
      { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context,
    ) as Promise<APIGatewayProxyResult>;

  const queries: Record<string, Record<string, string>> = {
    'status=active page 1': { status: 'active' },
    'unfiltered page 1': {},
    'status=active&platform=ios page 1': { status: 'active', platform: 'ios' },
  };
  const figures: Record<string, Record<string, number>> = {};
  const checks: BudgetCheck[] = [];
  const keys = Object.fromEntries(await Promise.all(SIZES.map(async (size) => [size, await seedApp(size)] as const)));
  for (const [label, query] of Object.entries(queries)) {
    figures[label] = {};
    for (const size of SIZES) {
      const { units, result } = await measureCapacity(() => invoke(keys[size]!, query));
      if (result.statusCode !== 200) throw new Error(`list returned ${result.statusCode}: ${result.body}`);
      const body = JSON.parse(result.body) as { data: unknown[]; pagination: { total: number } };
      figures[label][`${size}`] = units;
      console.log(`${label.padEnd(36)} ${String(size).padStart(5)} subscriptions: ${units} RCU (${body.data.length} items of ${body.pagination.total})`);
    }
    const [small, large] = SIZES.map((size) => figures[label]![`${size}`]!);
    const ratio = large! / small!;
    checks.push({ name: `${label}: capacity at ${SIZES[1]} / at ${SIZES[0]}`, value: Number(ratio.toFixed(3)), budget: '0.9 - 1.1', pass: Math.abs(ratio - 1) <= 0.1 });
  }
  writeResults('list-capacity', figures, checks);
  process.exitCode = checks.every((c) => c.pass) ? 0 : 1;
} finally {
  await dynamo.stop();
}
