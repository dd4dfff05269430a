/**
 * The conflict-faithful DynamoDB (test/support/dynamodb-conflict-proxy.ts): each rule it adds to
 * DynamoDB Local fires with the errors the real SDK raises for DynamoDB's, and lib/ recognises them.
 */
import { randomUUID } from 'node:crypto';
import {
  DynamoDBClient,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { cancellationReasonsOf, isDataStoreUnavailable } from '../../lib/data/unavailable.js';
import {
  type ConflictProxy,
  DEFAULT_PROXY_SETTINGS,
  type RecordedOperation,
  startConflictProxy,
} from '../support/dynamodb-conflict-proxy.js';

const TableName = inject('tableName');
let proxy: ConflictProxy;
let client: DynamoDBDocumentClient;

beforeAll(async () => {
  proxy = await startConflictProxy({ target: inject('dynamodbEndpoint') });
  client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  // The SDK loads each command's code on first use: warm them, so a test's second request arrives in time.
  const Key = { pk: 'PROXY#warm', sk: 'warm' };
  await client.send(new PutCommand({ TableName, Item: Key }));
  await client.send(new UpdateCommand({ ...addOne(Key).Update }));
  await client.send(new TransactWriteCommand({ TransactItems: [addOne(Key)] }));
  await client.send(new TransactGetCommand({ TransactItems: [{ Get: { TableName, Key } }] }));
});
afterAll(async () => {
  client?.destroy();
  await proxy?.close();
});
beforeEach(() => {
  proxy.reset();
  proxy.configure(DEFAULT_PROXY_SETTINGS);
});

/** Long enough for a second request to arrive while the first transaction holds its items, on a busy machine. */
const HOLD_MS = 1000;

/** Keys of this test's own items. */
const scope = () => {
  const pk = `PROXY#${randomUUID()}`;
  return { item: (sk: string) => ({ pk, sk }), counter: { pk, sk: 'COUNTER' } };
};
const addOne = (Key: Record<string, string>) => ({
  Update: {
    TableName,
    Key,
    UpdateExpression: 'ADD #c :one',
    ExpressionAttributeNames: { '#c': 'count' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});
const countOf = async (Key: Record<string, string>) =>
  (await client.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item?.count;

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
/** Starts a transaction and resolves once the proxy holds its items (it is in flight); `done` settles with it. */
async function inFlight(items: Parameters<typeof addOne>[0][]) {
  const done = client.send(new TransactWriteCommand({ TransactItems: items.map(addOne) }));
  await until(() => proxy.heldItems() > 0);
  return { done };
}
const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected the request to fail'),
    (error: unknown) => error as Error & { $metadata: { httpStatusCode?: number; attempts?: number } },
  );
const outcomes = () => proxy.operations().map((o) => `${o.operation} ${o.outcome}`);

describe('transactions touching one item at the same time', () => {
  it('the second is cancelled with TransactionConflict for that item, and lib/ calls it retryable', async () => {
    const { item, counter } = scope();
    proxy.configure({ transactionHoldMs: HOLD_MS });
    const { done: first } = await inFlight([item('a'), counter]);

    const error = await rejectionOf(
      client.send(new TransactWriteCommand({ TransactItems: [addOne(item('b')), addOne(counter)] })),
    );

    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ]);
    expect(error.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
    );
    // A 400 the SDK does not retry, as AWS documents for TransactionCanceledException.
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect(cancellationReasonsOf(error)).toEqual(['None', 'TransactionConflict']);
    expect(isDataStoreUnavailable(error)).toBe(true);
    await first;
    expect(await countOf(counter)).toBe(1);
    expect(await countOf(item('b'))).toBeUndefined();
    expect(outcomes()).toEqual(['TransactWriteItems conflict', 'TransactWriteItems written']);
  });

  it('transactions on different items both commit while in flight together', async () => {
    const { item } = scope();
    proxy.configure({ transactionHoldMs: 300 });
    const { done: first } = await inFlight([item('a'), item('b')]);
    await client.send(new TransactWriteCommand({ TransactItems: [addOne(item('c')), addOne(item('d'))] }));
    await first;
    expect(await Promise.all(['a', 'b', 'c', 'd'].map((sk) => countOf(item(sk))))).toEqual([1, 1, 1, 1]);
    expect(outcomes()).toEqual(['TransactWriteItems written', 'TransactWriteItems written']);
  });

  it('the item is free again once the transaction has answered', async () => {
    const { counter } = scope();
    proxy.configure({ transactionHoldMs: 50 });
    await client.send(new TransactWriteCommand({ TransactItems: [addOne(counter)] }));
    await client.send(new TransactWriteCommand({ TransactItems: [addOne(counter)] }));
    expect(await countOf(counter)).toBe(2);
  });
});

describe('a single-item write on an item an in-flight transaction holds', () => {
  it('fails with TransactionConflictException, which the SDK does not retry and lib/ calls retryable', async () => {
    const { item, counter } = scope();
    proxy.configure({ transactionHoldMs: HOLD_MS });
    const { done: first } = await inFlight([item('a'), counter]);

    const error = await rejectionOf(client.send(new UpdateCommand({ ...addOne(counter).Update })));

    expect(error).toBeInstanceOf(TransactionConflictException);
    expect(error.name).toBe('TransactionConflictException');
    expect(error.message).toBe('Transaction is ongoing for the item');
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect(isDataStoreUnavailable(error)).toBe(true);
    await first;
    await client.send(new UpdateCommand({ ...addOne(counter).Update }));
    expect(await countOf(counter)).toBe(2);
  });

  it('a transactional read of it is cancelled with TransactionConflict', async () => {
    const { item, counter } = scope();
    proxy.configure({ transactionHoldMs: HOLD_MS });
    const { done: first } = await inFlight([counter]);

    const error = await rejectionOf(
      client.send(
        new TransactGetCommand({
          TransactItems: [{ Get: { TableName, Key: item('x') } }, { Get: { TableName, Key: counter } }],
        }),
      ),
    );

    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(cancellationReasonsOf(error)).toEqual(['None', 'TransactionConflict']);
    await first;
  });
});

describe('an item written faster than its throughput', () => {
  // 0.01 units/s: one write empties the item's throughput for ~100 s, longer than any retry.
  const USED_UP = { itemWriteUnitsPerSecond: 0.01, burstSeconds: 1 };

  it('a single-item write is throttled; the SDK retries, then surfaces ProvisionedThroughputExceededException', async () => {
    const { item } = scope();
    proxy.configure(USED_UP);
    await client.send(new PutCommand({ TableName, Item: { ...item('hot'), n: 1 } }));

    const error = await rejectionOf(client.send(new PutCommand({ TableName, Item: { ...item('hot'), n: 2 } })));

    expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
    // Every attempt the client's retry strategy allows, with backoff between them.
    const attempts = await client.config.maxAttempts();
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts });
    expect((error as ProvisionedThroughputExceededException).ThrottlingReasons).toEqual([
      { reason: 'TableWriteKeyRangeThroughputExceeded', resource: expect.stringContaining(`table/${TableName}`) },
    ]);
    expect(error.message).toMatch(/^Throughput exceeds the current capacity of your table or index/);
    expect(isDataStoreUnavailable(error)).toBe(true);
    expect(outcomes()).toEqual(['PutItem written', ...Array<string>(attempts).fill('PutItem throttled')]);
  });

  it('a throttled write succeeds when a retry finds throughput again', async () => {
    const { item } = scope();
    proxy.configure(USED_UP);
    await client.send(new PutCommand({ TableName, Item: { ...item('hot'), n: 1 } }));

    const second = client.send(new PutCommand({ TableName, Item: { ...item('hot'), n: 2 } }));
    await until(() => proxy.operations().some((o) => o.outcome === 'throttled'));
    proxy.configure({ itemWriteUnitsPerSecond: 1000 });
    const { $metadata } = await second;

    expect($metadata.attempts).toBeGreaterThan(1);
    expect((await client.send(new GetCommand({ TableName, Key: item('hot') }))).Item?.n).toBe(2);
  });

  it('other items keep their own throughput', async () => {
    const { item } = scope();
    proxy.configure(USED_UP);
    await client.send(new PutCommand({ TableName, Item: item('one') }));
    await client.send(new PutCommand({ TableName, Item: item('two') }));
    expect(outcomes()).toEqual(['PutItem written', 'PutItem written']);
  });

  it('a transaction is cancelled with ThrottlingError for that item, not retried by the SDK', async () => {
    const { item, counter } = scope();
    proxy.configure(USED_UP);
    await client.send(new TransactWriteCommand({ TransactItems: [addOne(counter)] }));

    const error = await rejectionOf(
      client.send(new TransactWriteCommand({ TransactItems: [addOne(item('fresh')), addOne(counter)] })),
    );

    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual([
      'None',
      'ThrottlingError',
    ]);
    expect(error.$metadata.attempts).toBe(1);
    expect(isDataStoreUnavailable(error)).toBe(true);
    expect(await countOf(counter)).toBe(1);
  });
});

