import { describe, expect, it } from 'vitest';
import type { EntitledGrant } from '../../lib/domain/entitlements.js';
import {
  type RevenueCatSubscriptionInput,
  revenuecatCustomerInfoOf,
  revenuecatDate,
} from '../../lib/domain/revenuecat-customer.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';
import { customerInfoProblems } from '../support/revenuecat-decoders.js';

const NOW = new Date('2026-06-30T12:00:00.123Z');
const DEFINITIONS = [
  { id: 'pro', products: ['premium_monthly'] },
  { id: 'sync', products: ['sync_addon'] },
];

function sub(overrides: Partial<RevenueCatSubscriptionInput> = {}): RevenueCatSubscriptionInput {
  return {
    ...INITIAL_LIFECYCLE,
    status: 'active',
    product_id: 'premium_monthly',
    started_at: '2026-06-01T12:00:00.000Z',
    expires_at: '2026-07-01T12:00:00.000Z',
    updated_at: '2026-06-01T12:00:00.000Z',
    auto_renew: true,
    trial_period: false,
    trial_expires_at: null,
    store: 'app_store',
    environment: 'production',
    created_at: '2026-06-01T12:00:00.000Z',
    price: 9.99,
    currency: 'USD',
    original_transaction_id: '2000000001',
    ...overrides,
  };
}

const infoOf = (subscriptions: RevenueCatSubscriptionInput[], grants: EntitledGrant[] = []) =>
  revenuecatCustomerInfoOf(
    {
      userId: 'u1',
      firstSeen: '2026-05-01T08:00:00.500Z',
      lastSeen: null,
      subscriptions,
      grants,
      definitions: DEFINITIONS,
    },
    NOW,
  );

