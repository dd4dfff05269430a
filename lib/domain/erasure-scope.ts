/**
 * Erasure of a user (pure): what each deleted item counts as in the answer of
 * DELETE /v1/customers/{user_id}, and how the counts of the requests and job runs that carry one
 * erasure add up.
 */

/** What an erasure reports as removed. Attributes and custom properties are fields of the profile. */
export const ERASED_KINDS = [
  'profile',
  'events',
  'sessions',
  'orders',
  'reports',
  'grants',
  'webhook_events',
  'subscriptions_detached',
] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasureCounts = Record<ErasedKind, number>;

/** The user's own partitions (userPartitionsOf), by name. */
export type UserPartition = 'user' | 'events' | 'sessions' | 'orders' | 'reports' | 'rate_limit';

export const NO_COUNTS: ErasureCounts = /* @__PURE__ */ Object.fromEntries(
  /* @__PURE__ */ ERASED_KINDS.map((kind) => [kind, 0]),
) as ErasureCounts;

/**
 * What a deleted item counts as, by its partition and sort key; undefined for what is no data of
 * the user's (the rate limiter's window, deleted all the same).
 */
export function erasedKindOf(partition: UserPartition, sk: string): ErasedKind | undefined {
  if (partition !== 'user') {
    // What every item of a partition other than the user's own counts as.
    const kindOfPartition: Record<Exclude<UserPartition, 'user'>, ErasedKind | undefined> = {
      events: 'events',
      sessions: 'sessions',
      orders: 'orders',
      reports: 'reports',
      rate_limit: undefined,
    };
    return kindOfPartition[partition];
  }
  // The profile with its activity and features items; the latest report of each type; grants.
  if (sk.startsWith('GRANT#')) return 'grants';
  return sk.startsWith('REPORT#') ? 'reports' : 'profile';
}

export function addCounts(a: ErasureCounts, b: Partial<ErasureCounts>): ErasureCounts {
  return Object.fromEntries(ERASED_KINDS.map((kind) => [kind, a[kind] + (b[kind] ?? 0)])) as ErasureCounts;
}

/** Counts of the items deleted from one partition. */
export function countDeleted(partition: UserPartition, sortKeys: readonly string[]): Partial<ErasureCounts> {
  const counts: Partial<ErasureCounts> = {};
  for (const sk of sortKeys) {
    const kind = erasedKindOf(partition, sk);
    if (kind) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/** Attributes of kept items that may name a user: a subscription's, a purchase's owner, a binding's, a transfer's. */
export const USER_ID_FIELDS = ['user_id', 'owner_user_id', 'from_user_id', 'to_user_id'] as const;

/**
 * What anonymises a kept item: each of its USER_ID_FIELDS that holds the user's id, set to the
 * anonymous id; empty when the item names the user nowhere (another user's, or done already).
 */
export function anonymisedFields(
  item: Readonly<Record<string, unknown>>,
  userId: string,
  anonymousId: string,
): Partial<Record<(typeof USER_ID_FIELDS)[number], string>> {
  return Object.fromEntries(
    USER_ID_FIELDS.filter((field) => item[field] === userId).map((field) => [field, anonymousId]),
  );
}

/**
 * The users an event's payload names (a status change's or a grant's user, both users of a
 * transfer): the erasure of each must find the event's outbox item and delivery record.
 */
export function usersNamedBy(payload: { data?: unknown }): string[] {
  const data = (payload.data ?? {}) as Record<string, unknown>;
  const named = ['user_id', 'from_user_id', 'to_user_id'].map((field) => data[field]);
  return [...new Set(named.filter((value): value is string => typeof value === 'string' && value !== ''))];
}

/** The anonymous ids an erasure keeps a user's subscriptions under: `erased_` and 24 hex digits. */
export const ANONYMOUS_ID_PATTERN = /^erased_[0-9a-f]{24}$/;
