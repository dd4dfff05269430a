/** The cost benchmark's count of a store notification's DynamoDB requests (issue #14: one read of the purchase, one transaction). */
import { describe, expect, it } from 'vitest';
import { countNotificationCommands } from '../../bench/support/notification-commands.js';

const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
const batchGet = (...keys: ReturnType<typeof key>[]) => ({
  name: 'BatchGetItemCommand',
  input: { RequestItems: { table: { Keys: keys, ConsistentRead: true } } },
});

describe('countNotificationCommands', () => {
  it('counts the read that names the purchase, the other reads and the transaction, and lists each with its items', () => {
    const counted = countNotificationCommands([
      batchGet(key('APP#a', 'APP'), key('APP#a', 'STORE#app_store')),
      batchGet(key('APP#a', 'PRODUCT#p'), key('TXN#a#1', 'TXN'), key('TXN#a#2', 'TXN')),
      { name: 'GetItemCommand', input: { Key: key('SUB#a#s', 'SUB') } },
      {
        name: 'TransactWriteItemsCommand',
        input: {
          TransactItems: [{ Update: { Key: key('SUB#a#s', 'SUB') } }, { Put: { Item: key('TXN#a#2', 'TXN') } }],
        },
      },
    ]);
    expect(counted).toEqual({
      commands: [
        'BatchGetItem(APP/APP, APP/STORE)',
        'BatchGetItem(APP/PRODUCT, TXN/TXN, TXN/TXN)',
        'GetItem(SUB/SUB)',
        'TransactWriteItems(SUB/SUB, TXN/TXN)',
      ],
      purchase_reads: 1,
      other_reads: 2,
      transactions: 1,
      other_writes: 0,
    });
  });

  it('counts a second read of the purchase (a retried decision) and a write outside the transaction', () => {
    const purchase = batchGet(key('TXN#a#t', 'TXN'));
    const counted = countNotificationCommands([
      purchase,
      purchase,
      { name: 'PutItemCommand', input: { Item: key('NOTIFICATION#a#google_play#m', 'NOTIFICATION') } },
    ]);
    expect(counted).toMatchObject({ purchase_reads: 2, other_reads: 0, transactions: 0, other_writes: 1 });
  });
});