describe('revenuecatCustomerInfoOf', () => {
  it('a user without purchases: every key the SDKs require, empty maps, the server time as request_date', () => {
    const info = infoOf([]);
    expect(info).toEqual({
      request_date: '2026-06-30T12:00:00Z',
      request_date_ms: NOW.getTime(),
      subscriber: {
        original_app_user_id: 'u1',
        original_application_version: null,
        original_purchase_date: null,
        first_seen: '2026-05-01T08:00:00Z',
        last_seen: '2026-05-01T08:00:00Z',
        management_url: null,
        subscriptions: {},
        non_subscriptions: {},
        entitlements: {},
        other_purchases: {},
      },
    });
    expect(customerInfoProblems(info)).toEqual([]);
  });

  it('dates drop their fractional seconds: the only form iOS decodes', () => {
    expect(revenuecatDate('2026-06-30T12:00:00.999Z')).toBe('2026-06-30T12:00:00Z');
    expect(revenuecatDate(0)).toBe('1970-01-01T00:00:00Z');
  });

  // One subscription each: its entry and the `pro` entitlement it decides (undefined: none listed).
  const cases: {
    case: string;
    subscription: Partial<RevenueCatSubscriptionInput>;
    entry: Record<string, unknown>;
    entitlementExpires: string | undefined;
  }[] = [
    {
      case: 'active: its period end, nothing detected',
      subscription: {},
      entry: {
        expires_date: '2026-07-01T12:00:00Z',
        unsubscribe_detected_at: null,
        store: 'app_store',
        is_sandbox: false,
      },
      entitlementExpires: '2026-07-01T12:00:00Z',
    },
    {
      case: 'active, not renewing: unsubscribe detected when it was cancelled',
      subscription: { cancel_at_period_end: true, cancelled_at: '2026-06-10T00:00:00.000Z' },
      entry: { unsubscribe_detected_at: '2026-06-10T00:00:00Z', expires_date: '2026-07-01T12:00:00Z' },
      entitlementExpires: '2026-07-01T12:00:00Z',
    },
    {
      case: 'auto-renew off without a cancellation: detected at its last change',
      subscription: { auto_renew: false, updated_at: '2026-06-20T00:00:00.000Z' },
      entry: { unsubscribe_detected_at: '2026-06-20T00:00:00Z' },
      entitlementExpires: '2026-07-01T12:00:00Z',
    },
    {
      case: "in the store's grace period after a failed renewal: access until the grace ends",
      subscription: {
        expires_at: '2026-06-29T12:00:00.000Z',
        billing_issue_at: '2026-06-29T12:00:00.000Z',
        grace_period_expires_at: '2026-07-05T12:00:00.000Z',
      },
      entry: {
        expires_date: '2026-06-29T12:00:00Z',
        billing_issues_detected_at: '2026-06-29T12:00:00Z',
        grace_period_expires_date: '2026-07-05T12:00:00Z',
      },
      entitlementExpires: '2026-07-05T12:00:00Z',
    },
    {
      case: 'refunded before its end: ended when refunded, so no SDK counts it active',
      subscription: {
        status: 'cancelled',
        cancelled_at: '2026-06-15T00:00:00.000Z',
        refunded_at: '2026-06-15T00:00:00.000Z',
      },
      entry: { expires_date: '2026-06-15T00:00:00Z', refunded_at: '2026-06-15T00:00:00Z' },
      entitlementExpires: '2026-06-15T00:00:00Z',
    },
    {
      case: 'paused: ended when paused, resuming on its auto_resume_date',
      subscription: {
        status: 'paused',
        paused_at: '2026-06-20T00:00:00.000Z',
        paused_until: '2026-07-20T00:00:00.000Z',
      },
      entry: { expires_date: '2026-06-20T00:00:00Z', auto_resume_date: '2026-07-20T00:00:00Z' },
      entitlementExpires: '2026-06-20T00:00:00Z',
    },
    {
      case: 'expired: its own end',
      subscription: {
        status: 'expired',
        expires_at: '2026-06-01T00:00:00.000Z',
        updated_at: '2026-06-01T00:01:00.000Z',
      },
      entry: { expires_date: '2026-06-01T00:00:00Z' },
      entitlementExpires: '2026-06-01T00:00:00Z',
    },
    {
      case: 'in its trial: period type trial; Google Play is play_store; sandbox',
      subscription: {
        trial_period: true,
        trial_expires_at: '2026-07-01T12:00:00.000Z',
        store: 'google_play',
        environment: 'sandbox',
      },
      entry: { period_type: 'trial', store: 'play_store', is_sandbox: true },
      entitlementExpires: '2026-07-01T12:00:00Z',
    },
    {
      case: 'recorded through the subscription API (no store): external, free: no price',
      subscription: { store: null, price: 0, original_transaction_id: null },
      entry: { store: 'external', store_transaction_id: null },
      entitlementExpires: '2026-07-01T12:00:00Z',
    },
    {
      case: 'not verified yet: listed nowhere',
      subscription: { status: 'pending_verification' },
      entry: {},
      entitlementExpires: undefined,
    },
  ];

  it.each(cases)('$case', ({ subscription, entry, entitlementExpires }) => {
    const info = infoOf([sub(subscription)]);
    expect(customerInfoProblems(info)).toEqual([]);
    if (entitlementExpires === undefined) {
      expect(info.subscriber.subscriptions).toEqual({});
      expect(info.subscriber.entitlements).toEqual({});
      return;
    }
    expect(info.subscriber.subscriptions.premium_monthly).toMatchObject(entry);
    expect(info.subscriber.entitlements.pro).toMatchObject({
      product_identifier: 'premium_monthly',
      purchase_date: '2026-06-01T12:00:00Z',
      expires_date: entitlementExpires,
    });
    // Only what the user has or had: nothing unlocked `sync`.
    expect(info.subscriber.entitlements.sync).toBeUndefined();
  });

  it('one entry per product, the newest purchase of it; the entitlement decided by the purchase giving access', () => {
    const renewed = sub({ started_at: '2026-06-10T00:00:00.000Z', expires_at: '2026-07-10T00:00:00.000Z' });
    const older = sub({
      status: 'expired',
      expires_at: '2026-06-01T00:00:00.000Z',
      started_at: '2026-05-01T00:00:00.000Z',
    });
    const info = infoOf([renewed, older]);
    expect(Object.keys(info.subscriber.subscriptions)).toEqual(['premium_monthly']);
    expect(info.subscriber.subscriptions.premium_monthly!.purchase_date).toBe('2026-06-10T00:00:00Z');
    expect(info.subscriber.entitlements.pro!.expires_date).toBe('2026-07-10T00:00:00Z');
  });

  it("a grant is RevenueCat's promotional entitlement, its product an entry of subscriptions (Android keeps it only then)", () => {
    const running: EntitledGrant = {
      entitlement_id: 'sync',
      granted_at: '2026-06-01T00:00:00.000Z',
      expires_at: '2026-08-01T00:00:00.000Z',
      ended_at: null,
    };
    const revoked: EntitledGrant = {
      entitlement_id: 'pro',
      granted_at: '2026-06-01T00:00:00.000Z',
      expires_at: '2026-08-01T00:00:00.000Z',
      ended_at: '2026-06-20T00:00:00.000Z',
    };
    const info = infoOf([], [running, revoked]);
    expect(customerInfoProblems(info)).toEqual([]);
    expect(info.subscriber.entitlements).toEqual({
      sync: {
        product_identifier: 'rc_promo_sync',
        purchase_date: '2026-06-01T00:00:00Z',
        expires_date: '2026-08-01T00:00:00Z',
        grace_period_expires_date: null,
      },
      pro: {
        product_identifier: 'rc_promo_pro',
        purchase_date: '2026-06-01T00:00:00Z',
        expires_date: '2026-06-20T00:00:00Z',
        grace_period_expires_date: null,
      },
    });
    expect(info.subscriber.subscriptions.rc_promo_sync).toMatchObject({ store: 'promotional', is_sandbox: false });
  });

  it('the entitlement comes from the purchase that decides it, not another product or an older one listed first', () => {
    const older = sub({
      status: 'expired',
      expires_at: '2026-06-01T00:00:00.000Z',
      started_at: '2026-05-01T00:00:00.000Z',
    });
    const pending = sub({ status: 'pending_verification', started_at: '2026-06-05T00:00:00.000Z' });
    const renewed = sub({ started_at: '2026-06-10T00:00:00.000Z' });
    const addon = sub({ product_id: 'sync_addon', started_at: '2026-06-02T00:00:00.000Z' });
    const info = infoOf([addon, older, pending, renewed]);
    expect(info.subscriber.entitlements.pro).toMatchObject({
      product_identifier: 'premium_monthly',
      purchase_date: '2026-06-10T00:00:00Z',
      expires_date: '2026-07-01T12:00:00Z',
    });
  });

  it('a grant given again after one ended is the running one', () => {
    const ended: EntitledGrant = {
      entitlement_id: 'sync',
      granted_at: '2026-05-01T00:00:00.000Z',
      expires_at: '2026-05-15T00:00:00.000Z',
      ended_at: null,
    };
    const running: EntitledGrant = {
      ...ended,
      granted_at: '2026-06-01T00:00:00.000Z',
      expires_at: '2026-08-01T00:00:00.000Z',
    };
    const info = infoOf([], [ended, running]);
    expect(info.subscriber.entitlements.sync).toMatchObject({
      purchase_date: '2026-06-01T00:00:00Z',
      expires_date: '2026-08-01T00:00:00Z',
    });
  });

  it('a paid purchase carries its price; a free one none', () => {
    expect(infoOf([sub()]).subscriber.subscriptions.premium_monthly!.price).toEqual({ amount: 9.99, currency: 'USD' });
    expect(infoOf([sub({ price: 0 })]).subscriber.subscriptions.premium_monthly).not.toHaveProperty('price');
  });

  it('refunded without a cancellation: ended when refunded, not at its last change', () => {
    const info = infoOf([
      sub({ status: 'cancelled', refunded_at: '2026-06-15T00:00:00.000Z', updated_at: '2026-06-16T00:00:00.000Z' }),
    ]);
    expect(info.subscriber.subscriptions.premium_monthly!.expires_date).toBe('2026-06-15T00:00:00Z');
  });

  it('a user first seen now (no profile yet): first_seen is the request time', () => {
    const info = revenuecatCustomerInfoOf(
      { userId: 'new', firstSeen: null, lastSeen: null, subscriptions: [], grants: [], definitions: [] },
      NOW,
    );
    expect(info.subscriber.first_seen).toBe('2026-06-30T12:00:00Z');
  });
});
