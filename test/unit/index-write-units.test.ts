import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { indexUnits, itemSize } from '../../bench/support/item-size.js';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import { buildSubscription } from '../support/subscriptions.js';

const stored = (record: SubscriptionRecord) => marshall(subscriptionItem(record), { removeUndefinedValues: true });
const active = buildSubscription('app_0123456789abcdef', { store: 'app_store', original_transaction_id: '2000000001' });

describe("index write units by DynamoDB's rules (the capacity meter)", () => {
  it('a new subscription writes one unit in each of its seven indexes: four listing, the user, the customers, the due time', () => {
    expect(indexUnits(undefined, stored(active))).toBe(7);
  });

  it('a status change moves it in the two status-keyed listing indexes (a removal and an addition each)', () => {
    const expired = { ...active, status: 'expired' as const };
    // Nothing is due once expired: the due entry is removed (1 unit).
    expect(indexUnits(stored(active), stored(expired))).toBe(2 * 2 + 1);
  });

  it('a change of attributes no index projects writes no index entry', () => {
    expect(indexUnits(stored(active), stored({ ...active, price: 4.99, version: 2 }))).toBe(0);
  });

  it('ending auto-renewal moves only the due time (a store subscription no longer waits for the store)', () => {
    expect(indexUnits(stored(active), stored({ ...active, auto_renew: false }))).toBe(2);
  });

  it('a new due time moves the due entry only', () => {
    const renewed = { ...active, expires_at: new Date(Date.parse(active.expires_at) + 86_400_000).toISOString() };
    expect(indexUnits(stored(active), stored(renewed))).toBe(2);
  });

  it('an entry of a whole-item index is rewritten on any change, one unit per started KB', () => {
    const delivery = (attempts: number) =>
      marshall({
        pk: 'DELIVERY#evt_1',
        sk: 'DELIVERY',
        deliveries_pk: 'app_1',
        deliveries_sk: '2026-01-01T00:00:00.000Z#evt_1',
        body: 'x'.repeat(1500),
        attempts,
      });
    expect(itemSize(delivery(2))).toBeGreaterThan(1024);
    expect(indexUnits(delivery(1), delivery(2))).toBe(2);
    expect(indexUnits(delivery(1), delivery(1))).toBe(0);
  });
});
