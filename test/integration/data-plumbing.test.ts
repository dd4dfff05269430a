/**
 * The plumbing every repository stands on, against DynamoDB Local: the client's configuration,
 * batches that DynamoDB answers in part (UnprocessedItems / UnprocessedKeys, as it does under
 * throttling), transactions cancelled by a conflict, queries across pages, and the per-app
 * configuration documents. Partial answers and cancellations are made by a middleware on the
 * shared client, at the step where the document client sees plain values.
 */

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getAdsConfig, getSegments, putAdsConfig, putSegments } from '../../lib/data/app-config.js';
import { batchGetAll, batchGetConsistent, batchWriteAll, putRequest } from '../../lib/data/batch.js';
import { ddb, isConditionFailure, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { queryAll, queryPrefix } from '../../lib/data/query.js';
import type { TableKey } from '../../lib/data/table-keys.js';
import { transactWrite } from '../../lib/data/transactions.js';
import { cancellationReasonsOf, isDataStoreUnavailable } from '../../lib/data/unavailable.js';
import type { AdsConfig } from '../../lib/schemas/ads.js';
import type { Segment } from '../../lib/schemas/segment.js';
import { interceptCommands, stopIntercepting } from '../support/ddb-intercept.js';

const run = `plumbing-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const keyOf = (part: string, n: number): TableKey => ({
  pk: `TEST#${run}#${part}`,
  sk: `ITEM#${String(n).padStart(3, '0')}`,
});
const itemOf = (part: string, n: number) => ({ ...keyOf(part, n), n });

/**
 * lib/data/client.js evaluated anew: it reads the environment while it loads, as a function does at
 * cold start, so a test of other variables needs a load of its own.
 */
async function clientLoadedNow() {
  vi.resetModules();
  return import('../../lib/data/client.js');
}

afterEach(() => {
  stopIntercepting();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the client', () => {
  it('gives DynamoDB Local credentials of its own when the environment has none, and keeps them otherwise', async () => {
    vi.stubEnv('DYNAMODB_ENDPOINT', 'http://127.0.0.1:1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    const local = await clientLoadedNow();
    await expect(local.dynamodb.config.credentials()).resolves.toMatchObject({
      accessKeyId: 'local',
      secretAccessKey: 'local',
    });
    expect(await local.dynamodb.config.endpoint?.()).toMatchObject({ hostname: '127.0.0.1', port: 1 });

    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFROMENV');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-from-env');
    const withKeys = await clientLoadedNow();
    await expect(withKeys.dynamodb.config.credentials()).resolves.toMatchObject({ accessKeyId: 'AKIDFROMENV' });
  });

  it('on AWS (no endpoint of its own), credentials come from the environment, never the local pair', async () => {
    vi.stubEnv('DYNAMODB_ENDPOINT', '');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDLAMBDA');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-lambda');
    const deployed = await clientLoadedNow();
    await expect(deployed.dynamodb.config.credentials()).resolves.toMatchObject({ accessKeyId: 'AKIDLAMBDA' });
  });

  it('has a logger without info and error, so the SDK skips building what it would log', () => {
    const logger = ddb.config.logger as unknown as Record<string, unknown>;
    expect(typeof logger.debug).toBe('function');
    expect(typeof logger.warn).toBe('function');
    expect(logger.info).toBeUndefined();
    expect(logger.error).toBeUndefined();
  });

  it('drops undefined attributes instead of refusing the write, and refuses class instances', async () => {
    const key = keyOf('marshall', 1);
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...key, kept: 1, dropped: undefined, nested: { kept: 2, dropped: undefined }, list: [1, undefined] },
      }),
    );
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: key }));
    expect(Item).toEqual({ ...key, kept: 1, nested: { kept: 2 }, list: [1] });
    await expect(ddb.send(new PutCommand({ TableName: tableName, Item: { ...key, at: new Date() } }))).rejects.toThrow(
      /convertClassInstanceToMap/,
    );
  });

  it('a function in Lambda without TABLE_NAME fails when it loads, not on its first request', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'ListSubscriptions');
    vi.stubEnv('TABLE_NAME', '');
    await expect(clientLoadedNow()).rejects.toThrow('TABLE_NAME is not set');
  });

  it('a failed condition is ConditionalCheckFailedException by name, nothing else', async () => {
    const key = keyOf('condition', 1);
    const failed = await ddb
      .send(new PutCommand({ TableName: tableName, Item: key, ConditionExpression: 'attribute_exists(pk)' }))
      .catch((error: unknown) => error);
    expect(isConditionFailure(failed)).toBe(true);
    expect(isConditionFailure(Object.assign(new Error('x'), { name: 'ValidationException' }))).toBe(false);
    expect(isConditionFailure(undefined)).toBe(false);
  });
});

