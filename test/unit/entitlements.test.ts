import { describe, expect, it } from 'vitest';
import type { EntitledSubscription } from '../../lib/domain/entitlements.js';
import { entitlementStates } from '../../lib/domain/entitlements.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';
import { type EntitlementState, entitlementCatalogueSchema } from '../../lib/schemas/entitlement.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');

const DEFINITIONS = [
  { id: 'pro', products: ['premium_monthly', 'premium_yearly'] },
  { id: 'sync', products: ['premium_yearly', 'sync_addon'] },
];

function sub(overrides: Partial<EntitledSubscription>): EntitledSubscription {
  return {
    ...INITIAL_LIFECYCLE,
    status: 'active',
    product_id: 'premium_monthly',
    expires_at: '2026-07-30T12:00:00.000Z',
    auto_renew: true,
    trial_period: false,
    trial_expires_at: null,
    store: 'test_store',
    environment: 'test',
    created_at: '2026-06-30T11:00:00.000Z',
    ...overrides,
  };
}

const NONE: EntitlementState = {
  active: false,
  product_id: null,
  expires_at: null,
  will_renew: false,
  period_type: null,
  store: null,
  environment: null,
  billing_issue_detected_at: null,
  grace_period_expires_at: null,
};

describe('entitlementStates', () => {
  it('a user with no subscriptions has every entitlement of the app, none active', () => {
    expect(entitlementStates(DEFINITIONS, [], NOW)).toEqual({ pro: NONE, sync: NONE });
  });

  // One subscription each: the state of `pro` (premium_monthly unlocks it) and whether `sync` is active.
  const cases: {
    case: string;
    subscription: Partial<EntitledSubscription>;
    pro: Partial<EntitlementState>;
    syncActive: boolean;
  }[] = [
    {
      case: 'active, paid period running, renews',
      subscription: {},
      pro: {
        active: true,
        product_id: 'premium_monthly',
        expires_at: '2026-07-30T12:00:00.000Z',
        will_renew: true,
        period_type: 'normal',
        store: 'test_store',
        environment: 'test',
      },
      syncActive: false,
    },
    {
      case: 'trial running',
      subscription: {
        trial_period: true,
        trial_expires_at: '2026-07-07T12:00:00.000Z',
        expires_at: '2026-07-07T12:00:00.000Z',
      },
      pro: { active: true, period_type: 'trial', expires_at: '2026-07-07T12:00:00.000Z', will_renew: true },
      syncActive: false,
    },
    {
      case: 'trial over, paid period running',
      subscription: { trial_period: true, trial_expires_at: '2026-06-20T12:00:00.000Z' },
      pro: { active: true, period_type: 'normal' },
      syncActive: false,
    },
    {
      case: 'trial ended without converting: inactive, the trial was the last period',
      subscription: {
        status: 'expired',
        auto_renew: false,
        trial_period: true,
        trial_expires_at: '2026-06-29T12:00:00.000Z',
        expires_at: '2026-06-29T12:00:00.000Z',
      },
      pro: { active: false, period_type: 'trial', expires_at: '2026-06-29T12:00:00.000Z', will_renew: false },
      syncActive: false,
    },
    {
      case: 'cancelled at period end: access to the end, no renewal',
      subscription: { cancel_at_period_end: true, cancelled_at: '2026-06-29T12:00:00.000Z' },
      pro: { active: true, will_renew: false },
      syncActive: false,
    },
    {
      case: 'period ended but not yet expired by the sweeper: no access',
      subscription: { expires_at: '2026-06-30T11:59:59.000Z' },
      pro: { active: false, will_renew: false, expires_at: '2026-06-30T11:59:59.000Z' },
      syncActive: false,
    },
    {
      case: 'billing issue, in the grace period: access',
      subscription: {
        expires_at: '2026-06-29T12:00:00.000Z',
        billing_issue_at: '2026-06-29T12:00:00.000Z',
        grace_period_expires_at: '2026-07-05T12:00:00.000Z',
      },
      pro: {
        active: true,
        expires_at: '2026-06-29T12:00:00.000Z',
        billing_issue_detected_at: '2026-06-29T12:00:00.000Z',
        grace_period_expires_at: '2026-07-05T12:00:00.000Z',
      },
      syncActive: false,
    },
    {
      case: 'billing issue, grace period over',
      subscription: {
        expires_at: '2026-06-20T12:00:00.000Z',
        billing_issue_at: '2026-06-20T12:00:00.000Z',
        grace_period_expires_at: '2026-06-26T12:00:00.000Z',
      },
      pro: {
        active: false,
        will_renew: false,
        expires_at: '2026-06-20T12:00:00.000Z',
        billing_issue_detected_at: '2026-06-20T12:00:00.000Z',
        grace_period_expires_at: '2026-06-26T12:00:00.000Z',
      },
      syncActive: false,
    },
    {
      case: 'refunded (cancelled now)',
      subscription: {
        status: 'cancelled',
        auto_renew: false,
        expires_at: '2026-06-30T10:00:00.000Z',
        cancelled_at: '2026-06-30T10:00:00.000Z',
        refunded_at: '2026-06-30T10:00:00.000Z',
      },
      pro: { active: false, will_renew: false, expires_at: '2026-06-30T10:00:00.000Z' },
      syncActive: false,
    },
    {
      case: 'paused, though its period would still run',
      subscription: { status: 'paused', paused_at: '2026-06-29T12:00:00.000Z' },
      pro: { active: false, will_renew: false },
      syncActive: false,
    },
    {
      case: 'recorded, never verified: as if there were none',
      subscription: { status: 'pending_verification' },
      pro: NONE,
      syncActive: false,
    },
    {
      case: 'a product that unlocks both entitlements',
      subscription: { product_id: 'premium_yearly' },
      pro: { active: true, product_id: 'premium_yearly' },
      syncActive: true,
    },
    {
      case: 'a product no entitlement names',
      subscription: { product_id: 'coins_pack' },
      pro: NONE,
      syncActive: false,
    },
  ];

  it.each(cases)('$case', ({ subscription, pro, syncActive }) => {
    const states = entitlementStates(DEFINITIONS, [sub(subscription)], NOW);
    const expected =
      pro === NONE
        ? NONE
        : {
            active: true,
            product_id: 'premium_monthly',
            expires_at: '2026-07-30T12:00:00.000Z',
            will_renew: true,
            period_type: 'normal',
            store: 'test_store',
            environment: 'test',
            billing_issue_detected_at: null,
            grace_period_expires_at: null,
            ...pro,
          };
    expect(states.pro).toEqual(expected);
    expect(states.sync!.active).toBe(syncActive);
  });

  it('of several subscriptions, one giving access decides, the one whose access ends last', () => {
    const states = entitlementStates(
      DEFINITIONS,
      [
        sub({ product_id: 'premium_monthly', expires_at: '2026-07-30T12:00:00.000Z' }),
        sub({
          product_id: 'premium_yearly',
          expires_at: '2027-06-30T12:00:00.000Z',
          store: 'app_store',
          environment: 'production',
        }),
        sub({ product_id: 'premium_yearly', status: 'expired', expires_at: '2028-01-01T00:00:00.000Z' }),
      ],
      NOW,
    );
    expect(states.pro).toMatchObject({
      active: true,
      product_id: 'premium_yearly',
      expires_at: '2027-06-30T12:00:00.000Z',
      store: 'app_store',
      environment: 'production',
    });
  });

  it('with none giving access, the one whose access ended last describes the inactive entitlement', () => {
    const states = entitlementStates(
      DEFINITIONS,
      [
        sub({ status: 'expired', expires_at: '2026-05-01T00:00:00.000Z', created_at: '2026-04-01T00:00:00.000Z' }),
        sub({
          status: 'cancelled',
          product_id: 'premium_yearly',
          expires_at: '2026-06-01T00:00:00.000Z',
          created_at: '2026-03-01T00:00:00.000Z',
        }),
      ],
      NOW,
    );
    expect(states.pro).toMatchObject({
      active: false,
      product_id: 'premium_yearly',
      expires_at: '2026-06-01T00:00:00.000Z',
    });
    expect(states.sync).toMatchObject({ active: false, product_id: 'premium_yearly' });
  });

  it('equal access ends: the newer subscription decides', () => {
    const states = entitlementStates(
      DEFINITIONS,
      [
        sub({ product_id: 'premium_monthly', created_at: '2026-06-01T00:00:00.000Z' }),
        sub({ product_id: 'premium_yearly', created_at: '2026-06-02T00:00:00.000Z' }),
      ],
      NOW,
    );
    expect(states.pro!.product_id).toBe('premium_yearly');
  });
});

