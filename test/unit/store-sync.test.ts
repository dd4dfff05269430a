/**
 * The store's truth, pure: the lifecycle's `sync` column, grace periods and the store margin of the
 * clock, which subscription a store state is about, and the events and record fields it changes.
 */

import { describe, expect, it } from 'vitest';
import { config } from '../../lib/core/config.js';
import { storeMarginMs } from '../../lib/data/subscription-items.js';
import type { StorePurchaseState } from '../../lib/domain/store-purchase.js';
import type { StoredStorePurchase, SyncedSubscription } from '../../lib/domain/store-sync.js';
import {
  countsAsRevenue,
  datedAfterHeld,
  decideStoreState,
  endedByStore,
  environmentOf,
  grantsAccess,
  storeEventsOf,
  storeFacts,
  storeRecordPatch,
  verifiedPurchaseStart,
} from '../../lib/domain/store-sync.js';
import {
  accessEndsAt,
  applyCommand,
  INITIAL_LIFECYCLE,
  nextTimeTransitionAt,
  type StoreFacts,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../../lib/domain/subscription-state.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();

function state(status: SubscriptionStatus, overrides: Partial<SubscriptionState> = {}): SubscriptionState {
  return { ...INITIAL_LIFECYCLE, status, expires_at: at(24 * HOUR), auto_renew: true, ...overrides };
}

const facts = (overrides: Partial<StoreFacts> = {}): StoreFacts => ({
  expires_at: at(24 * HOUR),
  auto_renew: true,
  billing_issue: false,
  grace_period_expires_at: null,
  revoked: false,
  refund_reversed: false,
  ...overrides,
});

const sync = (from: SubscriptionState, storeSays: StoreFacts) =>
  applyCommand(from, { type: 'sync', facts: storeSays }, NOW);

/**
 * The sync column: what the store's word does to each status. A row: the subscription, what the
 * store says, then the status after, whether it was a renewal, a refund, and fields to check.
 */
const SYNC: [
  string,
  SubscriptionState,
  StoreFacts,
  SubscriptionStatus,
  { renewal: boolean; refund: boolean; refundReversed: boolean },
  Partial<SubscriptionState>,
][] = [
  [
    'active, the store charged a later period: renewal',
    state('active'),
    facts({ expires_at: at(31 * 24 * HOUR) }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { expires_at: at(31 * 24 * HOUR), auto_renew: true, billing_issue_at: null },
  ],
  [
    'active, the same period again: nothing',
    state('active'),
    facts(),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(24 * HOUR) },
  ],
  [
    'active, the store says the period ended already (the renewal failed, no grace): it ends',
    state('active'),
    facts({ expires_at: at(-24 * HOUR) }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(-24 * HOUR), auto_renew: false },
  ],
  [
    'active, renewal turned off in the store',
    state('active'),
    facts({ auto_renew: false }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { auto_renew: false },
  ],
  [
    'active, renewal turned back on withdraws a cancellation scheduled for the period end',
    state('active', { auto_renew: false, cancel_at_period_end: true, cancelled_at: at(-HOUR) }),
    facts({ auto_renew: true }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { auto_renew: true, cancel_at_period_end: false, cancelled_at: null },
  ],
  [
    'active, period over, billing issue in a grace period: still active',
    state('active', { expires_at: at(-HOUR) }),
    facts({ expires_at: at(-HOUR), billing_issue: true, grace_period_expires_at: at(6 * 24 * HOUR) }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { billing_issue_at: NOW.toISOString(), grace_period_expires_at: at(6 * 24 * HOUR) },
  ],
  [
    'active, period over, billing issue without grace: access ends',
    state('active', { expires_at: at(-HOUR) }),
    facts({ expires_at: at(-HOUR), billing_issue: true }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { billing_issue_at: NOW.toISOString(), auto_renew: false },
  ],
  [
    'active in grace, the store recovered the payment: renewal, billing issue cleared',
    state('active', {
      expires_at: at(-HOUR),
      billing_issue_at: at(-2 * HOUR),
      grace_period_expires_at: at(24 * HOUR),
    }),
    facts({ expires_at: at(30 * 24 * HOUR) }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { billing_issue_at: null, grace_period_expires_at: null, expires_at: at(30 * 24 * HOUR) },
  ],
  [
    'active, refunded by the store: cancelled now, refund',
    state('active'),
    facts({ revoked: true }),
    'cancelled',
    { renewal: false, refund: true, refundReversed: false },
    { expires_at: NOW.toISOString(), refunded_at: NOW.toISOString(), cancellation_reason: 'refunded_by_store' },
  ],
  [
    'pending_verification, the store confirms: active on its dates, no renewal',
    state('pending_verification', { expires_at: at(30 * 24 * HOUR) }),
    facts({ expires_at: at(7 * 24 * HOUR), auto_renew: false }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(7 * 24 * HOUR), auto_renew: false },
  ],
  [
    'pending_verification, refunded: cancelled, nothing to refund',
    state('pending_verification'),
    facts({ revoked: true }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    { refunded_at: null },
  ],
  [
    'paused by the app: the store renewing changes nothing',
    state('paused', { paused_at: at(-HOUR), paused_until: at(HOUR) }),
    facts({ expires_at: at(60 * 24 * HOUR) }),
    'paused',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(24 * HOUR) },
  ],
  [
    'paused, refunded: cancelled with a refund',
    state('paused', { paused_at: at(-HOUR), paused_until: at(HOUR) }),
    facts({ revoked: true }),
    'cancelled',
    { renewal: false, refund: true, refundReversed: false },
    { paused_until: null, refunded_at: NOW.toISOString() },
  ],
  [
    'cancelled, refunded later: the refund is recorded once',
    state('cancelled', { expires_at: at(-HOUR) }),
    facts({ revoked: true }),
    'cancelled',
    { renewal: false, refund: true, refundReversed: false },
    { refunded_at: NOW.toISOString() },
  ],
  [
    'cancelled, refunded again: nothing more',
    state('cancelled', { refunded_at: at(-HOUR) }),
    facts({ revoked: true }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    { refunded_at: at(-HOUR) },
  ],
  [
    'cancelled, the store renews: stays cancelled',
    state('cancelled'),
    facts({ expires_at: at(60 * 24 * HOUR) }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    {},
  ],
  [
    'expired after a billing issue, the store recovered: the same subscription is active again',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false, billing_issue_at: at(-50 * HOUR) }),
    facts({ expires_at: at(29 * 24 * HOUR) }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { billing_issue_at: null, auto_renew: true, expires_at: at(29 * 24 * HOUR) },
  ],
  [
    'expired after a billing issue, the store still fails: stays expired',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false, billing_issue_at: at(-50 * HOUR) }),
    facts({ expires_at: at(-48 * HOUR), billing_issue: true }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { billing_issue_at: at(-50 * HOUR) },
  ],
  [
    'active, a plan change at once to a period that ends sooner (yearly to monthly): a renewal all the same',
    state('active', { expires_at: at(300 * 24 * HOUR) }),
    facts({ expires_at: at(30 * 24 * HOUR), new_period: true }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { expires_at: at(30 * 24 * HOUR), auto_renew: true },
  ],
  [
    'active, a period that ends sooner without a new charge: no renewal',
    state('active', { expires_at: at(300 * 24 * HOUR) }),
    facts({ expires_at: at(30 * 24 * HOUR) }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(30 * 24 * HOUR) },
  ],
  [
    'active, a refund of an earlier period: that money only, the current period stands',
    state('active'),
    facts({ revoked: true, earlier_period: true, expires_at: at(-24 * HOUR), auto_renew: false }),
    'active',
    { renewal: false, refund: true, refundReversed: false },
    { expires_at: at(24 * HOUR), auto_renew: true, refunded_at: null, cancellation_reason: null },
  ],
  [
    'expired, the reversal of an earlier period’s refund: that money back only',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false }),
    facts({ refund_reversed: true, earlier_period: true, expires_at: at(-72 * HOUR) }),
    'expired',
    { renewal: false, refund: false, refundReversed: true },
    { expires_at: at(-48 * HOUR), refunded_at: null },
  ],
  [
    'cancelled, an earlier period both refunded and reversed: the refund counts',
    state('cancelled', { expires_at: at(-48 * HOUR), auto_renew: false }),
    facts({ revoked: true, refund_reversed: true, earlier_period: true }),
    'cancelled',
    { renewal: false, refund: true, refundReversed: false },
    {},
  ],
  [
    'expired voluntarily, a new period: not a recovery (a resubscription is a new subscription)',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false }),
    facts({ expires_at: at(30 * 24 * HOUR) }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(-48 * HOUR) },
  ],
  [
    'expired, refunded afterwards: the money is taken back',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false }),
    facts({ revoked: true }),
    'expired',
    { renewal: false, refund: true, refundReversed: false },
    { refunded_at: NOW.toISOString() },
  ],
  [
    "cancelled by the store's refund, the refund reversed: active again to the store's period end, not a renewal",
    state('cancelled', {
      expires_at: at(-HOUR),
      auto_renew: false,
      cancelled_at: at(-HOUR),
      refunded_at: at(-HOUR),
      cancellation_reason: 'refunded_by_store',
    }),
    facts({ expires_at: at(20 * 24 * HOUR), refund_reversed: true }),
    'active',
    { renewal: false, refund: false, refundReversed: true },
    {
      expires_at: at(20 * 24 * HOUR),
      auto_renew: true,
      cancelled_at: null,
      refunded_at: null,
      cancellation_reason: null,
    },
  ],
  [
    "cancelled by the store's refund, reversed after the period ended: expired, the money back",
    state('cancelled', {
      expires_at: at(-48 * HOUR),
      auto_renew: false,
      cancelled_at: at(-48 * HOUR),
      refunded_at: at(-48 * HOUR),
      cancellation_reason: 'refunded_by_store',
    }),
    facts({ expires_at: at(-HOUR), auto_renew: false, refund_reversed: true }),
    'expired',
    { renewal: false, refund: false, refundReversed: true },
    { expires_at: at(-HOUR), auto_renew: false, refunded_at: null, cancelled_at: null, cancellation_reason: null },
  ],
  [
    'cancelled by the operator, refunded by the store later, the refund reversed: stays cancelled, money back',
    state('cancelled', {
      expires_at: at(-48 * HOUR),
      auto_renew: false,
      cancelled_at: at(-48 * HOUR),
      refunded_at: at(-HOUR),
      cancellation_reason: 'refunded_by_store',
    }),
    facts({ expires_at: at(20 * 24 * HOUR), refund_reversed: true }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: true },
    { expires_at: at(-48 * HOUR), cancelled_at: at(-48 * HOUR), refunded_at: null },
  ],
  [
    'cancelled with a refund by the operator, a later store state that reverses nothing: stays cancelled',
    state('cancelled', { expires_at: at(-HOUR), cancelled_at: at(-HOUR), refunded_at: at(-HOUR) }),
    facts({ expires_at: at(20 * 24 * HOUR) }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    { refunded_at: at(-HOUR), expires_at: at(-HOUR) },
  ],
  [
    "cancelled by the store's refund, a reversal that is revoked again: nothing",
    state('cancelled', { expires_at: at(-HOUR), cancelled_at: at(-HOUR), refunded_at: at(-HOUR) }),
    facts({ revoked: true, refund_reversed: true }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    { refunded_at: at(-HOUR) },
  ],
  [
    'cancelled without a refund, a reversal: nothing to reverse',
    state('cancelled', { expires_at: at(-HOUR), cancelled_at: at(-HOUR) }),
    facts({ expires_at: at(20 * 24 * HOUR), refund_reversed: true }),
    'cancelled',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(-HOUR) },
  ],
  [
    'expired, refunded afterwards, the refund reversed: stays expired, the money back',
    state('expired', {
      expires_at: at(-48 * HOUR),
      auto_renew: false,
      refunded_at: at(-HOUR),
      cancellation_reason: 'refunded_by_store',
    }),
    facts({ expires_at: at(-48 * HOUR), auto_renew: false, refund_reversed: true }),
    'expired',
    { renewal: false, refund: false, refundReversed: true },
    { refunded_at: null, cancellation_reason: null, expires_at: at(-48 * HOUR) },
  ],
  [
    'active (never refunded), a reversal: nothing to reverse',
    state('active'),
    facts({ refund_reversed: true }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { refunded_at: null },
  ],
  [
    'active, a later period from a receipt (renewal not stated): the renewal turns renewal back on',
    state('active', { auto_renew: false }),
    facts({ expires_at: at(31 * 24 * HOUR), auto_renew: null }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { expires_at: at(31 * 24 * HOUR), auto_renew: true },
  ],
  [
    'active, a later period from a receipt, renewal already on: it stays on',
    state('active'),
    facts({ expires_at: at(31 * 24 * HOUR), auto_renew: null }),
    'active',
    { renewal: true, refund: false, refundReversed: false },
    { expires_at: at(31 * 24 * HOUR), auto_renew: true },
  ],
  [
    'active, the same period from a receipt (renewal not stated): renewal stays as it was',
    state('active', { auto_renew: false }),
    facts({ auto_renew: null }),
    'active',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(24 * HOUR), auto_renew: false },
  ],
  [
    "active, the store's period ends this very moment (no grace): it ends",
    state('active'),
    facts({ expires_at: NOW.toISOString() }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: NOW.toISOString(), auto_renew: false },
  ],
  [
    'active, period over, a grace period that ends this very moment: access ends',
    state('active', { expires_at: at(-HOUR) }),
    facts({ expires_at: at(-HOUR), billing_issue: true, grace_period_expires_at: NOW.toISOString() }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { grace_period_expires_at: NOW.toISOString(), auto_renew: false },
  ],
  [
    'active with a cancellation scheduled for the period end, the store says the period ended: expired, nothing left scheduled',
    state('active', {
      expires_at: at(-HOUR),
      auto_renew: false,
      cancel_at_period_end: true,
      cancelled_at: at(-48 * HOUR),
    }),
    facts({ expires_at: at(-HOUR), auto_renew: false }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { auto_renew: false, cancel_at_period_end: false, cancelled_at: at(-48 * HOUR) },
  ],
  [
    'expired after a billing issue, the store retries no more and charged no new period (EXPIRED BILLING_RETRY): stays expired, the issue over',
    state('expired', {
      expires_at: at(-48 * HOUR),
      auto_renew: false,
      billing_issue_at: at(-50 * HOUR),
      grace_period_expires_at: at(-49 * HOUR),
    }),
    facts({ expires_at: at(-48 * HOUR), auto_renew: false }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(-48 * HOUR), billing_issue_at: null, grace_period_expires_at: null },
  ],
  [
    'expired after a billing issue, the store charged a later period that has ended too: stays expired, the issue over',
    state('expired', { expires_at: at(-48 * HOUR), auto_renew: false, billing_issue_at: at(-50 * HOUR) }),
    facts({ expires_at: at(-24 * HOUR), auto_renew: false }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(-48 * HOUR), billing_issue_at: null },
  ],
  [
    'expired in billing retry with its recorded period still running, the store repeats that period without a billing issue: no charge, stays expired, the issue over',
    state('expired', { expires_at: at(24 * HOUR), auto_renew: false, billing_issue_at: at(-2 * HOUR) }),
    facts({ expires_at: at(24 * HOUR) }),
    'expired',
    { renewal: false, refund: false, refundReversed: false },
    { expires_at: at(24 * HOUR), auto_renew: false, billing_issue_at: null },
  ],
  [
    'expired, a cancellation and a refund recorded at the same moment, the refund reversed: stays expired (the refund cancelled nothing)',
    state('expired', {
      expires_at: at(-48 * HOUR),
      auto_renew: false,
      cancelled_at: at(-HOUR),
      refunded_at: at(-HOUR),
      cancellation_reason: 'refunded_by_store',
    }),
    facts({ expires_at: at(20 * 24 * HOUR), refund_reversed: true }),
    'expired',
    { renewal: false, refund: false, refundReversed: true },
    { expires_at: at(-48 * HOUR), cancelled_at: at(-HOUR), refunded_at: null, cancellation_reason: null },
  ],
];

describe('lifecycle: what the store says (sync), per status', () => {
  for (const [name, from, storeSays, status, money, fields] of SYNC) {
    it(name, () => {
      const result = sync(from, storeSays);
      expect(result.next.status).toBe(status);
      expect({ renewal: result.renewal, refund: result.refund, refundReversed: result.refundReversed }).toEqual(money);
      expect(result.next).toMatchObject(fields);
      expect(result.statusChange).toEqual(status === from.status ? null : { from: from.status, to: status });
    });
  }
});

describe('the clock: grace periods and the store margin', () => {
  it("the margin is the App Store and Google Play subscriptions' (the test store renews only when minted)", () => {
    const margin = config.storeExpiryMarginSeconds * 1000;
    expect(margin).toBeGreaterThan(0);
    expect(
      ['app_store', 'google_play', 'test_store', null].map((store) => storeMarginMs({ store: store as 'app_store' })),
    ).toEqual([margin, margin, 0, 0]);
  });

  const passes = (from: SubscriptionState, now: Date, storeMarginMs?: number) =>
    applyCommand(from, { type: 'time_passes', storeMarginMs }, now).next.status;

  it('a subscription in a grace period expires when the grace period ends, not at expires_at', () => {
    const inGrace = state('active', { expires_at: at(-HOUR), grace_period_expires_at: at(HOUR) });
    expect(passes(inGrace, NOW)).toBe('active');
    expect(passes(inGrace, new Date(NOW.getTime() + HOUR))).toBe('expired');
    expect(nextTimeTransitionAt(inGrace)).toBe(at(HOUR));
  });

  it('access ends with the grace period only when it ends later than the period', () => {
    const earlyGrace = state('active', { expires_at: at(HOUR), grace_period_expires_at: at(-HOUR) });
    expect(passes(earlyGrace, NOW)).toBe('active');
    expect(nextTimeTransitionAt(earlyGrace)).toBe(at(HOUR));
    expect(accessEndsAt(earlyGrace)).toBe(at(HOUR));
    expect(accessEndsAt(state('active', { expires_at: at(HOUR), grace_period_expires_at: null }))).toBe(at(HOUR));
    expect(accessEndsAt(state('active', { expires_at: at(HOUR), grace_period_expires_at: at(2 * HOUR) }))).toBe(
      at(2 * HOUR),
    );
    // A grace period ending with the period is not later: the period's end, as recorded, is when access ends.
    expect(
      accessEndsAt(
        state('active', { expires_at: '2026-03-10T13:00:00.000Z', grace_period_expires_at: '2026-03-10T13:00:00Z' }),
      ),
    ).toBe('2026-03-10T13:00:00.000Z');
  });

  it('a store subscription that renews by itself waits the margin; one not renewing does not', () => {
    const renewing = state('active', { expires_at: at(-HOUR) });
    expect(passes(renewing, NOW, 2 * HOUR)).toBe('active');
    expect(passes(renewing, new Date(NOW.getTime() + HOUR), 2 * HOUR)).toBe('expired');
    expect(nextTimeTransitionAt(renewing, 2 * HOUR)).toBe(at(HOUR));
    const notRenewing = state('active', { expires_at: at(-HOUR), auto_renew: false });
    expect(passes(notRenewing, NOW, 2 * HOUR)).toBe('expired');
    expect(nextTimeTransitionAt(notRenewing, 2 * HOUR)).toBe(at(-HOUR));
  });
});

const storeState = (overrides: Partial<StorePurchaseState> = {}): StorePurchaseState => ({
  store: 'app_store',
  platform: 'ios',
  environment: 'Production',
  transaction_id: 't2',
  original_transaction_id: 'o1',
  product_id: 'premium_monthly',
  purchase_date: at(-HOUR),
  expires_at: at(30 * 24 * HOUR),
  trial: false,
  price: 4.99,
  currency: 'EUR',
  revoked: false,
  app_account_token: null,
  renewal: { auto_renew: true, renewal_product_id: null, billing_issue: false, grace_period_expires_at: null },
  as_of: NOW.toISOString(),
  ...overrides,
});

describe('store facts, access and environments', () => {
  it('facts: renewal as the store says it; no renewal info leaves auto_renew to the subscription', () => {
    expect(storeFacts(storeState())).toEqual({
      expires_at: at(30 * 24 * HOUR),
      auto_renew: true,
      billing_issue: false,
      grace_period_expires_at: null,
      revoked: false,
      refund_reversed: false,
    });
    expect(storeFacts(storeState({ refund_reversed: true }))).toMatchObject({ refund_reversed: true });
    expect(storeFacts(storeState({ renewal: null }))).toMatchObject({
      auto_renew: null,
      billing_issue: false,
    });
    const grace = {
      auto_renew: true,
      renewal_product_id: null,
      billing_issue: true,
      grace_period_expires_at: at(HOUR),
    };
    expect(storeFacts(storeState({ renewal: grace }))).toMatchObject({
      billing_issue: true,
      grace_period_expires_at: at(HOUR),
    });
  });

  it('access: a running period or grace period, never a refunded purchase', () => {
    expect(grantsAccess(storeState(), NOW)).toBe(true);
    expect(grantsAccess(storeState({ expires_at: at(-HOUR) }), NOW)).toBe(false);
    expect(grantsAccess(storeState({ revoked: true }), NOW)).toBe(false);
    // A period that ends this very moment grants nothing more.
    expect(grantsAccess(storeState({ expires_at: NOW.toISOString() }), NOW)).toBe(false);
    const grace = {
      auto_renew: true,
      renewal_product_id: null,
      billing_issue: true,
      grace_period_expires_at: at(HOUR),
    };
    expect(grantsAccess(storeState({ expires_at: at(-HOUR), renewal: grace }), NOW)).toBe(true);
  });

  it('a purchase the store ended without telling its state: renewal off, no billing issue, refunded as said', () => {
    for (const revoked of [false, true]) {
      expect(endedByStore(at(-HOUR), revoked)).toEqual({
        expires_at: at(-HOUR),
        auto_renew: false,
        billing_issue: false,
        grace_period_expires_at: null,
        revoked,
        refund_reversed: false,
      });
    }
  });

  it('environments: sandbox money is not revenue; the test store and production are', () => {
    expect(['Production', 'Sandbox', 'Test'].map((e) => environmentOf(e as 'Production'))).toEqual([
      'production',
      'sandbox',
      'test',
    ]);
    expect([countsAsRevenue('production'), countsAsRevenue('sandbox'), countsAsRevenue('test')]).toEqual([
      true,
      false,
      true,
    ]);
  });
});

type Sub = SyncedSubscription;
const subscription = (overrides: Partial<Sub> = {}): Sub => ({
  id: 'sub_1',
  user_id: 'u1',
  status: 'active',
  expires_at: at(HOUR),
  billing_issue_at: null,
  ...overrides,
});
const product = { id: 'premium_monthly', price: 9.99, currency: 'USD', billing_period: 'monthly' } as const;
const stored = (overrides: Partial<StoredStorePurchase<Sub>> = {}): StoredStorePurchase<Sub> => ({
  product,
  owned: { user_id: 'u1', subscription_id: 'sub_1' },
  binding: undefined,
  storeState: undefined,
  ...overrides,
});

/** How long a notification's record is kept (30 days in lib/data/store-notifications.ts). */
const KEPT = 30 * 24 * HOUR;

describe('a refund is never stale while its record is kept (datedAfterHeld)', () => {
  const held = storeState({ as_of: at(HOUR) });
  const rows: [string, StorePurchaseState, StorePurchaseState | undefined, string][] = [
    ['no refund: as stated', storeState({ as_of: at(-HOUR) }), held, at(-HOUR)],
    ['a refund, nothing held: as stated', storeState({ revoked: true }), undefined, NOW.toISOString()],
    [
      'a refund, the held state refunded already: as stated',
      storeState({ revoked: true }),
      { ...held, revoked: true },
      NOW.toISOString(),
    ],
    ['a refund stated before the held state: just after it', storeState({ revoked: true }), held, at(HOUR + 1)],
    [
      'a refund stated with the held state: just after it',
      storeState({ revoked: true, as_of: at(HOUR) }),
      held,
      at(HOUR + 1),
    ],
    [
      'a refund stated after the held state: as stated',
      storeState({ revoked: true, as_of: at(2 * HOUR) }),
      held,
      at(2 * HOUR),
    ],
    // Its record no longer answers a redelivery (or a replay): ordered by its date, so stale.
    [
      'a refund stated as long ago as records are kept: as stated',
      storeState({ revoked: true, as_of: at(-KEPT) }),
      held,
      at(-KEPT),
    ],
    [
      'a refund stated just less long ago: just after the held state',
      storeState({ revoked: true, as_of: at(1 - KEPT) }),
      held,
      at(HOUR + 1),
    ],
  ];
  for (const [name, state, heldState, asOf] of rows) {
    it(name, () => {
      const dated = datedAfterHeld(state, heldState, { now: NOW, recordKeptMs: KEPT });
      expect(dated).toEqual({ ...state, as_of: asOf });
    });
  }
});

describe('what verifying a purchase nobody owned starts from (verifiedPurchaseStart)', () => {
  // The verified transaction: the renewal (t2), bought an hour ago; the first period was t1's.
  const verified = storeState();
  const transaction = (({ renewal: _r, as_of: _a, ...rest }) => rest)(verified);
  const FIRST_PERIOD = { transaction_id: 't1', purchase_date: at(-31 * 24 * HOUR), expires_at: at(-HOUR), price: 9.99 };
  const renewalInfo = {
    auto_renew: false,
    renewal_product_id: null,
    billing_issue: false,
    grace_period_expires_at: null,
  };
  // Written out: the facts of the refund kept, an earlier period's.
  const earlierRefunded = facts({ expires_at: at(-HOUR), revoked: true, earlier_period: true });
  const rows: [string, StorePurchaseState | undefined, ReturnType<typeof verifiedPurchaseStart>][] = [
    ['nothing kept: the transaction', undefined, { kind: 'start', from: undefined }],
    [
      'a state stated before the transaction was bought: the transaction',
      storeState({ as_of: at(-2 * HOUR), renewal: renewalInfo }),
      { kind: 'start', from: undefined },
    ],
    [
      'a state stated when the transaction was bought: the transaction',
      storeState({ as_of: at(-HOUR), revoked: true }),
      { kind: 'start', from: undefined },
    ],
    [
      'a later state of this transaction: that state',
      storeState({ renewal: renewalInfo }),
      { kind: 'start', from: storeState({ renewal: renewalInfo }) },
    ],
    ["a refund of this transaction (Apple's): refunded", storeState({ revoked: true }), { kind: 'refunded' }],
    [
      'a refund of a transaction bought after this one: refunded',
      storeState({ revoked: true, transaction_id: 't3', purchase_date: NOW.toISOString() }),
      { kind: 'refunded' },
    ],
    [
      'a refund of another transaction bought at the same time: refunded',
      storeState({ revoked: true, transaction_id: 't3' }),
      { kind: 'refunded' },
    ],
    [
      "a refund of an earlier period (Apple's earlier transaction): the transaction with the store's renewal info, that period's money back at its price",
      storeState({ ...FIRST_PERIOD, revoked: true, renewal: renewalInfo }),
      {
        kind: 'start',
        from: { ...verified, renewal: renewalInfo, refunded_transaction_id: undefined, refund_reversed: undefined },
        earlierRefund: { facts: { ...earlierRefunded, auto_renew: false }, price: 9.99 },
      },
    ],
    [
      'a refund of an earlier free trial: its money back at the subscription price (no price of its own)',
      storeState({ ...FIRST_PERIOD, trial: true, revoked: true }),
      {
        kind: 'start',
        from: { ...verified, refunded_transaction_id: undefined, refund_reversed: undefined },
        earlierRefund: { facts: earlierRefunded, price: null },
      },
    ],
    [
      "an earlier period's refund reversed: the transaction, no money moves",
      storeState({ ...FIRST_PERIOD, refund_reversed: true, renewal: renewalInfo }),
      {
        kind: 'start',
        from: { ...verified, renewal: renewalInfo, refunded_transaction_id: undefined, refund_reversed: undefined },
        earlierRefund: undefined,
      },
    ],
    [
      "a voided order of this transaction (Google's): refunded",
      storeState({ store: 'google_play', revoked: true, refunded_transaction_id: 't2' }),
      { kind: 'refunded' },
    ],
    [
      "a voided earlier order (Google's): the kept state unrefunded, that order's money back at the subscription's price",
      storeState({ store: 'google_play', revoked: true, refunded_transaction_id: 't1', renewal: renewalInfo }),
      {
        kind: 'start',
        from: storeState({ store: 'google_play', renewal: renewalInfo, refunded_transaction_id: undefined }),
        earlierRefund: {
          facts: facts({ expires_at: at(30 * 24 * HOUR), auto_renew: false, revoked: true, earlier_period: true }),
          price: null,
        },
      },
    ],
  ];
  for (const [name, kept, start] of rows) {
    it(name, () => expect(verifiedPurchaseStart(transaction, kept)).toEqual(start));
  }
});

describe('which subscription a store state is about (decideStoreState)', () => {
  const decide = (s: StorePurchaseState, st: StoredStorePurchase<Sub>) => decideStoreState('app_1', s, st, NOW);

  const rows: [string, StorePurchaseState, StoredStorePurchase<Sub>, ReturnType<typeof decide>][] = [
    [
      'the purchase holds a later state: stale',
      storeState(),
      stored({ storeState: storeState({ as_of: at(HOUR) }) }),
      { kind: 'stale' },
    ],
    [
      'the purchase holds the same state (a redelivery under another id): stale',
      storeState(),
      stored({ storeState: storeState() }),
      { kind: 'stale' },
    ],
    [
      'the purchase holds an earlier state: this one is decided (here: read its subscription)',
      storeState(),
      stored({ storeState: storeState({ as_of: at(-HOUR) }) }),
      { kind: 'read_subscription', subscriptionId: 'sub_1' },
    ],
    [
      "a purchase nobody owns replacing one a user owns (Google's new token): that user's new subscription",
      storeState({ original_transaction_id: 'o2', linked_original_transaction_id: 'o1' }),
      stored({ owned: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      {
        kind: 'insert',
        userId: 'u1',
        productId: 'premium_monthly',
        price: 4.99,
        currency: 'EUR',
        billingPeriod: 'monthly',
        replaces: 'sub_1',
      },
    ],
    [
      'a replacing purchase that grants no access (it ended already): kept on it',
      storeState({ original_transaction_id: 'o2', expires_at: at(-HOUR) }),
      stored({ owned: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      { kind: 'keep', reason: 'the purchase grants no access' },
    ],
    [
      'a replacing purchase of a product not in the catalogue: kept on it, naming the product',
      storeState({ original_transaction_id: 'o2' }),
      stored({ owned: undefined, product: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      { kind: 'keep', reason: "product premium_monthly is not in this app's catalogue" },
    ],
    [
      "a replacing purchase in a free trial: the catalogue's price, not the trial's",
      storeState({ original_transaction_id: 'o2', trial: true, price: 0 }),
      stored({ owned: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      {
        kind: 'insert',
        userId: 'u1',
        productId: 'premium_monthly',
        price: 9.99,
        currency: 'USD',
        billingPeriod: 'monthly',
        replaces: 'sub_1',
      },
    ],
    [
      "a replacing purchase without a price: the catalogue's",
      storeState({ original_transaction_id: 'o2', price: null }),
      stored({ owned: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      {
        kind: 'insert',
        userId: 'u1',
        productId: 'premium_monthly',
        price: 9.99,
        currency: 'USD',
        billingPeriod: 'monthly',
        replaces: 'sub_1',
      },
    ],
    [
      "a replacing purchase without a currency: the catalogue's price and currency",
      storeState({ original_transaction_id: 'o2', currency: null }),
      stored({ owned: undefined, linkedOwned: { user_id: 'u1', subscription_id: 'sub_1' } }),
      {
        kind: 'insert',
        userId: 'u1',
        productId: 'premium_monthly',
        price: 9.99,
        currency: 'USD',
        billingPeriod: 'monthly',
        replaces: 'sub_1',
      },
    ],
    [
      'nobody owns the purchase: kept on it',
      storeState(),
      stored({ owned: undefined }),
      { kind: 'keep', reason: 'nobody has verified this purchase yet' },
    ],
    [
      'the owner subscription is not read yet',
      storeState(),
      stored(),
      { kind: 'read_subscription', subscriptionId: 'sub_1' },
    ],
    [
      'a later transaction of the running subscription: sync it',
      storeState(),
      stored({ subscription: subscription() }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'the transaction the subscription was paid by (renewal turned off): sync it',
      storeState({ renewal: null }),
      stored({
        binding: { user_id: 'u1', subscription_id: 'sub_1' },
        subscription: subscription(),
      }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'refunded: the subscription it is about, decided as if not refunded',
      storeState({ revoked: true }),
      stored({ subscription: subscription() }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'a refund of an earlier period than the subscription runs to: that period’s money only',
      storeState({ revoked: true, transaction_id: 't1', expires_at: at(-24 * HOUR) }),
      stored({ subscription: subscription() }),
      { kind: 'refund_earlier', subscription: subscription() },
    ],
    [
      'a refund of an earlier transaction than the one the purchase holds: that period’s money only',
      storeState({ revoked: true, transaction_id: 't1', expires_at: at(2 * HOUR) }),
      stored({
        storeState: storeState({ transaction_id: 't3', as_of: at(-HOUR) }),
        subscription: subscription(),
      }),
      { kind: 'refund_earlier', subscription: subscription() },
    ],
    [
      'a refund of the transaction the purchase holds, the subscription cut short before: the current period’s',
      storeState({ revoked: true }),
      stored({
        storeState: storeState({ as_of: at(-HOUR) }),
        subscription: subscription({ expires_at: at(-2 * HOUR) }),
      }),
      { kind: 'sync', subscription: subscription({ expires_at: at(-2 * HOUR) }) },
    ],
    [
      'a refund of the period the subscription runs to (it ends when the subscription does): the current period’s',
      storeState({ revoked: true, expires_at: at(HOUR) }),
      stored({ subscription: subscription() }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'a refund of the transaction the purchase holds, held with a later end (extended since): the current period’s',
      storeState({ revoked: true, expires_at: at(HOUR) }),
      stored({
        storeState: storeState({ expires_at: at(7 * 24 * HOUR), as_of: at(-HOUR) }),
        subscription: subscription(),
      }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'the reversal of an earlier period’s refund: that period’s money only',
      storeState({ refund_reversed: true, transaction_id: 't1', expires_at: at(-24 * HOUR) }),
      stored({ subscription: subscription() }),
      { kind: 'refund_earlier', subscription: subscription() },
    ],
    [
      'an earlier period’s state that is no refund: synced as the store states it',
      storeState({ transaction_id: 't1', expires_at: at(-24 * HOUR) }),
      stored({ subscription: subscription() }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      "Google's voided order, an earlier renewal's (not the purchase's latest order): that period's money only",
      storeState({ revoked: true, transaction_id: 'GPA.1-1..1', refunded_transaction_id: 'GPA.1-1' }),
      stored({ subscription: subscription() }),
      { kind: 'refund_earlier', subscription: subscription() },
    ],
    [
      "Google's voided order, the latest one: the current period's refund, whatever the dates",
      storeState({ revoked: true, refunded_transaction_id: 't2', expires_at: at(-24 * HOUR) }),
      stored({ subscription: subscription() }),
      { kind: 'sync', subscription: subscription() },
    ],
    [
      'an ended subscription, a refund of an earlier period: that period’s money only',
      storeState({ revoked: true, transaction_id: 't1', expires_at: at(-48 * HOUR) }),
      stored({ subscription: subscription({ status: 'expired', expires_at: at(-HOUR) }) }),
      { kind: 'refund_earlier', subscription: subscription({ status: 'expired', expires_at: at(-HOUR) }) },
    ],
    [
      'its product left the catalogue: kept on the purchase',
      storeState(),
      stored({ product: undefined }),
      { kind: 'keep', reason: "product premium_monthly of the receipt is not in this app's catalogue" },
    ],
    [
      'the subscription expired voluntarily, the store grants a new period: a resubscription',
      storeState(),
      stored({ subscription: subscription({ status: 'expired', expires_at: at(-HOUR) }) }),
      {
        kind: 'insert',
        userId: 'u1',
        productId: 'premium_monthly',
        price: 4.99,
        currency: 'EUR',
        billingPeriod: 'monthly',
      },
    ],
    [
      'the subscription expired in billing retry, the store charged: a recovery of the same one',
      storeState(),
      stored({ subscription: subscription({ status: 'expired', billing_issue_at: at(-HOUR) }) }),
      { kind: 'sync', subscription: subscription({ status: 'expired', billing_issue_at: at(-HOUR) }) },
    ],
    [
      'the subscription ended and the store grants nothing (a late EXPIRED): sync the ended one',
      storeState({ expires_at: at(-HOUR) }),
      stored({ subscription: subscription({ status: 'expired' }) }),
      { kind: 'sync', subscription: subscription({ status: 'expired' }) },
    ],
  ];
  for (const [name, s, st, expected] of rows) {
    it(name, () => expect(decide(s, st)).toEqual(expected));
  }
});

describe('record fields and events of a store-driven change', () => {
  const record = { product_id: 'premium_monthly', price: 9.99, currency: 'USD' };

  it('a renewal charges the price the store reports; a plan change moves the product', () => {
    expect(storeRecordPatch(record, storeState(), true)).toEqual({ price: 4.99, currency: 'EUR' });
    expect(storeRecordPatch(record, storeState(), false)).toEqual({});
    expect(storeRecordPatch(record, storeState({ product_id: 'pro_yearly', price: 59.99 }), false)).toEqual({
      product_id: 'pro_yearly',
      price: 59.99,
      currency: 'EUR',
    });
    expect(storeRecordPatch(record, storeState({ price: null, currency: null }), true)).toEqual({});
    expect(storeRecordPatch(record, storeState({ trial: true, price: 0 }), true)).toEqual({});
    // Only what differs from the record.
    expect(storeRecordPatch(record, storeState({ price: 9.99, currency: 'EUR' }), true)).toEqual({
      currency: 'EUR',
    });
    expect(storeRecordPatch(record, storeState({ price: 4.99, currency: 'USD' }), true)).toEqual({
      price: 4.99,
    });
  });

  const side = (overrides: Partial<Parameters<typeof storeEventsOf>[0]> = {}) => ({
    status: 'active' as SubscriptionStatus,
    auto_renew: true,
    billing_issue_at: null,
    product_id: 'premium_monthly',
    ...overrides,
  });
  const none = { renewal: false, refund: false, refundReversed: false };

  it('each change announces its kind, in a fixed order', () => {
    expect(storeEventsOf(side(), side(), none)).toEqual([]);
    expect(storeEventsOf(side(), side(), { renewal: true, refund: false, refundReversed: false })).toEqual(['renewed']);
    expect(
      storeEventsOf(side(), side({ status: 'cancelled' }), {
        renewal: false,
        refund: true,
        refundReversed: false,
      }),
    ).toEqual(['refunded']);
    expect(storeEventsOf(side(), side({ auto_renew: false }), none)).toEqual(['auto_renew_changed']);
    expect(storeEventsOf(side(), side({ billing_issue_at: NOW.toISOString() }), none)).toEqual(['billing_issue']);
    expect(
      storeEventsOf(side(), side({ product_id: 'pro_yearly' }), {
        renewal: true,
        refund: false,
        refundReversed: false,
      }),
    ).toEqual(['renewed', 'product_changed']);
  });

  it('renewal turned off or on while paused, or as a subscription pauses, is announced', () => {
    const paused = side({ status: 'paused' });
    expect(storeEventsOf(paused, side({ status: 'paused', auto_renew: false }), none)).toEqual(['auto_renew_changed']);
    expect(storeEventsOf(side(), side({ status: 'paused', auto_renew: false }), none)).toEqual(['auto_renew_changed']);
  });

  it('an end turns renewal off without an auto_renew_changed; a continuing billing issue is not announced again', () => {
    expect(storeEventsOf(side(), side({ status: 'expired', auto_renew: false }), none)).toEqual([]);
    const inIssue = side({ billing_issue_at: NOW.toISOString() });
    expect(storeEventsOf(inIssue, inIssue, none)).toEqual([]);
  });

  it('a recovery from billing retry (expired, renewal off) is a renewal, not an auto_renew_changed', () => {
    const retrying = side({ status: 'expired', auto_renew: false, billing_issue_at: NOW.toISOString() });
    expect(storeEventsOf(retrying, side(), { renewal: true, refund: false, refundReversed: false })).toEqual([
      'renewed',
    ]);
  });

  it("a reversed refund is announced; access coming back is the status change's to say", () => {
    const refunded = side({ status: 'cancelled', auto_renew: false });
    expect(storeEventsOf(refunded, side(), { renewal: false, refund: false, refundReversed: true })).toEqual([
      'refund_reversed',
    ]);
  });
});