describe('batches DynamoDB answers in part', () => {
  it('batchWriteAll writes 25 a request and sends again what is left unprocessed, until all is stored', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const sizes: number[] = [];
    let round = 0;
    interceptCommands(async ({ command, input }, send) => {
      if (command !== 'BatchWriteItemCommand') return send();
      const requests = input.RequestItems[tableName] as unknown[];
      sizes.push(requests.length);
      round++;
      if (round % 2 === 0) return send();
      // Each request's last put is left for later, the first time it is sent.
      const response = await send({ RequestItems: { [tableName]: requests.slice(0, -1) } });
      response.output.UnprocessedItems = { [tableName]: [requests.at(-1)] };
      return response;
    });
    const items = Array.from({ length: 60 }, (_, n) => itemOf('write', n));
    await batchWriteAll(items.map(putRequest));
    // Each of the three requests (25, 25, 10) once in full, then its one unprocessed put alone.
    expect(sizes).toEqual([25, 1, 25, 1, 10, 1]);
    expect(await batchGetAll(items.map((item) => ({ pk: item.pk, sk: item.sk })))).toEqual(items);
  });

  it('batchWriteAll gives up after 10 requests that leave items unprocessed, saying how many', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const sent = interceptCommands(async ({ command, input }, send) => {
      if (command !== 'BatchWriteItemCommand') return send();
      return { output: { UnprocessedItems: { [tableName]: input.RequestItems[tableName] } }, response: {} };
    });
    const started = Date.now();
    await expect(batchWriteAll([putRequest(itemOf('stuck', 1)), putRequest(itemOf('stuck', 2))])).rejects.toThrow(
      'BatchWriteItem left 2 items unprocessed after 10 attempts',
    );
    expect(sent.map((s) => s.command)).toEqual(Array(10).fill('BatchWriteItemCommand'));
    // Backoff before attempts 2 to 10 at its least (random 0): 25, 50, 100, 200, 400, then 500 ms four times.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_775 - 50);
  });

  it('batchGetAll reads 100 keys a request, sends the unprocessed ones again, and answers in key order', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const items = Array.from({ length: 150 }, (_, n) => itemOf('get-all', n));
    await batchWriteAll(items.filter((item) => item.n % 7 !== 0).map(putRequest));
    let calls = 0;
    const sizes: number[] = [];
    interceptCommands(async ({ command, input }, send) => {
      if (command !== 'BatchGetItemCommand') return send();
      const request = input.RequestItems[tableName] as { Keys: unknown[] };
      sizes.push(request.Keys.length);
      calls++;
      if (calls % 2 === 0) return send();
      // The first key is left for later.
      const response = await send({ RequestItems: { [tableName]: { ...request, Keys: request.Keys.slice(1) } } });
      response.output.UnprocessedKeys = { [tableName]: { Keys: request.Keys.slice(0, 1) } };
      return response;
    });
    const read = await batchGetAll(items.map((item) => ({ pk: item.pk, sk: item.sk })));
    expect(sizes).toEqual([100, 1, 50, 1]);
    expect(read).toEqual(items.map((item) => (item.n % 7 === 0 ? undefined : item)));
  });

  it('batchGetAll gives up after 10 requests that leave keys unprocessed', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const sent = interceptCommands(async ({ command, input }, send) => {
      if (command !== 'BatchGetItemCommand') return send();
      return { output: { Responses: { [tableName]: [] }, UnprocessedKeys: input.RequestItems }, response: {} };
    });
    await expect(batchGetAll([keyOf('stuck-get', 1)])).rejects.toThrow(
      'BatchGetItem left 1 keys unprocessed after 10 attempts',
    );
    expect(sent).toHaveLength(10);
  });

  it('a whole number of requests sends no empty one after them, and nothing at all sends nothing', async () => {
    const items = Array.from({ length: 100 }, (_, n) => itemOf('whole', n));
    const sent = interceptCommands(async (_sent, send) => send());
    await batchWriteAll(items.map(putRequest));
    const wanted = items.map((item) => ({ pk: item.pk, sk: item.sk }));
    expect(await batchGetAll(wanted)).toEqual(items);
    expect(await batchGetConsistent(wanted)).toEqual(items);
    expect(await batchGetAll([])).toEqual([]);
    expect(await batchGetConsistent([])).toEqual([]);
    await batchWriteAll([]);
    expect(sent.map((s) => s.command)).toEqual([
      ...Array(4).fill('BatchWriteItemCommand'),
      'BatchGetItemCommand',
      'BatchGetItemCommand',
    ]);
  });

  it('batchGetConsistent reads strongly, 100 distinct keys a request, and answers a repeated key twice', async () => {
    const items = Array.from({ length: 120 }, (_, n) => itemOf('consistent', n));
    await batchWriteAll(items.map(putRequest));
    const sent = interceptCommands(async (_sent, send) => send());
    const wanted = [...items, items[3]!, items[119]!].map((item) => ({ pk: item.pk, sk: item.sk }));
    wanted.push(keyOf('consistent', 500));
    const read = await batchGetConsistent(wanted);
    expect(read).toEqual([...items, items[3], items[119], undefined]);
    expect(
      sent.map((s) => ({
        command: s.command,
        keys: s.input.RequestItems[tableName].Keys.length,
        consistent: s.input.RequestItems[tableName].ConsistentRead,
      })),
    ).toEqual([
      { command: 'BatchGetItemCommand', keys: 100, consistent: true },
      { command: 'BatchGetItemCommand', keys: 21, consistent: true },
    ]);
  });
});

