/**
 * What lib/events/outbox.ts puts in an event, written out by hand: each store event kind's data
 * (the subscription as the change left it, and the kind's own fields) and the outbox item's expiry.
 */

import { describe, expect, it } from 'vitest';
import { announcedEvents, grantOutboxItem, storeEventPayloadOf, transferOutboxItem } from '../../lib/events/outbox.js';
import { buildSubscription } from '../support/subscriptions.js';

const AT = '2026-05-01T12:00:00.000Z';
const before = buildSubscription('app-1', {
  id: 'sub_1',
  user_id: 'u-1',
  product_id: 'basic_monthly',
  price: 4.99,
  currency: 'EUR',
  store: 'app_store',
  environment: 'sandbox',
  status: 'active',
  expires_at: '2026-05-10T00:00:00.000Z',
  auto_renew: true,
});
const after = {
  ...before,
  product_id: 'premium_monthly',
  price: 9.99,
  status: 'active' as const,
  expires_at: '2026-06-10T00:00:00.000Z',
  auto_renew: false,
  billing_issue_at: '2026-05-10T00:00:05.000Z',
  grace_period_expires_at: '2026-05-26T00:00:00.000Z',
  refunded_at: '2026-05-11T08:00:00.000Z',
};
/** Every store event carries the subscription as the change left it. */
const BASE = {
  subscription_id: 'sub_1',
  user_id: 'u-1',
  product_id: 'premium_monthly',
  price: 9.99,
  currency: 'EUR',
  store: 'app_store',
  environment: 'sandbox',
  status: 'active',
  expires_at: '2026-06-10T00:00:00.000Z',
  auto_renew: false,
};

describe('storeEventPayloadOf', () => {
  it.each([
    ['renewed', 'subscription.renewed', { ...BASE, transaction_id: 'tx-9' }],
    ['auto_renew_changed', 'subscription.auto_renew_changed', BASE],
    [
      'billing_issue',
      'subscription.billing_issue',
      { ...BASE, billing_issue_at: '2026-05-10T00:00:05.000Z', grace_period_expires_at: '2026-05-26T00:00:00.000Z' },
    ],
    ['refunded', 'subscription.refunded', { ...BASE, refunded_at: '2026-05-11T08:00:00.000Z' }],
    ['refund_reversed', 'subscription.refund_reversed', BASE],
    ['product_changed', 'subscription.product_changed', { ...BASE, previous_product_id: 'basic_monthly' }],
  ] as const)('%s is %s with its data', (kind, event, data) => {
    expect(storeEventPayloadOf(kind, before, after, 'tx-9', AT)).toEqual({ event, timestamp: AT, data });
  });
});

describe('subscription.refunded of an earlier period', () => {
  it('says when the refund was written: the subscription itself stays unrefunded', () => {
    const unrefunded = { ...after, refunded_at: null, updated_at: '2026-05-12T09:30:00.000Z' };
    expect(storeEventPayloadOf('refunded', before, unrefunded, null, AT).data).toEqual({
      ...BASE,
      refunded_at: '2026-05-12T09:30:00.000Z',
    });
  });
});

describe('outbox items', () => {
  it('expire from the table seven days after they were written', () => {
    const now = new Date('2026-05-01T12:00:00.900Z');
    const item = transferOutboxItem(
      'app-1',
      {
        original_transaction_id: 'otx-1',
        product_id: 'premium_monthly',
        from_user_id: 'u-1',
        to_user_id: 'u-2',
        from_subscription_id: 'sub_1',
        to_subscription_id: 'sub_2',
      },
      now,
    );
    expect(item.ttl).toBe(1_777_636_800 + 7 * 86_400);
    expect(item).toMatchObject({
      type: 'outbox',
      app_id: 'app-1',
      payload: { event: 'subscription.transferred', timestamp: now.toISOString() },
    });
  });

  it('a write that announces nothing carries no announcement, so the stream filter passes none of its records', () => {
    expect(announcedEvents(3, null)).toBeUndefined();
    expect(announcedEvents(3, undefined, { kinds: [], transactionId: 'txn-1' })).toBeUndefined();
    expect(announcedEvents(3, null, { kinds: ['renewed'], transactionId: 'txn-1' })).toEqual({
      version: 3,
      kinds: ['renewed'],
      transaction_id: 'txn-1',
    });
  });

  it("a grant's event is carried as given, keyed by its own event id", () => {
    const now = new Date('2026-05-01T12:00:00.000Z');
    const payload = {
      event: 'entitlement.revoked' as const,
      timestamp: now.toISOString(),
      data: {
        user_id: 'u-1',
        entitlement_id: 'pro',
        granted_at: '2026-04-01T00:00:00.000Z',
        expires_at: '2026-06-01T00:00:00.000Z',
      },
    };
    const item = grantOutboxItem('app-1', payload, now);
    expect(item).toEqual({
      pk: `OUTBOX#${item.event_id}`,
      sk: 'OUTBOX',
      type: 'outbox',
      app_id: 'app-1',
      event_id: expect.stringMatching(/^evt_/),
      payload,
      ttl: 1_777_636_800 + 7 * 86_400,
    });
  });
});
