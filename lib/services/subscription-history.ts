/**
 * `GET /v1/subscriptions/{subscription_id}/history`: the subscription's changes, newest first,
 * from the entries the aggregator writes (lib/events/aggregator.ts).
 */
import { AppError } from '../core/errors.js';
import { queryHistory } from '../data/history-items.js';
import { subscriptionExists } from '../data/subscription-queries.js';
import { decodeHistoryCursor, encodeHistoryCursor, type HistoryEntry } from '../domain/history-entries.js';

export interface HistoryList {
  data: HistoryEntry[];
  pagination: { limit: number; next_cursor: string | null };
}

export async function getSubscriptionHistory(
  appId: string,
  subscriptionId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<HistoryList> {
  const before = query.cursor === undefined ? undefined : decodeHistoryCursor(query.cursor, subscriptionId);
  const page = await queryHistory(appId, subscriptionId, { limit: query.limit, before });
  // Entries exist only under the app's own subscriptions; an empty page may be an unknown one's (or
  // a subscription created less than the stream's delay ago), which the state item tells apart.
  if (page.entries.length === 0 && !(await subscriptionExists(appId, subscriptionId)))
    throw new AppError('SUBSCRIPTION_NOT_FOUND', `Subscription ${subscriptionId} not found`);
  return {
    data: page.entries,
    pagination: {
      limit: query.limit,
      next_cursor: page.lastVersion === null ? null : encodeHistoryCursor({ subscriptionId, before: page.lastVersion }),
    },
  };
}
