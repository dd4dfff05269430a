import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, type LocalDynamoDb, localClient, startDynamoDbLocal } from '../../local/dynamodb.js';
import type { LocalGateway } from '../../local/gateway.js';
import { contractFetch } from '../support/contract.js';
import type { TestApp } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';

// This file runs its own DynamoDB Local (on disk) so that it can stop and restart it. The data
// layer reads its endpoint once, at import: it is imported only after the endpoint is known.
let data: typeof import('../../lib/data/client.js');

describe('event ingestion when DynamoDB goes away mid-batch', () => {
  let dataDir: string;
  let dynamo: LocalDynamoDb;
  let gateway: LocalGateway;
  let app: TestApp;

  let port: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outage-'));
    port = await freePort();
    dynamo = await startDynamoDbLocal({ port, dataDir });
    const client = localClient(dynamo.endpoint);
    await ensureTable(client, 'outage-test');
    client.destroy();
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    process.env.TABLE_NAME = 'outage-test';
    data = await import('../../lib/data/client.js');
    gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0 });
    app = await (await import('../support/fixtures.js')).createTestApp();
  }, 90_000);
  afterAll(async () => {
    await gateway?.close();
    await dynamo?.stop();
  });

  const send = (events: unknown[]) =>
    contractFetch(`${gateway.url}/v2/users/report/events`, {
      method: 'POST',
      headers: {
        'x-api-key': app.sdkKey,
        'x-user-id': 'outage-user',
        'user-agent': 't',
        'x-app-id': app.appId,
        'x-platform': 'iOS',
        'x-version': '1',
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ events }),
    });

  async function storedCount(): Promise<number> {
    let count = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await data.ddb.send(
        new QueryCommand({
          TableName: data.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `EVENTS#${app.appId}#outage-user` },
          Select: 'COUNT',
          ExclusiveStartKey,
        }),
      );
      count += page.Count ?? 0;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return count;
  }

  it('the request fails with a retryable error, and the retried batch is stored exactly once after the restart', async () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      name: 'screen_view',
      user: 'outage-user',
      sessionId: 's',
      extra: { i },
    }));
    let answered = false;
    const inFlight = send(events).finally(() => (answered = true));
    // Stop DynamoDB once the batch is partly written (not after a fixed delay: on a loaded machine
    // the request may not have started writing by then, on an idle one it may have finished).
    while ((await storedCount()) === 0 && !answered) await new Promise((r) => setTimeout(r, 5));
    expect(answered, 'the whole batch was stored before DynamoDB could be stopped').toBe(false);
    // Gone at once (SIGKILL): a graceful stop lets the JVM serve the batch's remaining writes while it shuts down.
    await dynamo.kill();
    const failed = await inFlight;
    const body = (await failed.json()) as Record<string, unknown>;
    expect(failed.status).toBe(503);
    expect(body).toMatchObject({ status: 'error', code: 'SERVICE_UNAVAILABLE', retryable: true });
    expect(failed.headers.get('retry-after')).toBe('1');

    dynamo = await startDynamoDbLocal({ port, dataDir });
    // The client retries as the answer says (Retry-After) for as long as a patient client would; on a
    // loaded machine the restarted DynamoDB Local refuses attempts for tens of seconds, or is so slow
    // that the function times out (502, as API Gateway answers), which must change nothing either.
    let retried = await send(events);
    const patience = Date.now() + 90_000;
    while ((retried.status === 503 || retried.status === 502) && Date.now() < patience) {
      await new Promise((r) => setTimeout(r, 1000 * Number(retried.headers.get('retry-after') ?? 1)));
      retried = await send(events);
    }
    expect(retried.status).toBe(200);
    expect(await storedCount()).toBe(1000);
  }, 240_000);
});
