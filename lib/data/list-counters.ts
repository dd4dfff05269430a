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
