/**
 * TransactWriteItems with the retry DynamoDB asks for: a transaction cancelled because another
 * one held one of its items (TransactionConflict) is sent again after a short random pause, so
 * two requests racing on one item cost the loser a few milliseconds instead of an error. The SDK
 * does not retry cancellations. A cancellation for any other reason (a failed condition) is the
 * caller's to read, and a conflict that outlasts every attempt is raised (the API answers 503).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, type TransactItem } from './client.js';
import { cancellationReasonsOf } from './unavailable.js';

const MAX_ATTEMPTS = 10;
const BASE_DELAY_MS = 20;
const MAX_DELAY_MS = 500;

/** Cancelled only because other transactions held its items: the same transaction may commit now. */
export function isTransactionConflict(error: unknown): boolean {
  const reasons = cancellationReasonsOf(error);
  return (
    reasons.includes('TransactionConflict') &&
    reasons.every((reason) => reason === undefined || reason === 'None' || reason === 'TransactionConflict')
  );
}

/** Full jitter: a random pause up to 20, 40, 80, ... ms (at most 500) before attempts 2 to 10:
 * about a second and a half in all at worst. */
export const conflictDelayMs = (attempt: number, random: number = Math.random()): number =>
  random * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));

export async function transactWrite(items: readonly TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ddb.send(new TransactWriteCommand({ TransactItems: [...items] }));
      return;
    } catch (error) {
      if (attempt === MAX_ATTEMPTS || !isTransactionConflict(error)) throw error;
      await sleep(conflictDelayMs(attempt));
    }
  }
}
