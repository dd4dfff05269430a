/**
 * The list counts: the `total` of GET /v1/subscriptions for every filter of status, product and
 * platform. A subscription is counted in the 8 cells its facet values match (each facet its own
 * value or any). No request writes them: the aggregator (aggregates.ts) moves them from the table's
 * stream, so no item is written by every change of an app.
 */

import { facetCombinations } from './table.js';
import { type FacetValues, listCountCell, type TableKey } from './table-keys.js';

/** The `type` of a list count item, whichever writes it (the aggregator, the recount). */
export const LIST_COUNT_ITEM_TYPE = 'list_count';

export interface CountMove {
  key: TableKey;
  attribute: string;
  delta: number;
}

/** The cells a subscription with these facet values is counted in. */
export function countCells(appId: string, values: FacetValues): { key: TableKey; attribute: string }[] {
  return facetCombinations().map((facets) =>
    listCountCell(appId, Object.fromEntries(facets.map((facet) => [facet, values[facet]]))),
  );
}

/**
 * The count moves of a subscription whose facet values go from `before` to `after` (undefined:
 * it did not exist, or no longer does): -1 where it leaves, +1 where it enters, nothing for the
 * cells that count it before and after.
 */
export function countMoves(
  appId: string,
  before: FacetValues | undefined,
  after: FacetValues | undefined,
): CountMove[] {
  const moves = new Map<string, CountMove>();
  const move = (values: FacetValues | undefined, delta: number) => {
    if (!values) return;
    for (const cell of countCells(appId, values)) {
      const id = `${cell.key.pk}\n${cell.key.sk}\n${cell.attribute}`;
      const entry = moves.get(id) ?? { ...cell, delta: 0 };
      entry.delta += delta;
      moves.set(id, entry);
    }
  };
  move(before, -1);
  move(after, 1);
  return [...moves.values()].filter(({ delta }) => delta !== 0);
}
