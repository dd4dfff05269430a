/**
 * The expiry sweeper: applies the lifecycle's "time passes" transition to every subscription the
 * clock has made due (active past expires_at or its grace period, paused past paused_until).
 * Idempotent: a subscription that is no longer due, or was changed meanwhile, is left to the state
 * machine.
 *
 * No false expiries: a store subscription that renews by itself is due only
 * STORE_EXPIRY_MARGIN_SECONDS after its period, time for the store's notification to arrive; if
 * none did and the app has the store's credentials, the store is asked first and what it says is
 * applied like a notification (a renewal found so is no expiry). A store that cannot be asked is
 * asked again by the next runs for one more margin; then the clock decides, so that an outage (or
 * credentials the store refuses) gives no free access for longer than that.
 */
import { isAppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { type SubscriptionRecord, storeMarginMs } from '../data/subscription-items.js';
import { getSubscriptionRecord } from '../data/subscription-queries.js';
import { accessEndsAt } from '../domain/subscription-state.js';
import { processDueWork } from './due-work.js';
import { askStore } from './store-status.js';
import { applyStoreState } from './store-truth.js';
import { advanceSubscriptionClock } from './subscriptions.js';

export interface SweepResult {
  examined: number;
  changed: number;
  failed: number;
}

/** Subscriptions handled per run; the next run (a minute later) continues. */
const MAX_PER_RUN = 1000;

/** Access ended `margins` store margins ago, or longer. */
const marginsPast = (record: SubscriptionRecord, now: Date, margins: number): boolean =>
  Date.parse(accessEndsAt(record)) + margins * storeMarginMs(record) <= now.getTime();

/** A store subscription the store was expected to renew, whose margin has run out. */
const storeMayHaveRenewed = (record: SubscriptionRecord, now: Date): boolean =>
  (record.store === 'app_store' || record.store === 'google_play') &&
  record.status === 'active' &&
  record.auto_renew &&
  marginsPast(record, now, 1);

/** Asks the store about a subscription it may have renewed, and applies what it says. */
async function askStoreFirst(appId: string, subscriptionId: string, now: Date): Promise<void> {
  const record = await getSubscriptionRecord(appId, subscriptionId);
  if (!record || !storeMayHaveRenewed(record, now)) return;
  try {
    const state = await askStore(appId, record);
    if (state) await applyStoreState(appId, state);
  } catch (error) {
    if (!isAppError(error)) throw error;
    // The store does not know the purchase: the clock decides.
    if (error.kind === 'INVALID_RECEIPT' || error.kind === 'INVALID_NOTIFICATION') {
      logger.warn('store status unusable; the clock decides', {
        app_id: appId,
        subscription_id: subscriptionId,
        reason: error.message,
      });
      return;
    }
    // Unreachable, or our credentials refused: asked again by the next runs, for a while.
    // Asked for a whole margin past the store's own (see the module's comment): the clock decides.
    if (!marginsPast(record, now, 2)) throw error;
    logger.error('the store could not be asked for a whole margin; the clock decides', {
      app_id: appId,
      subscription_id: subscriptionId,
      reason: error.message,
    });
  }
}

/**
 * `deadline` (epoch ms): no subscription is started after it (the function's time runs out); the
 * rest stay due for the next run.
 */
export async function expireDueSubscriptions(now = new Date(), deadline?: number, from?: string): Promise<SweepResult> {
  let changed = 0;
  const { examined, failed } = await processDueWork(
    'SUB',
    now,
    { limit: MAX_PER_RUN, concurrency: 8, deadline, from },
    async (item) => {
      const appId = item.app_id as string;
      const subscriptionId = item.id as string;
      try {
        await askStoreFirst(appId, subscriptionId, now);
        if (await advanceSubscriptionClock(appId, subscriptionId)) changed += 1;
      } catch (error) {
        if (!(isAppError(error) && error.kind === 'SUBSCRIPTION_NOT_FOUND')) throw error;
      }
    },
  );
  return { examined, changed, failed };
}