describe('transactions cancelled by a conflict', () => {
  const cancelled = (...codes: string[]) =>
    new TransactionCanceledException({
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });
  const put = (n: number) => ({ Put: { TableName: tableName, Item: itemOf('transaction', n) } });

  it('are sent again until they commit', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const sent = interceptCommands(async ({ command }, send, count) => {
      if (command === 'TransactWriteItemsCommand' && count <= 2) throw cancelled('None', 'TransactionConflict');
      return send();
    });
    await transactWrite([put(1), put(2)]);
    expect(sent.map((s) => s.command)).toEqual(Array(3).fill('TransactWriteItemsCommand'));
    stopIntercepting();
    expect(await batchGetConsistent([keyOf('transaction', 1), keyOf('transaction', 2)])).toEqual([
      itemOf('transaction', 1),
      itemOf('transaction', 2),
    ]);
  });

  it('are raised after 10 attempts when the conflict outlasts them', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const sent = interceptCommands(async () => {
      throw cancelled('TransactionConflict');
    });
    await expect(transactWrite([put(3)])).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(sent).toHaveLength(10);
  });

  it.each([
    ['a failed condition', ['ConditionalCheckFailed', 'TransactionConflict']],
    ['no conflict at all', ['None', 'None']],
    ['throttling', ['ThrottlingError']],
  ])('are raised at once when cancelled for another reason: %s', async (_why, codes) => {
    const sent = interceptCommands(async () => {
      throw cancelled(...codes);
    });
    await expect(transactWrite([put(4)])).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(sent).toHaveLength(1);
  });
});

describe('queries across pages', () => {
  const part = 'query';
  const pk = keyOf(part, 0).pk;
  const byPk = { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } };

  it('queryAll follows every page, and stops at max, asking no more than it needs', async () => {
    const items = Array.from({ length: 7 }, (_, n) => itemOf(part, n));
    await batchWriteAll(items.map(putRequest));
    let sent = interceptCommands(async (_sent, send) => send());
    expect(await queryAll({ ...byPk, Limit: 2 })).toEqual(items);
    expect(sent.map((s) => s.input.Limit)).toEqual([2, 2, 2, 2]);
    expect(sent[0]!.input.ExclusiveStartKey).toBeUndefined();
    expect(sent[1]!.input.ExclusiveStartKey).toEqual(keyOf(part, 1));
    stopIntercepting();

    sent = interceptCommands(async (_sent, send) => send());
    expect(await queryAll({ ...byPk, Limit: 2 }, 3)).toEqual(items.slice(0, 3));
    expect(sent.map((s) => s.input.Limit)).toEqual([2, 1]);
    stopIntercepting();

    sent = interceptCommands(async (_sent, send) => send());
    expect(await queryAll(byPk, 5)).toEqual(items.slice(0, 5));
    expect(sent.map((s) => s.input.Limit)).toEqual([5]);
    stopIntercepting();

    sent = interceptCommands(async (_sent, send) => send());
    expect(await queryAll(byPk)).toEqual(items);
    expect(sent.map((s) => 'Limit' in s.input)).toEqual([false]);
  });

  it('queryPrefix reads the items of a partition whose sort key begins with the prefix', async () => {
    await batchWriteAll([putRequest({ pk, sk: 'OTHER#1' }), putRequest({ pk, sk: 'ITEM' })]);
    const read = await queryPrefix(pk, 'ITEM#');
    expect(read.map((item) => item.sk)).toEqual(Array.from({ length: 7 }, (_, n) => keyOf(part, n).sk));
  });
});

