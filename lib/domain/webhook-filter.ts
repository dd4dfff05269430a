/**
 * Which event kinds an app's webhook endpoint receives (pure). No filter means every kind, those
 * added in later versions included: an endpoint set without `--events` never misses a new kind.
 */

/** The kinds the endpoint receives, or null for every kind. */
export type EventFilter = readonly string[] | null;

export const receivesEvent = (filter: EventFilter, kind: string): boolean => filter === null || filter.includes(kind);

export type ParsedEventFilter = { ok: true; filter: EventFilter } | { ok: false; problem: string };

/**
 * A comma-separated list of kinds (`subscription.renewed,subscription.refunded`), or `all`.
 * The kinds come back in the order of `known`, once each.
 */
export function parseEventFilter(list: string, known: readonly string[]): ParsedEventFilter {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return { ok: false, problem: 'names no event kind' };
  if (names.includes('all')) {
    return names.length === 1
      ? { ok: true, filter: null }
      : { ok: false, problem: '"all" cannot be combined with kinds' };
  }
  const unknown = [...new Set(names.filter((name) => !known.includes(name)))];
  if (unknown.length > 0)
    return {
      ok: false,
      problem: `${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is not an event kind' : 'are not event kinds'}`,
    };
  return { ok: true, filter: known.filter((kind) => names.includes(kind)) };
}
