/**
 * What one stream record of a subscription item adds to the counters (lib/events/aggregator.ts),
 * from records as DynamoDB Streams delivers them: which records count, which write carries its
 * revenue, and the day a removal counts on.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { subscriptionItem } from '../../lib/data/subscription-items.js';
import { contributionsOf, isSubscriptionRecord } from '../../lib/events/aggregator.js';
import { buildSubscription } from '../support/subscriptions.js';

const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as unknown as Record<string, AttributeValue>;

const record = (
  old: Record<string, unknown> | undefined,
  now: Record<string, unknown> | undefined,
  extra: Partial<NonNullable<DynamoDBRecord['dynamodb']>> = {},
): DynamoDBRecord =>
  ({
    eventName: now ? (old ? 'MODIFY' : 'INSERT') : 'REMOVE',
    dynamodb: {
      Keys: image({ pk: (now ?? old)!.pk, sk: (now ?? old)!.sk }),
      ...(old ? { OldImage: image(old) } : {}),
      ...(now ? { NewImage: image(now) } : {}),
      SequenceNumber: '100',
      ...extra,
    },
  }) as unknown as DynamoDBRecord;

const active = buildSubscription('app-1', { id: 'sub_1', updated_at: '2026-03-02T10:00:00.000Z' });
const revenue = { amount_micros: 9_990_000, new_subscriptions: 1, net_active: 1, day: '2026-03-02', version: 1 };
const keysOf = (contributions: ReturnType<typeof contributionsOf>) => contributions.map((c) => c.key.pk);

describe('the aggregator: what a stream record counts', () => {
  it('only the state items of subscriptions count', () => {
    const sub = record(undefined, subscriptionItem(active));
    expect(isSubscriptionRecord(sub)).toBe(true);
    // A SUB sort key under another partition (not a subscription's) is not counted.
    const other = record(undefined, { ...subscriptionItem(active), pk: 'USER#app-1#u1' });
    expect(isSubscriptionRecord(other)).toBe(false);
    const payment = record(undefined, { ...subscriptionItem(active), sk: 'PAYMENT' });
    expect(isSubscriptionRecord(payment)).toBe(false);
    const withoutPartition = record(undefined, subscriptionItem(active));
    delete withoutPartition.dynamodb!.Keys!.pk;
    expect(isSubscriptionRecord(withoutPartition)).toBe(false);
  });

  it("a write's revenue counts once: a later write of the same version that still carries it adds no revenue", () => {
    const first = record(undefined, subscriptionItem(active, revenue));
    expect(keysOf(contributionsOf(first))).toContain('REV#app-1#2026-03');
    // An update that leaves the item's version and revenue change as they were (an erasure's
    // anonymisation, an index rewrite) is no new money.
    const same = subscriptionItem(active, revenue);
    const rewritten = record(same, { ...same, user_id: 'erased' });
    expect(keysOf(contributionsOf(rewritten))).not.toContain('REV#app-1#2026-03');
    // A later write (version 2) that updated other fields and left the first write's revenue on the item.
    const later = record(same, { ...same, version: 2, auto_renew: false });
    expect(keysOf(contributionsOf(later))).not.toContain('REV#app-1#2026-03');
  });

  it('a removed subscription leaves the metrics on the day the stream saw it go', () => {
    // 2026-03-09T23:59:59Z in seconds, as DynamoDB Streams gives ApproximateCreationDateTime.
    const removed = record(subscriptionItem(active), undefined, { ApproximateCreationDateTime: 1_773_100_799 });
    const metrics = contributionsOf(removed).filter((c) => c.key.pk.startsWith('METRICS#'));
    expect(metrics.map((c) => [c.key, c.add])).toEqual([
      [
        { pk: 'METRICS#app-1#2026-03', sk: '2026-03-09#USD' },
        { mrr_micros: -9_990_000, active: -1 },
      ],
      [
        { pk: 'METRICS#app-1', sk: 'NOW#USD' },
        { mrr_micros: -9_990_000, active: -1 },
      ],
    ]);
  });

  it('a new subscription counts in the metrics on the day of its write', () => {
    const metrics = contributionsOf(record(undefined, subscriptionItem(active))).filter((c) =>
      c.key.pk.startsWith('METRICS#'),
    );
    expect(metrics.map((c) => [c.key, c.add])).toEqual([
      [
        { pk: 'METRICS#app-1#2026-03', sk: '2026-03-02#USD' },
        { mrr_micros: 9_990_000, active: 1, new_subscriptions: 1 },
      ],
      [
        { pk: 'METRICS#app-1', sk: 'NOW#USD' },
        { mrr_micros: 9_990_000, active: 1 },
      ],
    ]);
  });
});