describe('per-app configuration documents', () => {
  const appId = `app_${run.replace(/[^a-z0-9]/g, '')}`;

  it('segments: none is an empty list; a put replaces the whole list, kept as one item', async () => {
    expect(await getSegments(appId)).toEqual([]);
    const segments = [{ id: 'payers', conditions: [{ field: 'counters.order_count', op: 'gt', value: 0 }] }];
    await putSegments(appId, segments as unknown as Segment[]);
    expect(await getSegments(appId)).toEqual(segments);
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.segments(appId) }));
    expect(Item).toEqual({
      ...keys.segments(appId),
      type: 'segments',
      segments,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('ad configuration: none is undefined; a put is read back, kept as one item', async () => {
    expect(await getAdsConfig(appId)).toBeUndefined();
    const config = { enabled: true, placements: [{ id: 'home', network: 'admob' }] };
    await putAdsConfig(appId, config as unknown as AdsConfig);
    expect(await getAdsConfig(appId)).toEqual(config);
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.adsConfig(appId) }));
    expect(Item).toEqual({
      ...keys.adsConfig(appId),
      type: 'ads_config',
      config,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });
});

describe('errors that may heal (a retryable 503)', () => {
  const named = (name: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(name), { name, ...extra });
  const cancelledFor = (...codes: (string | undefined)[]) =>
    named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

  it.each([
    ['ProvisionedThroughputExceededException', named('ProvisionedThroughputExceededException'), true],
    ['ThrottlingException', named('ThrottlingException'), true],
    ['RequestLimitExceeded', named('RequestLimitExceeded'), true],
    ['InternalServerError', named('InternalServerError'), true],
    ['ServiceUnavailable', named('ServiceUnavailable'), true],
    ['TransactionConflictException', named('TransactionConflictException'), true],
    ['TimeoutError', named('TimeoutError'), true],
    ['ECONNREFUSED', named('Error', { code: 'ECONNREFUSED' }), true],
    ['ECONNRESET', named('Error', { code: 'ECONNRESET' }), true],
    ['ETIMEDOUT', named('Error', { code: 'ETIMEDOUT' }), true],
    ['EPIPE', named('Error', { code: 'EPIPE' }), true],
    ['a transaction cancelled for throttling', cancelledFor('None', 'ThrottlingError'), true],
    ['a transaction cancelled for capacity', cancelledFor('ProvisionedThroughputExceeded'), true],
    ['a transaction cancelled for a conflict', cancelledFor('TransactionConflict', 'None'), true],
    ['a transaction cancelled for a failed condition', cancelledFor('ConditionalCheckFailed', 'None'), false],
    ['a transaction cancelled without reasons', named('TransactionCanceledException'), false],
    ['ValidationException', named('ValidationException'), false],
    ['ConditionalCheckFailedException', named('ConditionalCheckFailedException'), false],
    ['ResourceNotFoundException', named('ResourceNotFoundException'), false],
    ['a socket error of another kind', named('Error', { code: 'ENOTFOUND' }), false],
    ['no error at all', undefined, false],
  ])('%s: %s', (_what, error, unavailable) => {
    expect(isDataStoreUnavailable(error)).toBe(unavailable);
  });

  it('reasons are read from TransactionCanceledException only, in the order of the items', () => {
    expect(cancellationReasonsOf(cancelledFor('None', 'TransactionConflict', undefined))).toEqual([
      'None',
      'TransactionConflict',
      undefined,
    ]);
    expect(cancellationReasonsOf(named('TransactionCanceledException'))).toEqual([]);
    expect(cancellationReasonsOf(named('ValidationException', { CancellationReasons: [{ Code: 'None' }] }))).toEqual(
      [],
    );
    expect(cancellationReasonsOf(undefined)).toEqual([]);
  });
});
