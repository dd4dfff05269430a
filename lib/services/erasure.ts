/**
 * Erasure of a user (GDPR/CCPA), DELETE /v1/customers/{user_id}: the user's profile (attributes
 * and custom properties are in it), activity, latest reports, grants, events, sessions and report
 * history are deleted; their subscriptions are kept for the operator's revenue under an anonymous
 * id. Bounded per call: a request deletes at most REQUEST_ERASURE_ITEMS items and answers what is
 * left as under way; the expiry job continues every erasure under way (JOB_ERASURE_ITEMS per run).
 */
import { randomBytes } from 'node:crypto';
import * as keys from '../data/entity-keys.js';
import {
  claimErasure,
  deleteEventsOfUser,
  deleteFromPartition,
  detachSubscription,
  type ErasureMarker,
  finishErasureOnceDetached,
  getErasure,
  saveErasureProgress,
  startErasure,
  subscriptionKeysOfUser,
} from '../data/erasure-writes.js';
import { erasureKey, type TableKey, userPartitionsOf } from '../data/table-keys.js';
import { addCounts, countDeleted, type ErasureCounts, NO_COUNTS, type UserPartition } from '../domain/erasure-scope.js';
import { processDueWork } from './due-work.js';

/** Items a request deletes or detaches at most: about 40 BatchWriteItem requests, well inside the 10 s timeout. */
export const REQUEST_ERASURE_ITEMS = 1000;
/** Items a run of the job deletes per erasure at most: 1,000 BatchWriteItem requests, inside its 5 minutes. */
export const JOB_ERASURE_ITEMS = 25_000;
/** One Query page of keys, then its deletes. */
const PAGE_ITEMS = 1000;
const SUBSCRIPTION_PAGE = 100;
/** Events naming the user per page: three deletes each (outbox item, delivery record, pointer). */
const EVENT_PAGE = 300;

export interface ErasureResult {
  user_id: string;
  /** `erased`: nothing of the user is left; `in_progress`: the job carries on (ask again for the counts). */
  status: 'erased' | 'in_progress';
  removed: ErasureCounts;
}

/**
 * Detaches and deletes up to `budget` items: what it removed, whether it went through everything,
 * and the subscriptions it detached (checked again before the erasure ends).
 */
async function eraseSome(
  marker: ErasureMarker,
  budget: number,
  now: Date,
): Promise<{ removed: ErasureCounts; done: boolean; detached: TableKey[] }> {
  const { app_id: appId, user_id: userId } = marker;
  let remaining = budget;
  let removed = NO_COUNTS;
  const detached: TableKey[] = [];
  let changing = false;
  while (remaining > 0) {
    const limit = Math.min(remaining, SUBSCRIPTION_PAGE);
    const subscriptions = await subscriptionKeysOfUser(appId, userId, limit);
    for (const key of subscriptions) {
      if (remaining <= 0) break;
      const { outcome, written } = await detachSubscription(key, appId, userId, marker.anonymous_id, now);
      // Each item written counts (a subscription renewed for years has a binding per renewal); at least the read.
      remaining -= Math.max(1, written);
      if (outcome === 'changing') changing = true;
      if (outcome !== 'detached') continue;
      detached.push(key);
      removed = addCounts(removed, { subscriptions_detached: 1 });
    }
    if (subscriptions.length < limit) break;
  }
  for (;;) {
    if (remaining <= 0) return { removed, done: false, detached };
    // Three deletes an event: each counts three items of the budget.
    const page = await deleteEventsOfUser(appId, userId, Math.min(Math.ceil(remaining / 3), EVENT_PAGE));
    removed = addCounts(removed, { webhook_events: page.eventIds.length });
    remaining -= 3 * page.eventIds.length;
    if (!page.more) break;
  }
  // The rate limiter's partition holds one item, its window: deleted by key with the user's first page, not queried.
  let byKey = [keys.rateLimitWindow(appId, userId)];
  for (const [partition, pk] of Object.entries(userPartitionsOf(appId, userId)) as [UserPartition, string][]) {
    if (partition === 'rate_limit') continue;
    for (;;) {
      if (remaining <= 0) return { removed, done: false, detached };
      const page = await deleteFromPartition(pk, Math.min(remaining, PAGE_ITEMS), byKey);
      byKey = [];
      removed = addCounts(removed, countDeleted(partition, page.sortKeys));
      remaining -= page.sortKeys.length;
      if (!page.more) break;
    }
  }
  return { removed, done: !changing, detached };
}

/**
 * Carries a leased erasure on by up to `budget` items; done, its marker goes, in one transaction
 * with a strongly consistent check that what this step detached is still not the user's (the
 * user index it found them by is eventually consistent); anything that is again is done later.
 */
async function continueErasure(marker: ErasureMarker, budget: number, now: Date): Promise<ErasureResult> {
  const { removed, done: visited, detached } = await eraseSome(marker, budget, now);
  const total = addCounts(marker.removed, removed);
  const done = visited && (await finishErasureOnceDetached(marker, detached));
  if (!done) await saveErasureProgress(marker, total, now);
  return { user_id: marker.user_id, status: done ? 'erased' : 'in_progress', removed: total };
}

/**
 * Erases the user, or carries on their erasure under way. Idempotent: a user with nothing left
 * (erased before, or never seen) is `erased` with zero counts. While another holder (the job, a
 * concurrent request) works on it, answers its progress so far.
 */
export async function eraseCustomer(
  appId: string,
  userId: string,
  budget = REQUEST_ERASURE_ITEMS,
  now = new Date(),
): Promise<ErasureResult> {
  const fresh: ErasureMarker = {
    app_id: appId,
    user_id: userId,
    anonymous_id: `erased_${randomBytes(12).toString('hex')}`,
    removed: NO_COUNTS,
    started_at: now.toISOString(),
  };
  const marker = (await startErasure(fresh, now)) ?? (await claimErasure(erasureKey(appId, userId), now));
  if (marker) return continueErasure(marker, budget, now);
  const current = await getErasure(appId, userId);
  return { user_id: userId, status: current ? 'in_progress' : 'erased', removed: current?.removed ?? NO_COUNTS };
}

export interface ErasureSweepResult {
  examined: number;
  erased: number;
  failed: number;
}

/** The job's part: every erasure under way that no one holds is carried on, JOB_ERASURE_ITEMS at a time. */
export async function continueErasures(
  now = new Date(),
  budget = JOB_ERASURE_ITEMS,
  from?: string,
): Promise<ErasureSweepResult> {
  let erased = 0;
  const { examined, failed } = await processDueWork('ERA', now, { limit: 100, concurrency: 2, from }, async (item) => {
    const marker = await claimErasure({ pk: item.pk as string, sk: item.sk as string }, now);
    if (marker && (await continueErasure(marker, budget, now)).status === 'erased') erased += 1;
  });
  return { examined, erased, failed };
}
