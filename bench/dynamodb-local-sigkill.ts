/**
 * What DynamoDB Local itself loses when killed with SIGKILL, with no service in between: writers
 * send PutItem, or TransactWriteItems (a conditional put plus a counter update), straight to it;
 * it is killed mid-stream and restarted on the same data; every acknowledged write is read back.
 * The soak tolerates exactly what this shows (DynamoDB Local acknowledges a transaction a few ms
 * before it is durable, so a SIGKILL can lose the last one it acknowledged); real DynamoDB does not.
 *
 *   node --import tsx bench/dynamodb-local-sigkill.ts     (ROUNDS=3 per kind of write)
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient, startDynamoDbLocal } from '../local/dynamodb.js';
import { freePort } from '../test/support/ports.js';
import { writeResults } from './support/report.js';

const TABLE = 'sigkill';
const WRITERS = 8;
const WRITE_MS = 6000;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Kind = 'PutItem' | 'TransactWriteItems';

interface Round {
  kind: Kind;
  acknowledged: number;
  /** Acknowledged writes missing after the restart, with when they were acknowledged relative to the kill (ms). */
  lost: { key: string; acknowledged_ms_from_kill: number }[];
  /** Counter updates that survived without their put (or the reverse): a transaction half applied. */
  torn: number;
}

async function round(kind: Kind): Promise<Round> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sigkill-'));
  const port = await freePort();
  let dynamo = await startDynamoDbLocal({ port, dataDir });
  const client = localClient(dynamo.endpoint);
  try {
    await ensureTable(client, TABLE);
    const acknowledged: { key: string; writer: number; at: number }[] = [];
    let stop = false;
    const write = (key: string, writer: number) =>
      kind === 'PutItem'
        ? client.send(
            new PutItemCommand({
              TableName: TABLE,
              Item: { pk: { S: key }, sk: { S: 'item' } },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          )
        : client.send(
            new TransactWriteItemsCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: TABLE,
                    Item: { pk: { S: key }, sk: { S: 'item' } },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                {
                  Update: {
                    TableName: TABLE,
                    Key: { pk: { S: `writer-${writer}` }, sk: { S: 'count' } },
                    UpdateExpression: 'ADD n :one',
                    ExpressionAttributeValues: { ':one': { N: '1' } },
                  },
                },
              ],
            }),
          );
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = 0; !stop; i++) {
        const key = `w${writer}-${i}`;
        try {
          await write(key, writer);
          acknowledged.push({ key, writer, at: performance.now() });
        } catch {
          await sleep(100); // refused: DynamoDB Local is gone
        }
      }
    });
    await sleep(WRITE_MS);
    const killedAt = performance.now();
    await dynamo.kill();
    stop = true;
    await Promise.all(writers);
    dynamo = await startDynamoDbLocal({ port, dataDir });

    const present = async (pk: string, sk: string) =>
      (
        await client.send(
          new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }),
        )
      ).Item;
    const lost: Round['lost'] = [];
    const stored = new Map<number, number>();
    for (const { key, writer, at } of acknowledged) {
      if (await present(key, 'item')) stored.set(writer, (stored.get(writer) ?? 0) + 1);
      else lost.push({ key, acknowledged_ms_from_kill: Math.round(at - killedAt) });
    }
    let torn = 0;
    if (kind === 'TransactWriteItems') {
      for (let writer = 0; writer < WRITERS; writer++) {
        const counted = Number((await present(`writer-${writer}`, 'count'))?.n?.N ?? 0);
        // Items stored beyond the acknowledged ones (acknowledgement lost in the kill) count too: compare with all stored.
        let items = 0;
        for (let i = 0, misses = 0; misses < 3; i++) {
          if (await present(`w${writer}-${i}`, 'item')) {
            items++;
            misses = 0;
          } else misses++;
        }
        if (counted !== items) torn += 1;
      }
    }
    return { kind, acknowledged: acknowledged.length, lost, torn };
  } finally {
    client.destroy();
    await dynamo.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const rounds: Round[] = [];
for (const kind of ['PutItem', 'TransactWriteItems'] as const) {
  for (let i = 0; i < ROUNDS; i++) {
    const result = await round(kind);
    rounds.push(result);
    console.log(
      `${kind}: ${result.acknowledged} acknowledged, ${result.lost.length} lost after SIGKILL + restart` +
        `${result.lost.map((l) => ` (${l.key}, acknowledged ${l.acknowledged_ms_from_kill} ms from the kill)`).join('')}` +
        `${kind === 'TransactWriteItems' ? `, ${result.torn} half-applied transactions` : ''}`,
    );
  }
}
writeResults('dynamodb-local-sigkill', { writers: WRITERS, write_ms: WRITE_MS, rounds }, []);
