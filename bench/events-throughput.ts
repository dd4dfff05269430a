/**
 * Issue #5 budget: events/s through POST /v2/users/report/events (100-event batches, local gateway
 * + DynamoDB Local) against raw BatchWriteItem items/s into the same DynamoDB Local, side by side
 * in one run (alternating rounds, medians). Goal: ratio >= 0.8.
 */
import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { writeResults } from './support/report.js';

process.env.KEY_CACHE_TTL_SECONDS = '30'; // as in AWS: a warm function caches the key lookup
const ROUNDS = 3;
const ROUND_MS = 6_000;
const CONCURRENCY = 8;
const BATCH = 100;

const dynamo = await startBenchDynamoDb('bench-events');
try {
  const { createApp } = await import('../lib/data/apps.js');
  const { batchWriteAll, putRequest } = await import('../lib/data/batch.js');
  const { startGateway } = await import('../lib/local/gateway.js');
  const { app, sdkKey } = await createApp({ name: 'bench', reportingCurrency: 'USD', testStore: false });
  const gateway = await startGateway({ port: 0 });
  let sequence = 0;
  const batch = (user: string) =>
    Array.from({ length: BATCH }, () => ({ name: 'screen_view', user, sessionId: 's-1', eventId: `e-${++sequence}`, extra: { screen_name: 'home', i: sequence } }));

  /** Runs `work` (which stores BATCH events) on CONCURRENCY loops for ROUND_MS; events per second. */
  async function measure(work: (worker: number) => Promise<void>): Promise<number> {
    let stored = 0;
    const deadline = Date.now() + ROUND_MS;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        while (Date.now() < deadline) {
          await work(worker);
          stored += BATCH;
        }
      }),
    );
    return stored / ((Date.now() - started) / 1000);
  }

  const raw = (worker: number) =>
    batchWriteAll(
      batch(`raw-${worker}`).map((event) =>
        putRequest({ pk: `EVENTS#${app.app_id}#raw-${worker}`, sk: `EVT#id:${event.eventId}`, type: 'reported_event', ...event, received_at: new Date().toISOString(), ttl: 1 }),
      ),
    );
  const viaApi = async (worker: number) => {
    const response = await fetch(`${gateway.url}/v2/users/report/events`, {
      method: 'POST',
      headers: { 'x-api-key': sdkKey.key, 'x-user-id': `api-${worker}`, 'user-agent': 'bench', 'x-app-id': app.app_id, 'x-platform': 'iOS', 'x-version': '1', accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch(`api-${worker}`) }),
    });
    if (response.status !== 200) throw new Error(`events endpoint answered ${response.status}: ${await response.text()}`);
  };

  // Warm the JVM and the handler before measuring.
  await measure(raw);
  await measure(viaApi);
  const rawRates: number[] = [];
  const apiRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rawRates.push(await measure(raw));
    apiRates.push(await measure(viaApi));
    console.log(`round ${round + 1}: raw BatchWriteItem ${rawRates.at(-1)!.toFixed(0)} items/s, API ${apiRates.at(-1)!.toFixed(0)} events/s`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ratio = median(apiRates) / median(rawRates);
  console.log(`median: raw ${median(rawRates).toFixed(0)} items/s, API ${median(apiRates).toFixed(0)} events/s, ratio ${ratio.toFixed(2)}`);
  writeResults(
    'events-throughput',
    { concurrency: CONCURRENCY, batch: BATCH, round_ms: ROUND_MS, raw_items_per_s: rawRates, api_events_per_s: apiRates },
    [{ name: 'events/s through the API / raw BatchWriteItem items/s', value: Number(ratio.toFixed(3)), budget: '>= 0.8', pass: ratio >= 0.8 }],
  );
  await gateway.close();
  process.exitCode = ratio >= 0.8 ? 0 : 1;
} finally {
  await dynamo.stop();
}
