/**
 * Issue #2 budget: the consumed capacity of GET /v1/subscriptions page 1 does not grow with the
 * number of subscriptions in the app. Seeds one app with 100 and one with 5,000 subscriptions in
 * the same DynamoDB Local, then measures the real list handler (auth included) for each.
 */
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { writeResults, type BudgetCheck } from './support/report.js';

const SIZES = [100, 5_000];

const dynamo = await startBenchDynamoDb();
try {
  const { measureCapacity } = await import('./support/capacity.js');
  const { seedApp } = await import('./support/seed.js');
  const { invokeGet } = await import('./support/invoke.js');
  const { handler } = await import('../functions/subscriptions/list.js');

  const queries: Record<string, Record<string, string>> = {
    'status=active page 1': { status: 'active' },
    'unfiltered page 1': {},
    'status=active&platform=ios page 1': { status: 'active', platform: 'ios' },
  };
  const figures: Record<string, Record<string, number>> = {};
  const checks: BudgetCheck[] = [];
  const keys = Object.fromEntries(await Promise.all(SIZES.map(async (size) => [size, (await seedApp(size)).secretKey] as const)));
  for (const [label, query] of Object.entries(queries)) {
    figures[label] = {};
    for (const size of SIZES) {
      const { units, result } = await measureCapacity(() => invokeGet(handler, '/v1/subscriptions', keys[size]!, query));
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
