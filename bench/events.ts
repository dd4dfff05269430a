/**
 * Issue #15 budget (6): event ingestion at volume. POST /v2/users/report/events through the real
 * handler, in-process (authentication, the per-user rate limit and the profile touch included), at
 * 1, 10, 100 and 1,000 (the most a request may carry) events per request, with small events and
 * events of exactly 1 KB as sent, for a returning user whose profile holds 100 custom properties.
 * Consumed capacity from ReturnConsumedCapacity (DynamoDB Local reports BatchWriteItem and
 * UpdateItem units by AWS's rule: 1 write unit per started KB of each item, the larger of its sizes
 * before and after an update).
 * Budgets: an event of at most 1 KB costs at most 1 write unit (the marginal cost of an event);
 * the writes a request makes besides its events (rate-limit window, the user's activity) cost at
 * most 2 write units whatever the size of the user's profile. The app's report quota item is
 * written once per flush share of the app's limits or a few seconds per function instance, not
 * per request (lib/domain/report-quota.ts): a warm instance's requests in a row do not write it.
 */

import { startBenchDynamoDb } from './support/local-dynamodb.js';
import { LAMBDA_MEMORY_GB, lambdaDurationUsd, PRICES } from './support/prices.js';
import { type BudgetCheck, median, round, writeResults } from './support/report.js';
import { benchArguments } from './support/usage.js';

/** Events per request measured; 1,000 is EVENT_LIMITS.maxEvents. */
benchArguments(`Usage: npm run bench:events

Write units and dollars per reported event at 1 to 1,000 events per request; writes
bench/results/events.json and exits 1 when a budget fails. No settings.`);

const BATCHES = [1, 10, 100, 1000] as const;
/** Measured requests per batch size (the duration is their median). */
const RUNS = 3;
/** Bytes of the "1 KB" event as sent (its JSON). */
const KB_EVENT = 1024;

process.env.KEY_CACHE_TTL_SECONDS = '30'; // the default in AWS: the sdk key is read once per 30 s per warm function

