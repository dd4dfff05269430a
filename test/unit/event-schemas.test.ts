import { describe, expect, it } from 'vitest';
import { busEventDetail, EVENT_KINDS, EVENT_SOURCE, eventPayload } from '../../lib/events/schemas.js';
import { storeEventData } from '../support/fixtures.js';

const statusChanged = {
  event: 'subscription.status_changed',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: {
    subscription_id: 'sub_0123456789abcdef01234567',
    user_id: 'u-1',
    old_status: 'active',
    new_status: 'cancelled',
    expires_at: '2026-02-01T00:00:00.000Z',
    auto_renew: false,
  },
};
const transferred = {
  event: 'subscription.transferred',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: {
    original_transaction_id: '2000000000000001',
    product_id: 'premium_monthly',
    from_user_id: 'u-1',
    to_user_id: 'u-2',
    from_subscription_id: 'sub_0123456789abcdef01234567',
    to_subscription_id: 'sub_fedcba9876543210fedcba98',
  },
};

const grantData = {
  user_id: 'u-1',
  entitlement_id: 'pro',
  granted_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-02-01T00:00:00.000Z',
};
const granted = {
  event: 'entitlement.granted',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { ...grantData, previous_expires_at: null },
};
const expired = { event: 'entitlement.expired', timestamp: '2026-02-01T00:00:10.000Z', data: grantData };

describe('event schemas (webhook bodies and the bus detail)', () => {
  it("the service publishes the spec's status change, the transfer, the six store-driven kinds and the three of grants", () => {
    expect(EVENT_KINDS).toEqual([
      'subscription.status_changed',
      'subscription.transferred',
      'subscription.renewed',
      'subscription.auto_renew_changed',
      'subscription.billing_issue',
      'subscription.refunded',
      'subscription.refund_reversed',
      'subscription.product_changed',
      'entitlement.granted',
      'entitlement.revoked',
      'entitlement.expired',
    ]);
  });

  it('accepts either kind, each with exactly its fields', () => {
    expect(eventPayload.parse(statusChanged)).toEqual(statusChanged);
    expect(eventPayload.parse(transferred)).toEqual(transferred);
    expect(eventPayload.parse(granted)).toEqual(granted);
    expect(eventPayload.parse(expired)).toEqual(expired);
    expect(
      busEventDetail.parse({
        app_id: 'app_0123456789abcdef',
        event_id: 'evt_0123456789abcdef01234567',
        payload: transferred,
      }).payload,
    ).toEqual(transferred);
  });

  it.each([
    [
      'a transfer without its previous owner',
      { ...transferred, data: { ...transferred.data, from_user_id: undefined } },
    ],
    ['a transfer with a field beyond its own', { ...transferred, data: { ...transferred.data, old_status: 'active' } }],
    [
      "a transfer shaped as a status change (the kinds' fields do not mix)",
      { ...transferred, data: statusChanged.data },
    ],
    [
      'a status change with a field beyond the spec',
      { ...statusChanged, data: { ...statusChanged.data, from_user_id: 'u-0' } },
    ],
    ['an event of another kind', { ...transferred, event: 'subscription.deleted' }],
    ['a transfer without a timestamp', { event: transferred.event, data: transferred.data }],
    ['a grant without its previous end', { ...granted, data: grantData }],
    ['an expiry with a previous end (only a grant has one)', { ...expired, data: granted.data }],
    ['a grant naming a subscription', { ...expired, data: { ...grantData, subscription_id: 'sub_1' } }],
  ])('refuses %s', (_case, payload) => {
    expect(eventPayload.safeParse(payload).success).toBe(false);
  });
});

describe('store-driven event schemas', () => {
  const storeData = storeEventData('2026-02-01T00:00:00.000Z');
  const storeEvent = (event: string, extra: Record<string, unknown>) => ({
    event,
    timestamp: '2026-01-01T00:00:00.000Z',
    data: { ...storeData, ...extra },
  });
  const KINDS: [string, Record<string, unknown>][] = [
    ['subscription.renewed', { transaction_id: '2000000000000002' }],
    ['subscription.auto_renew_changed', {}],
    [
      'subscription.billing_issue',
      { billing_issue_at: '2026-01-01T00:00:00.000Z', grace_period_expires_at: '2026-01-17T00:00:00.000Z' },
    ],
    ['subscription.refunded', { refunded_at: '2026-01-01T00:00:00.000Z' }],
    ['subscription.refund_reversed', {}],
    ['subscription.product_changed', { previous_product_id: 'basic_monthly' }],
  ];

  it.each(KINDS)('%s: accepted with the common fields and its own', (event, extra) => {
    const payload = storeEvent(event, extra);
    expect(eventPayload.parse(payload)).toEqual(payload);
  });

  it.each(KINDS.filter(([, extra]) => Object.keys(extra).length > 0))('%s: refused without its own fields', (event) => {
    expect(eventPayload.safeParse(storeEvent(event, {})).success).toBe(false);
  });

  it.each(Object.keys(storeData))('refused without the common field %s', (field) => {
    const payload = storeEvent('subscription.auto_renew_changed', {});
    delete (payload.data as Record<string, unknown>)[field];
    expect(eventPayload.safeParse(payload).success).toBe(false);
  });

  it('the bus detail: the source is the service, and the event id is evt_ and 24 hex digits, nothing around them', () => {
    expect(EVENT_SOURCE).toBe('subscription-backend');
    const detail = (event_id: string) =>
      busEventDetail.safeParse({
        app_id: 'app_0123456789abcdef',
        event_id,
        payload: storeEvent('subscription.refund_reversed', {}),
      }).success;
    expect(detail('evt_0123456789abcdef01234567')).toBe(true);
    expect(detail('xevt_0123456789abcdef01234567')).toBe(false);
    expect(detail('evt_0123456789abcdef01234567x')).toBe(false);
  });
});
