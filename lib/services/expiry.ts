/**
 * The expiry sweeper: applies the lifecycle's "time passes" transition to every subscription the
 * clock has made due (active past expires_at, paused past paused_until). Idempotent: a
 * subscription that is no longer due, or was changed meanwhile, is left to the state machine.
 */
import { isAppError } from '../core/errors.js';
import { processDueWork } from './due-work.js';
import { advanceSubscriptionClock } from './subscriptions.js';

export interface SweepResult {
  examined: number;
  changed: number;
  failed: number;
}

/** Subscriptions handled per run; the next run (a minute later) continues. */
const MAX_PER_RUN = 1000;

export async function expireDueSubscriptions(now = new Date()): Promise<SweepResult> {
  let changed = 0;
  const { examined, failed } = await processDueWork(
    'SUB',
    now,
    { limit: MAX_PER_RUN, concurrency: 8 },
    async (item) => {
      try {
        if (await advanceSubscriptionClock(item.app_id as string, item.id as string)) changed += 1;
      } catch (error) {
        if (!(isAppError(error) && error.kind === 'SUBSCRIPTION_NOT_FOUND')) throw error;
      }
    },
  );
  return { examined, changed, failed };
}
