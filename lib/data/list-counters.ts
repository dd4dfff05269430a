/**
 * The list counters: one per filter combination of the listing (absent facets = any), kept in the
 * transaction that changes a subscription's facets, so a list total is one read, O(1).
 */
import { tableName } from './client.js';
import { type FacetValues, listCounterKey, type TableKey } from './keys.js';
import { facetCombinations } from './table.js';

/** The list counters a subscription with these facet values is counted in (absent facets = any). */
export function counterKeys(appId: string, values: FacetValues, onlyWithStatus: boolean): TableKey[] {
  return facetCombinations()
    .filter((facets) => !onlyWithStatus || facets.includes('status'))
    .map((facets) => listCounterKey(appId, Object.fromEntries(facets.map((facet) => [facet, values[facet]]))));
}

export const addToCounter = (key: TableKey, delta: number) => ({
  TableName: tableName,
  Key: key,
  UpdateExpression: 'ADD #count :delta SET #type = :type',
  ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
  ExpressionAttributeValues: { ':delta': delta, ':type': 'list_counter' },
});

/** Counter updates for a subscription entering (+1) or leaving (-1) these facet values. */
export function counterUpdates(appId: string, values: FacetValues, delta: 1 | -1, onlyWithStatus: boolean) {
  return counterKeys(appId, values, onlyWithStatus).map((key) => ({ Update: addToCounter(key, delta) }));
}

/**
 * Counter updates for a subscription whose facet values change: -1 where it leaves, +1 where it
 * enters, nothing for the counters that count it before and after (one operation per item).
 */
export function counterMoves(appId: string, before: FacetValues, after: FacetValues) {
  const deltas = new Map<string, { key: TableKey; delta: number }>();
  const move = (values: FacetValues, delta: number) => {
    for (const key of counterKeys(appId, values, false)) {
      const id = `${key.pk}\n${key.sk}`;
      const entry = deltas.get(id) ?? { key, delta: 0 };
      entry.delta += delta;
      deltas.set(id, entry);
    }
  };
  move(before, -1);
  move(after, 1);
  return [...deltas.values()]
    .filter(({ delta }) => delta !== 0)
    .map(({ key, delta }) => ({ Update: addToCounter(key, delta) }));
}
