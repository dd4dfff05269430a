/**
 * GET /v1/customers: an app's customers in user id order, narrowed to a prefix. Bounded per request:
 * at most MAX_INDEX_READS Query requests, so a page may hold fewer customers than `limit` (many
 * entries of one user) while `next_cursor` says more follow.
 */
import { readCustomerEntries } from '../data/customer-index.js';
import {
  addCustomerEntries,
  type CustomersSeen,
  decodeCustomerCursor,
  encodeCustomerCursor,
} from '../domain/customer-search.js';
import type { CustomerList, ListCustomersQuery } from '../schemas/customer-list.js';

/** Query requests one page makes at most. */
export const MAX_INDEX_READS = 5;
/** Entries one Query reads at most: twice the page, as a user often has a profile and a subscription. */
const entriesPerRead = (wanted: number) => Math.min(250, 2 * wanted);

export async function listCustomers(appId: string, query: ListCustomersQuery): Promise<CustomerList> {
  const prefix = query.prefix ?? '';
  let after = query.cursor === undefined ? undefined : decodeCustomerCursor(query.cursor, prefix);
  // One more than the page: whether a customer follows it.
  const wanted = query.limit + 1;
  let seen: CustomersSeen = { userIds: [], lastRead: undefined, ended: false };
  for (let read = 0; read < MAX_INDEX_READS && !seen.ended && seen.userIds.length < wanted; read++) {
    const entries = await readCustomerEntries(appId, { prefix, after }, entriesPerRead(wanted));
    seen = addCustomerEntries(seen, entries.userIds, prefix);
    if (!entries.more) seen = { ...seen, ended: true };
    after = seen.lastRead ?? after;
  }
  const page = seen.userIds.slice(0, query.limit);
  // A full page goes on after its last customer; a page the read bound cut short, after the last id read.
  const next = seen.userIds.length > query.limit ? page.at(-1) : seen.ended ? undefined : seen.lastRead;
  return {
    data: page.map((user_id) => ({ user_id })),
    pagination: { limit: query.limit, next_cursor: next === undefined ? null : encodeCustomerCursor(prefix, next) },
  };
}
