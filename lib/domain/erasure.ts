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
  'subscriptions_detached',
] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasureCounts = Record<ErasedKind, number>;

/** The user's own partitions (userPartitionsOf), by name. */
export type UserPartition = 'user' | 'events' | 'sessions' | 'orders' | 'reports' | 'rate_limit';

export const NO_COUNTS: ErasureCounts = Object.fromEntries(ERASED_KINDS.map((kind) => [kind, 0])) as ErasureCounts;

/** What every item of a partition other than the user's own counts as. */
const KIND_OF_PARTITION: Record<Exclude<UserPartition, 'user'>, ErasedKind | undefined> = {
  events: 'events',
  sessions: 'sessions',
  orders: 'orders',
  reports: 'reports',
  rate_limit: undefined,
};

/**
 * What a deleted item counts as, by its partition and sort key; undefined for what is no data of
 * the user's (the rate limiter's window, deleted all the same).
 */
export function erasedKindOf(partition: UserPartition, sk: string): ErasedKind | undefined {
  if (partition !== 'user') return KIND_OF_PARTITION[partition];
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
