/**
 * Issue #6 budget: a 90-day revenue query reads the counters, never the subscriptions: its consumed
 * read capacity with 1,000 and with 20,000 subscriptions in the app differs by under 10%.
 */
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { writeResults } from './support/report.js';

const SIZES = [1_000, 20_000];

const dynamo = await startBenchDynamoDb('bench-revenue');
try {
  const { measureCapacity } = await import('./support/capacity.js');
  const { seedApp } = await import('./support/seed.js');
  const { invokeGet } = await import('./support/invoke.js');
  const { handler } = await import('../functions/subscriptions/revenue.js');
  const today = new Date().toISOString().slice(0, 10);
  const start = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
  const units: Record<string, number> = {};
  for (const size of SIZES) {
    const { secretKey } = await seedApp(size, 90);
    const { units: consumed, result } = await measureCapacity(() => invokeGet(handler, '/v1/subscriptions/revenue', secretKey, { start_date: start, end_date: today, group_by: 'week' }));
    if (result.statusCode !== 200) throw new Error(`revenue returned ${result.statusCode}: ${result.body}`);
    const body = JSON.parse(result.body) as { data: { breakdown: { subscriptions: number }[] } };
    units[`${size}`] = consumed;
    console.log(`90-day revenue query, ${String(size).padStart(6)} subscriptions: ${consumed} RCU (active at the end: ${body.data.breakdown.at(-1)?.subscriptions})`);
  }
  const ratio = units[`${SIZES[1]}`]! / units[`${SIZES[0]}`]!;
  writeResults('revenue-capacity', units, [
    { name: `90-day revenue query: capacity at ${SIZES[1]} / at ${SIZES[0]}`, value: Number(ratio.toFixed(3)), budget: '0.9 - 1.1', pass: Math.abs(ratio - 1) <= 0.1 },
  ]);
  process.exitCode = Math.abs(ratio - 1) <= 0.1 ? 0 : 1;
} finally {
  await dynamo.stop();
}
