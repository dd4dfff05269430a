/**
 * The expiry sweeper: applies the lifecycle's "time passes" transition to every subscription the
 * clock has made due (active past expires_at, paused past paused_until). Idempotent: a
 * subscription that is no longer due, or was changed meanwhile, is left to the state machine.
 */
import { advanceCheckpoint, findDueItems } from '../data/due.js';
import { isAppError } from '../errors.js';
import { logger } from '../logger.js';
import { advanceSubscriptionClock } from './subscriptions.js';

export interface SweepResult {
  examined: number;
  changed: number;
  failed: number;
}

/** Subscriptions handled per run; the next run (a minute later) continues. */
const MAX_PER_RUN = 1000;
const CONCURRENCY = 8;

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(workers);
}

export async function expireDueSubscriptions(now = new Date()): Promise<SweepResult> {
  const result: SweepResult = { examined: 0, changed: 0, failed: 0 };
  const days = await findDueItems('SUB', now, MAX_PER_RUN);
  let completeBefore: string | undefined;
  for (const { day, items } of days) {
    let dayFailed = false;
    await inParallel(items, CONCURRENCY, async (item) => {
      result.examined += 1;
      try {
        if (await advanceSubscriptionClock(item.app_id as string, item.id as string)) result.changed += 1;
      } catch (error) {
        if (isAppError(error) && error.kind === 'SUBSCRIPTION_NOT_FOUND') return;
        dayFailed = true;
        result.failed += 1;
        logger.error('expiry sweep failed for a subscription', { subscription_id: item.id, error: (error as Error).message });
      }
    });
    // A past day whose every due item was handled will never receive new ones: skip it from now on.
    if (dayFailed || day >= now.toISOString().slice(0, 10)) break;
    completeBefore = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  }
  if (completeBefore) await advanceCheckpoint('SUB', completeBefore);
  return result;
}
