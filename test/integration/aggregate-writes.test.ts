/**
 * The aggregator's writes (lib/data/aggregates.ts) against DynamoDB Local, with contributions
 * written out by hand: which record of a batch a marker ends at when sequence numbers differ in
 * length or come out of order, what a batch reports as written and as counted before, amounts that
 * cancel out, the age at which another shard's marker is forgotten, and what happens when DynamoDB
 * refuses (a middleware on the shared client stands in for a contended item).
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { applyStreamChanges, type Contribution, type StreamChange } from '../../lib/data/aggregates.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import type { TableKey } from '../../lib/data/table-keys.js';
import { conditionFailed, interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';

const run = `aggregates-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let items = 0;
const newKey = (): TableKey => ({ pk: `TEST#${run}`, sk: `ITEM#${++items}` });
const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
/** A marker as the aggregator writes it: the sequence number padded to 40 digits, then when. */
const marker = (sequence: string, at: Date | number = NOW) =>
  `${sequence.padStart(40, '0')}@${typeof at === 'number' ? at : at.getTime()}`;

const contribution = (key: TableKey, add: Record<string, number>, set: Record<string, string> = {}): Contribution => ({
  key,
  set: { type: 'test_counter', ...set },
  add,
});
const change = (sequenceNumber: string, ...contributions: Contribution[]): StreamChange => ({
  sequenceNumber,
  contributions,
});
const read = getConsistent;

afterEach(stopIntercepting);

describe('the order of a batch', () => {
  it('sequence numbers compare as numbers: the marker ends at the largest, whatever order and length they come in', async () => {
    const key = newKey();
    // As strings, '9' sorts after '10' and '100': padded to 40 digits they compare as numbers.
    const batch = ['100', '9', '10', '11', '99'].map((sequence) => change(sequence, contribution(key, { n: 1 })));
    expect(await applyStreamChanges('shard-a', batch, NOW)).toEqual({ written: 1, alreadyCounted: 0 });
    expect(await read(key)).toEqual({ ...key, type: 'test_counter', n: 5, 'applied#shard-a': marker('100') });

    // The records up to 100 are counted: 99 again adds nothing, 101 adds one.
    expect(await applyStreamChanges('shard-a', [change('99', contribution(key, { n: 1 }))], NOW)).toEqual({
      written: 0,
      alreadyCounted: 1,
    });
    expect(await applyStreamChanges('shard-a', [change('101', contribution(key, { n: 1 }))], NOW)).toEqual({
      written: 1,
      alreadyCounted: 0,
    });
    expect(await read(key)).toMatchObject({ n: 6, 'applied#shard-a': marker('101') });
  });

  it('a retry that starts before the marker adds only the records after it, in sequence order', async () => {
    const key = newKey();
    await applyStreamChanges('shard-a', [change('20', contribution(key, { n: 1 }))], NOW);
    const retried = ['30', '10', '20', '40'].map((sequence) => change(sequence, contribution(key, { n: 10 })));
    expect(await applyStreamChanges('shard-a', retried, NOW)).toEqual({ written: 1, alreadyCounted: 0 });
    expect(await read(key)).toMatchObject({ n: 21, 'applied#shard-a': marker('40') });
  });
});

describe('what a batch reports', () => {
  it('one write per item, however many records touch it; nine items take two rounds, each counted once', async () => {
    const keys = Array.from({ length: 9 }, newKey);
    const batch = [
      change('1', ...keys.map((key) => contribution(key, { n: 1 }))),
      change('2', ...keys.map((key) => contribution(key, { n: 2 }))),
    ];
    const sent = interceptCommands((_request, send) => send());
    expect(await applyStreamChanges('shard-a', batch, NOW)).toEqual({ written: 9, alreadyCounted: 0 });
    expect(sent.filter(({ command }) => command === 'UpdateItemCommand')).toHaveLength(9);
    for (const key of keys) expect(await read(key)).toMatchObject({ n: 3 });

    expect(await applyStreamChanges('shard-a', batch, NOW)).toEqual({ written: 0, alreadyCounted: 9 });
    const next = [change('3', contribution(keys[4]!, { n: 1 })), ...batch];
    expect(await applyStreamChanges('shard-a', next, NOW)).toEqual({ written: 1, alreadyCounted: 8 });
    expect(await read(keys[4]!)).toMatchObject({ n: 4 });
    expect(await read(keys[3]!)).toMatchObject({ n: 3 });
  });

  it('amounts that cancel out are not written, the others are; all cancelled, the item holds only its names and marker', async () => {
    const key = newKey();
    await applyStreamChanges(
      'shard-a',
      [change('1', contribution(key, { n: 1, m: 2 })), change('2', contribution(key, { n: -1 }))],
      NOW,
    );
    expect(await read(key)).toEqual({ ...key, type: 'test_counter', m: 2, 'applied#shard-a': marker('2') });

    const other = newKey();
    await applyStreamChanges(
      'shard-a',
      [change('1', contribution(other, { n: 1 })), change('2', contribution(other, { n: -1 }))],
      NOW,
    );
    expect(await read(other)).toEqual({ ...other, type: 'test_counter', 'applied#shard-a': marker('2') });
  });
});

