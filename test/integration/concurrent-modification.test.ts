import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { updateSubscription } from '../../lib/services/subscriptions.js';
import { appErrorOf } from '../support/assertions.js';
import { createTestApp } from '../support/fixtures.js';
import { seedSubscription } from '../support/subscriptions.js';

let interceptors = 0;

/**
 * Another writer wins the race `times` times: right before each of this process's next `times`
 * TransactWriteItems, the subscription's version is bumped by a plain UpdateItem (as a concurrent
 * request committing first would). Returns how many transactions were sent.
 */
async function withConcurrentWriter(
  appId: string,
  subscriptionId: string,
  times: number,
  work: () => Promise<unknown>,
): Promise<{ transactions: number }> {
  const name = `concurrentWriter${++interceptors}`;
  let transactions = 0;
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        transactions += 1;
        if (transactions <= times) {
          await ddb.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.subscription(appId, subscriptionId),
              UpdateExpression: 'SET version = version + :one',
              ExpressionAttributeValues: { ':one': 1 },
            }),
          );
        }
      }
      return next(args);
    },
    { step: 'build', name },
  );
  try {
    await work();
  } finally {
    ddb.middlewareStack.remove(name);
  }
  return { transactions };
}

describe('a change that keeps losing the race to concurrent writers', () => {
  let appId: string;
  beforeAll(async () => {
    ({ appId } = await createTestApp());
  });

  it('is retried on a fresh read: two lost races, the third attempt commits', async () => {
    const subscription = await seedSubscription(appId);
    let result: unknown;
    const { transactions } = await withConcurrentWriter(appId, subscription.id, 2, async () => {
      result = await updateSubscription(appId, subscription.id, { status: 'cancelled' });
    });
    expect(transactions).toBe(3);
    expect(result).toMatchObject({ id: subscription.id, status: 'cancelled' });
    // Seeded at 1, bumped twice by the other writer, once by the change.
    expect(await getSubscriptionRecord(appId, subscription.id)).toMatchObject({ status: 'cancelled', version: 4 });
  });

  it('after three lost races is 409 CONCURRENT_MODIFICATION, retryable, and changes nothing', async () => {
    const subscription = await seedSubscription(appId);
    let error: unknown;
    const { transactions } = await withConcurrentWriter(appId, subscription.id, 3, async () => {
      error = await appErrorOf(updateSubscription(appId, subscription.id, { status: 'cancelled' }));
    });
    expect(transactions).toBe(3);
    expect(error).toMatchObject({ code: 'CONCURRENT_MODIFICATION', status: 409, retryable: true });
    expect(await getSubscriptionRecord(appId, subscription.id)).toMatchObject({ status: 'active', version: 4 });
  });
});