const dynamo = await startBenchDynamoDb('bench-events');
try {
  const { itemSize, measureCapacity } = await import('./support/capacity.js');
  const { localClient } = await import('../local/dynamodb.js');
  const { GetItemCommand } = await import('@aws-sdk/client-dynamodb');
  const { marshall } = await import('@aws-sdk/util-dynamodb');
  const { invokeOk, routeNamed } = await import('./support/invoke.js');
  const { createTestApp } = await import('../test/support/fixtures.js');
  const { mobileHeaders } = await import('../test/support/mobile.js');
  const { EVENT_LIMITS } = await import('../lib/domain/events.js');
  const { ddb, tableName } = await import('../lib/data/client.js');
  const keys = await import('../lib/data/entity-keys.js');
  const { reportKeys } = await import('../lib/data/table-keys.js');
  const { QueryCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  if (BATCHES.at(-1) !== EVENT_LIMITS.maxEvents) throw new Error('the largest batch must be EVENT_LIMITS.maxEvents');

  const app = await createTestApp();
  const user = 'returning-user';
  const headers = mobileHeaders(app, user);
  const route = routeNamed('ReportEventsV2');
  // A returning user with a profile of about 6 KB: 100 custom properties (the most a user may hold) of 40 characters.
  await ddb.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.userProfile(app.appId, user),
      UpdateExpression: 'SET custom_properties = :properties, #type = :type',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':properties': Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`property_${i}`, 'x'.repeat(40)])),
        ':type': 'user_profile',
      },
    }),
  );

  let sequence = 0;
  const small = (batch: string, i: number) => ({
    name: 'screen_view',
    user,
    sessionId: batch,
    eventId: `${batch}.${i}`,
    extra: { screen_name: 'home', i },
  });
  /** An event whose JSON is exactly KB_EVENT bytes: a purchase with a dozen properties and padding. */
  const kilobyte = (batch: string, i: number) => {
    const event = {
      name: 'purchase_completed',
      user,
      sessionId: batch,
      eventId: `${batch}.${i}`,
      extra: {
        product_id: 'premium_monthly',
        price: 9.99,
        currency: 'USD',
        ...Object.fromEntries(Array.from({ length: 10 }, (_, p) => [`property_${p}`, `value-${p}-${i}`])),
        padding: '',
      },
    };
    event.extra.padding = 'x'.repeat(KB_EVENT - Buffer.byteLength(JSON.stringify(event)));
    return event;
  };
  /** The same 1 KB as one long property: DynamoDB's encoding saves least over JSON's (reported, no budget). */
  const kilobyteOneProperty = (batch: string, i: number) => {
    const event = { name: 'note_added', user, sessionId: batch, eventId: `${batch}.${i}`, extra: { text: '' } };
    event.extra.text = 'x'.repeat(KB_EVENT - Buffer.byteLength(JSON.stringify(event)));
    return event;
  };
  const KINDS = { small, '1 KB': kilobyte, '1 KB, one property': kilobyteOneProperty } as const;
  const BUDGETED = ['small', '1 KB'];

  const send = (events: unknown[]) =>
    measureCapacity(async () => {
      const started = performance.now();
      await invokeOk(route, { path: route.path, headers, body: { events } });
      return performance.now() - started;
    });
  // Warm-up: the handler module, the sdk key's cache, the profile's first_seen.
  await send([small(`warm-${++sequence}`, 0)]);

  const storedEvents = async () => {
    let count = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await ddb.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': reportKeys.reportedEvent(app.appId, user, '').pk },
          Select: 'COUNT',
          ExclusiveStartKey,
        }),
      );
      count += page.Count ?? 0;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return count;
  };

  const raw = localClient(dynamo.endpoint);
  /** The size of a stored event item by DynamoDB's rules (attribute names and values). */
  const storedBytes = async (eventId: string) => {
    const { Item } = await raw.send(
      new GetItemCommand({
        TableName: tableName,
        Key: marshall(reportKeys.reportedEvent(app.appId, user, `id:${eventId}`)),
      }),
    );
    if (!Item) throw new Error(`event ${eventId} is not stored`);
    return itemSize(Item);
  };

  const perRequestUsd = (ms: number, read: number, write: number) =>
    PRICES.apiGatewayRestRequest.usd +
    PRICES.lambdaRequest.usd +
    lambdaDurationUsd(ms) +
    read * PRICES.dynamodbReadRequestUnit.usd +
    write * PRICES.dynamodbWriteRequestUnit.usd;

  interface Row {
    events_per_request: number;
    bytes_per_event: number;
    stored_bytes_per_event: number;
    write_units: number;
    read_units: number;
    write_units_per_event: number;
    read_units_per_event: number;
    handler_ms: number;
    usd_per_million_events: number;
  }
  const rows: Record<string, Row[]> = {};
  let lastBatch: unknown[] = [];
  for (const [kind, make] of Object.entries(KINDS)) {
    rows[kind] = [];
    for (const size of BATCHES) {
      const runs: { ms: number; read: number; write: number }[] = [];
      for (let run = 0; run < RUNS; run++) {
        const batch = `b${++sequence}`;
        const events = Array.from({ length: size }, (_, i) => make(batch, i));
        const { read, write, result: ms } = await send(events);
        runs.push({ ms, read, write });
        lastBatch = events;
      }
      const ms = median(runs.map((r) => r.ms));
      const write = median(runs.map((r) => r.write));
      const read = median(runs.map((r) => r.read));
      const row: Row = {
        events_per_request: size,
        bytes_per_event: Buffer.byteLength(JSON.stringify(make('b0', 0))),
        stored_bytes_per_event: await storedBytes(`b${sequence}.0`),
        write_units: write,
        read_units: read,
        write_units_per_event: round(write / size, 3),
        read_units_per_event: round(read / size, 3),
        handler_ms: round(ms, 1),
        usd_per_million_events: round((perRequestUsd(ms, read, write) / size) * 1e6),
      };
      rows[kind]!.push(row);
      console.log(
        `${kind.padEnd(5)} x ${String(size).padStart(4)} (${row.stored_bytes_per_event} B stored): ${write} WRU, ${read} RRU, ${row.write_units_per_event} WRU/event, ` +
          `${row.handler_ms} ms, $${row.usd_per_million_events} per million events`,
      );
    }
  }

  // A resent batch (the client did not see the answer): the same items are overwritten, none added.
  const before = await storedEvents();
  const resend = await send(lastBatch);
  const after = await storedEvents();
  console.log(`resent ${lastBatch.length} events: ${resend.write} WRU, stored events ${before} -> ${after}`);

  const at = (kind: string, size: number) => rows[kind]!.find((r) => r.events_per_request === size)!;
  const largest = BATCHES.at(-1)!;
  const marginal = (kind: string) =>
    round((at(kind, largest).write_units - at(kind, 1).write_units) / (largest - 1), 3);
  const overhead = (kind: string) => round(at(kind, 1).write_units - marginal(kind), 3);
  const checks: BudgetCheck[] = [
    ...BUDGETED.map((kind) => ({
      name: `WRU per event of ${kind} (${at(kind, 1).bytes_per_event} B as sent): marginal, 1 to ${largest} per request`,
      value: marginal(kind),
      budget: '<= 1',
      pass: marginal(kind) <= 1,
    })),
    {
      name: 'WRU per request besides its events (rate-limit window, user activity), user with a 6 KB profile',
      value: overhead('1 KB'),
      budget: '<= 2',
      pass: overhead('1 KB') <= 2,
    },
    {
      name: `resent batch of ${lastBatch.length} events: events stored twice`,
      value: after - before,
      budget: '0',
      pass: after === before,
    },
  ];
  writeResults(
    'events',
    {
      batches: rows,
      marginal_write_units_per_event: Object.fromEntries(Object.keys(KINDS).map((kind) => [kind, marginal(kind)])),
      request_write_units_besides_events: Object.fromEntries(Object.keys(KINDS).map((kind) => [kind, overhead(kind)])),
      resend: { events: lastBatch.length, write_units: resend.write, stored_added: after - before },
      lambda_memory_gb: LAMBDA_MEMORY_GB,
      prices_usd_per_million: {
        api_gateway_rest_request: round(PRICES.apiGatewayRestRequest.usd * 1e6, 3),
        lambda_request: round(PRICES.lambdaRequest.usd * 1e6, 3),
        dynamodb_write_unit: round(PRICES.dynamodbWriteRequestUnit.usd * 1e6, 3),
        dynamodb_read_unit: round(PRICES.dynamodbReadRequestUnit.usd * 1e6, 3),
      },
    },
    checks,
  );
  raw.destroy();
  process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
} finally {
  await dynamo.stop();
}