describe('the record of touched items', () => {
  it('lists each write with its items and write units, which match DynamoDB Local’s ConsumedCapacity', async () => {
    const { item, counter } = scope();
    const big = { ...item('big'), blob: 'x'.repeat(1500) };

    const { ConsumedCapacity } = await client.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName, Item: big } }, addOne(counter)],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName, Key: item('big'), ConditionExpression: 'attribute_exists(pk)' } },
          addOne(item('other')),
        ],
      }),
    );
    const single = await client.send(
      new UpdateCommand({ ...addOne(item('big')).Update, ReturnConsumedCapacity: 'TOTAL' }),
    );

    const [transaction, withCheck, update] = proxy.operations() as [
      RecordedOperation,
      RecordedOperation,
      RecordedOperation,
    ];
    expect(transaction).toMatchObject({
      operation: 'TransactWriteItems',
      outcome: 'written',
      items: [
        { table: TableName, key: item('big'), writeUnits: 4 },
        { table: TableName, key: counter, writeUnits: 2 },
      ],
    });
    expect(transaction.endedAt).toBeGreaterThanOrEqual(
      transaction.startedAt + DEFAULT_PROXY_SETTINGS.transactionHoldMs,
    );
    expect(ConsumedCapacity?.[0]?.CapacityUnits).toBe(6);
    expect(withCheck.items.map((i) => i.writeUnits)).toEqual([0, 2]);
    expect(update).toMatchObject({ operation: 'UpdateItem', items: [{ key: item('big'), writeUnits: 2 }] });
    expect(single.ConsumedCapacity?.CapacityUnits).toBe(2);
  });

  it('records refused writes with DynamoDB Local’s error, and reset forgets them', async () => {
    const { item } = scope();
    await client.send(new PutCommand({ TableName, Item: item('a') }));
    await rejectionOf(
      client.send(new PutCommand({ TableName, Item: item('a'), ConditionExpression: 'attribute_not_exists(pk)' })),
    );
    await rejectionOf(client.send(new UpdateCommand({ TableName, Key: item('a'), UpdateExpression: 'SET' })));
    expect(proxy.operations().map((o) => [o.outcome, o.error])).toEqual([
      ['written', undefined],
      ['refused', 'ConditionalCheckFailedException'],
      ['refused', 'ValidationException'],
    ]);
    proxy.reset();
    expect(proxy.operations()).toEqual([]);
  });
});