describe('entitlementStates at the edges', () => {
  const endsNow = NOW.toISOString();

  it('a subscription whose access ends this instant gives none', () => {
    const states = entitlementStates(DEFINITIONS, [sub({ expires_at: endsNow, auto_renew: false })], NOW);
    expect(states.pro).toMatchObject({ active: false, expires_at: endsNow });
    const oneLater = entitlementStates(
      DEFINITIONS,
      [sub({ expires_at: new Date(NOW.getTime() + 1).toISOString(), auto_renew: false })],
      NOW,
    );
    expect(oneLater.pro!.active).toBe(true);
  });

  it('a grant that ends this instant, or was ended early, gives none', () => {
    const grant = { entitlement_id: 'pro', granted_at: '2026-06-01T00:00:00.000Z', ended_at: null };
    expect(entitlementStates(DEFINITIONS, [], NOW, [{ ...grant, expires_at: endsNow }]).pro!.active).toBe(false);
    const revoked = { ...grant, expires_at: '2026-12-01T00:00:00.000Z', ended_at: '2026-06-29T00:00:00.000Z' };
    expect(entitlementStates(DEFINITIONS, [], NOW, [revoked]).pro).toMatchObject({
      active: false,
      period_type: 'grant',
    });
  });

  it('of two that end at the same time, the newer decides, whichever comes first; else the later end', () => {
    const older = sub({ product_id: 'premium_monthly', created_at: '2026-06-01T00:00:00.000Z' });
    const newer = sub({ product_id: 'premium_yearly', created_at: '2026-06-02T00:00:00.000Z' });
    for (const order of [
      [older, newer],
      [newer, older],
    ])
      expect(entitlementStates(DEFINITIONS, order, NOW).pro!.product_id).toBe('premium_yearly');
    const laterEnd = sub({ product_id: 'premium_monthly', expires_at: '2026-08-30T12:00:00.000Z' });
    for (const order of [
      [laterEnd, newer],
      [newer, laterEnd],
    ])
      expect(entitlementStates(DEFINITIONS, order, NOW).pro!.product_id).toBe('premium_monthly');
    // The later end decides even when it is the older.
    const olderLaterEnd = { ...laterEnd, created_at: '2026-05-01T00:00:00.000Z' };
    for (const order of [
      [olderLaterEnd, newer],
      [newer, olderLaterEnd],
    ])
      expect(entitlementStates(DEFINITIONS, order, NOW).pro!.product_id).toBe('premium_monthly');
  });

  it('of a subscription and a grant alike in end and start, the subscription decides', () => {
    const subscription = sub({ created_at: '2026-06-01T00:00:00.000Z' });
    const grant = {
      entitlement_id: 'pro',
      granted_at: subscription.created_at,
      expires_at: subscription.expires_at,
      ended_at: null,
    };
    expect(entitlementStates(DEFINITIONS, [subscription], NOW, [grant]).pro).toMatchObject({
      active: true,
      product_id: 'premium_monthly',
      period_type: 'normal',
    });
  });
});

describe('entitlement files', () => {
  it('accepts a valid set', () => {
    expect(
      entitlementCatalogueSchema.safeParse([
        { id: 'pro', name: 'Pro', products: ['premium_monthly', 'premium_yearly'] },
        { id: 'sync', name: 'Sync', products: ['premium_yearly'] },
      ]).success,
    ).toBe(true);
  });

  it('lists every problem, each at its path', () => {
    const parsed = entitlementCatalogueSchema.safeParse([
      { id: 'Pro!', name: '', products: [] },
      { id: 'sync', name: 'Sync', products: ['a', 'a'], extra: 1 },
      { id: 'sync', name: 'Sync again', products: ['b#c'] },
    ]);
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.map((issue) => issue.path.join('.')).sort();
    expect(paths).toEqual(['0.id', '0.name', '0.products', '1', '1.products.1', '2.id', '2.products.0']);
  });
});
