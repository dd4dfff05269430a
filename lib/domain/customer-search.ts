/**
 * A page of an app's customers by user id (GET /v1/customers?prefix=): the index holds an entry per
 * profile and per subscription, sorted by user id, so a user with several shows up as a run of equal
 * ids that a page counts once. The cursor is the last user id a read reached, for one prefix.
 */
import { ANONYMOUS_ID_PATTERN } from './erasure-scope.js';
import { cursorOfAnotherQuery, decodeCursorFields, encodeCursorFields } from './pagination.js';

/** Where the customers read so far stand: the distinct ids in order, and whether the prefix's range ended. */
export interface CustomersSeen {
  userIds: readonly string[];
  /** The last id read within the prefix, a left-out one too: where the next read goes on from. */
  lastRead: string | undefined;
  /** An entry past the prefix was read: nothing further matches. */
  ended: boolean;
}

/**
 * Adds one read of the index's user ids (in the index's order, each at least the last one seen) to
 * what was seen: equal ids counted once, the anonymous ids an erasure keeps subscriptions under
 * left out (no customer), and the range ends at the first id outside the prefix.
 */
export function addCustomerEntries(seen: CustomersSeen, entries: readonly string[], prefix: string): CustomersSeen {
  const userIds = [...seen.userIds];
  let lastRead = seen.lastRead;
  for (const userId of entries) {
    if (!userId.startsWith(prefix)) return { userIds, lastRead, ended: true };
    if (userIds.at(-1) !== userId && !ANONYMOUS_ID_PATTERN.test(userId)) userIds.push(userId);
    lastRead = userId;
  }
  return { userIds, lastRead, ended: seen.ended };
}

export const encodeCustomerCursor = (prefix: string, after: string): string =>
  encodeCursorFields({ a: after, p: prefix });

/**
 * The user id a page ended at; INVALID_PARAMETER for a cursor that is malformed or was issued for
 * another prefix.
 */
export function decodeCustomerCursor(cursor: string, prefix: string): string {
  const decoded = decodeCursorFields<{ a: string; p: unknown }>(
    cursor,
    (c) => typeof c.a === 'string' && c.a.length > 0 && typeof c.p === 'string' && c.a.startsWith(c.p),
  );
  if (decoded.p !== prefix)
    throw cursorOfAnotherQuery('another prefix', 'use the cursor with the same prefix as the page it came from');
  return decoded.a;
}