describe("other shards' markers", () => {
  it('are forgotten once older than 48 hours, kept up to 48 hours; other attributes are never taken for markers', async () => {
    const key = newKey();
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...key,
          'applied#old': marker('1', NOW.getTime() - 48 * HOUR - 1),
          'applied#at-48h': marker('1', NOW.getTime() - 48 * HOUR),
          'applied#recent': marker('1', NOW.getTime() - HOUR),
        },
      }),
    );
    // A name attribute whose value reads like an old marker.
    await applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }, { note: 'x@1' }))], NOW);
    expect(await read(key)).toEqual({
      ...key,
      type: 'test_counter',
      note: 'x@1',
      n: 1,
      'applied#shard-a': marker('5'),
      'applied#at-48h': marker('1', NOW.getTime() - 48 * HOUR),
      'applied#recent': marker('1', NOW.getTime() - HOUR),
    });
  });

  it('a stale marker another writer moved meanwhile is kept, and the batch counts all the same', async () => {
    const key = newKey();
    const stale = marker('1', NOW.getTime() - 72 * HOUR);
    const moved = marker('2', NOW);
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...key, 'applied#other': stale } }));
    const sent = interceptCommands(async (request, send) => {
      if (request.command === 'UpdateItemCommand' && /REMOVE/.test(request.input.UpdateExpression)) {
        stopIntercepting();
        await ddb.send(
          new PutCommand({ TableName: tableName, Item: { ...(await read(key)), 'applied#other': moved } }),
        );
      }
      return send();
    });
    expect(await applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }))], NOW)).toEqual({
      written: 1,
      alreadyCounted: 0,
    });
    expect(sent.map(({ command }) => command)).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect(await read(key)).toMatchObject({ n: 1, 'applied#other': moved, 'applied#shard-a': marker('5') });
  });

  it('a failure other than the condition, while forgetting them, fails the batch so that it is retried', async () => {
    const key = newKey();
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...key, 'applied#other': marker('1', NOW.getTime() - 72 * HOUR) },
      }),
    );
    interceptCommands(async (request, send) => {
      if (request.command === 'UpdateItemCommand' && /REMOVE/.test(request.input.UpdateExpression)) {
        throw throttled();
      }
      return send();
    });
    await expect(applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }))], NOW)).rejects.toThrow(
      'throughput exceeded',
    );
  });
});

describe('a contended item', () => {
  it('is read again (strongly consistent) after each refused write, and the batch fails after 8 attempts', async () => {
    const key = newKey();
    const sent = interceptCommands(async (request, send) => {
      if (request.command === 'UpdateItemCommand') throw conditionFailed();
      return send();
    });
    await expect(applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }))], NOW)).rejects.toThrow(
      `aggregate item ${key.pk} ${key.sk} stayed contended after 8 attempts`,
    );
    expect(sent.filter(({ command }) => command === 'UpdateItemCommand')).toHaveLength(8);
    const reads = sent.filter(({ command }) => command === 'GetItemCommand');
    expect(reads).toHaveLength(8);
    for (const { input } of reads) expect(input).toEqual({ TableName: tableName, Key: key, ConsistentRead: true });
    expect(await read(key)).toBeUndefined();
  });

  it('a write refused for another reason fails the batch at once', async () => {
    const key = newKey();
    const sent = interceptCommands(async (request, send) => {
      if (request.command === 'UpdateItemCommand') {
        throw Object.assign(new Error('item too large'), { name: 'ValidationException' });
      }
      return send();
    });
    await expect(applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }))], NOW)).rejects.toThrow(
      'item too large',
    );
    expect(sent.map(({ command }) => command)).toEqual(['UpdateItemCommand']);
  });

  it('refused because another reader counted part of the batch meanwhile: only the rest is added, on the marker it read', async () => {
    const key = newKey();
    let otherReader = false;
    const sent = interceptCommands(async (request, send) => {
      if (request.command === 'UpdateItemCommand' && !otherReader) {
        // Another reader of the shard counts record 5 just before this write (its commands pass through).
        otherReader = true;
        await applyStreamChanges('shard-a', [change('5', contribution(key, { n: 1 }))], NOW);
      }
      return send();
    });
    const batch = [change('5', contribution(key, { n: 1 })), change('6', contribution(key, { n: 10 }))];
    expect(await applyStreamChanges('shard-a', batch, NOW)).toEqual({ written: 1, alreadyCounted: 0 });
    expect(await read(key)).toMatchObject({ n: 11, 'applied#shard-a': marker('6') });
    // This reader's writes: refused, then conditioned on the marker it read.
    const updates = sent.filter(({ command }) => command === 'UpdateItemCommand');
    expect(updates).toHaveLength(3);
    expect(Object.values(updates[2]!.input.ExpressionAttributeValues)).toContain(marker('5'));
  });
});

describe('a marker already on the item', () => {
  it('is where counting resumes: a batch of the counted record and the next adds the next alone', async () => {
    const key = newKey();
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #m = :m',
        ExpressionAttributeNames: { '#m': 'applied#shard-a' },
        ExpressionAttributeValues: { ':m': marker('7') },
      }),
    );
    const batch = [change('7', contribution(key, { n: 1 })), change('8', contribution(key, { n: 100 }))];
    expect(await applyStreamChanges('shard-a', batch, NOW)).toEqual({ written: 1, alreadyCounted: 0 });
    expect(await read(key)).toMatchObject({ n: 100, 'applied#shard-a': marker('8') });
  });
});
