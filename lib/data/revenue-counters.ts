/** The write side of the revenue counters (revenue.ts reads them): per day, product and currency. */
import type { RevenueDelta } from '../domain/revenue.js';
import { tableName } from './client.js';
import { keys } from './keys.js';
import type { SubscriptionRecord } from './subscription-items.js';

/** Adds a change to the revenue counters of (day, product, currency): in the same transaction as the change. */
export function revenueUpdate(
  record: Pick<SubscriptionRecord, 'app_id' | 'product_id' | 'currency'>,
  day: string,
  delta: RevenueDelta,
) {
  const fields = Object.entries(delta);
  return {
    TableName: tableName,
    Key: keys.revenue(record.app_id, day, record.product_id, record.currency),
    UpdateExpression: `SET #type = :type, #day = :day, product_id = :product, currency = :currency ADD ${fields.map((_, i) => `#f${i} :f${i}`).join(', ')}`,
    ExpressionAttributeNames: {
      '#type': 'type',
      '#day': 'day',
      ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
    },
    ExpressionAttributeValues: {
      ':type': 'revenue_counter',
      ':day': day,
      ':product': record.product_id,
      ':currency': record.currency,
      ...Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
    },
  };
}
