/**
 * The write side of the revenue counters (revenue.ts reads them): per day, product and currency.
 * A change with revenue carries it on the subscription item it writes (`revenue_change`, stamped
 * with the item's new version); the aggregator adds it to the counter from the table's stream.
 */
import type { RevenueDelta } from '../domain/revenue-figures.js';
import * as keys from './entity-keys.js';
import type { TableKey } from './table-keys.js';

export const REVENUE_CHANGE_ATTRIBUTE = 'revenue_change';

/** A revenue delta as the item carries it: amounts that are zero are left out (the item stays small). */
export interface RevenueChange extends Partial<RevenueDelta> {
  /** The UTC day the revenue counts on. */
  day: string;
  /** The version of the subscription item whose write carries it: a later write does not carry it again. */
  version: number;
}

export function revenueChange(version: number, day: string, delta: RevenueDelta): RevenueChange {
  return {
    ...(Object.fromEntries(Object.entries(delta).filter(([, amount]) => amount !== 0)) as Partial<RevenueDelta>),
    day,
    version,
  };
}

/** The counter a revenue change adds to, the fields that name it, and the amounts it adds. */
export function revenueCounterUpdate(
  record: { app_id: string; product_id: string; currency: string },
  change: RevenueChange,
): { key: TableKey; set: Record<string, string>; add: Record<string, number> } {
  const { day, version: _version, ...delta } = change;
  return {
    key: keys.revenue(record.app_id, day, record.product_id, record.currency),
    set: { type: 'revenue_counter', day, product_id: record.product_id, currency: record.currency },
    add: Object.fromEntries(Object.entries(delta).filter(([, amount]) => amount !== undefined)) as Record<
      string,
      number
    >,
  };
}
