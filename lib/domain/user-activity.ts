/**
 * A user's profile as readers see it, from the items it is kept in: the profile (maps, counters,
 * and first/last seen by the reports that update it) and the activity and features items that
 * event batches update (lib/data/table-keys.ts says why they are apart).
 */

type Item = Record<string, unknown>;

const times = (items: (Item | undefined)[], name: string): string[] =>
  items.map((item) => item?.[name]).filter((value): value is string => typeof value === 'string');

/** ISO 8601 times of one format sort as strings. */
const earliest = (values: string[]): string | undefined => values.sort()[0];
const latest = (values: string[]): string | undefined => values.sort().at(-1);

const featureNames = (value: unknown): string[] =>
  value instanceof Set ? [...(value as Set<string>)] : Array.isArray(value) ? (value as string[]) : [];

/**
 * The profile with first_seen the earliest, last_seen the latest, and features the union of what
 * each item holds; undefined when none of them exists.
 */
export function mergeProfileItems(
  profile: Item | undefined,
  activity: Item | undefined,
  features: Item | undefined,
): Item | undefined {
  if (!profile && !activity && !features) return undefined;
  const merged: Item = { ...profile };
  const firstSeen = earliest(times([profile, activity], 'first_seen'));
  const lastSeen = latest(times([profile, activity], 'last_seen'));
  if (firstSeen !== undefined) merged.first_seen = firstSeen;
  if (lastSeen !== undefined) merged.last_seen = lastSeen;
  const names = new Set([...featureNames(profile?.features), ...featureNames(features?.features)]);
  if (names.size > 0) merged.features = names;
  else delete merged.features;
  return merged;
}
