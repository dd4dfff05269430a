/** The write side of the revenue counters (revenue.ts reads them): per day, product and currency. */
import type { RevenueDelta } from '../domain/revenue.js';
import { tableName } from './client.js';
import { keys } from './keys.js';
import type { SubscriptionRecord } from './subscription-items.js';
import { updateExpression } from './update-expression.js';

/** Adds a change to the revenue counters of (day, product, currency): in the same transaction as the change. */
export function revenueUpdate(
  record: Pick<SubscriptionRecord, 'app_id' | 'product_id' | 'currency'>,
  day: string,
  delta: RevenueDelta,
) {
  return {
    TableName: tableName,
    Key: keys.revenue(record.app_id, day, record.product_id, record.currency),
    ...updateExpression({
      set: { type: 'revenue_counter', day, product_id: record.product_id, currency: record.currency },
      add: { ...delta },
    }),
  };
}
