import { describe, expect, it } from 'vitest';
import { builtInSegments, inSegment, type UserFacts } from '../../lib/domain/segments.js';
import { segmentCatalogueSchema, segmentSchema } from '../../lib/schemas/segment.js';

const NOW = new Date('2026-06-30T00:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

function facts(overrides: Partial<UserFacts> = {}): UserFacts {
  return {
    first_seen: daysAgo(60),
    last_seen: daysAgo(1),
    attributes: { country: 'DE', language: 'de' },
    custom_properties: { plan_tier: 'gold', level: 7 },
    counters: { total_sessions: 12, order_count: 2, conversion_count: 0, features_used: 3 },
    attribution_network: 'apple_search_ads',
    subscriptions: [],
    ...overrides,
  };
}

const segment = (conditions: unknown[], match: 'all' | 'any' = 'all') =>
  segmentSchema.parse({ id: 'test', name: 'Test', match, conditions });

describe('built-in segments', () => {
  it('a user seen yesterday, first seen 60 days ago, never subscribed', () => {
    expect(builtInSegments(facts(), NOW)).toEqual(['active_7d', 'never_subscribed']);
  });

  it('new users, dormant users', () => {
    expect(builtInSegments(facts({ first_seen: daysAgo(2), last_seen: daysAgo(2) }), NOW)).toEqual([
      'new_user',
      'active_7d',
      'never_subscribed',
    ]);
    expect(builtInSegments(facts({ last_seen: daysAgo(45) }), NOW)).toEqual(['dormant_30d', 'never_subscribed']);
  });

  it('trialing, paying and churned follow the subscriptions', () => {
    const trial = {
      status: 'active' as const,
      trial_period: true,
      trial_expires_at: new Date(NOW.getTime() + 86_400_000).toISOString(),
    };
    const paid = { status: 'active' as const, trial_period: false, trial_expires_at: null };
    expect(builtInSegments(facts({ subscriptions: [trial] }), NOW)).toContain('trialing');
    expect(builtInSegments(facts({ subscriptions: [trial] }), NOW)).not.toContain('paying');
    expect(builtInSegments(facts({ subscriptions: [paid] }), NOW)).toContain('paying');
    expect(
      builtInSegments(
        facts({
          subscriptions: [
            { ...paid, status: 'expired' },
            { ...paid, status: 'cancelled' },
          ],
        }),
        NOW,
      ),
    ).toContain('churned');
    expect(builtInSegments(facts({ subscriptions: [{ ...paid, status: 'expired' }, paid] }), NOW)).not.toContain(
      'churned',
    );
  });
});

describe('rule segments', () => {
  it.each([
    [[{ field: 'attributes.country', op: 'eq', value: 'DE' }], true],
    [[{ field: 'attributes.country', op: 'in', value: ['AT', 'CH'] }], false],
    [[{ field: 'custom_properties.level', op: 'gte', value: 7 }], true],
    [[{ field: 'custom_properties.level', op: 'gt', value: 7 }], false],
    [[{ field: 'custom_properties.missing', op: 'not_exists' }], true],
    [
      [
        { field: 'counters.total_sessions', op: 'gt', value: 10 },
        { field: 'counters.order_count', op: 'gte', value: 2 },
      ],
      true,
    ],
    [[{ field: 'counters.conversion_count', op: 'gt', value: 0 }], false],
    [[{ field: 'days_since_first_seen', op: 'gt', value: 30 }], true],
    [[{ field: 'attribution.network', op: 'contains', value: 'search' }], true],
    [[{ field: 'subscription.status', op: 'eq', value: 'active' }], false],
    [[{ field: 'subscription.status', op: 'neq', value: 'active' }], true],
  ])('%o -> %s', (conditions, expected) => {
    expect(inSegment(segment(conditions), facts(), NOW)).toBe(expected);
  });

  it('match "any" needs one condition, "all" needs every one', () => {
    const conditions = [
      { field: 'attributes.country', op: 'eq', value: 'FR' },
      { field: 'custom_properties.plan_tier', op: 'eq', value: 'gold' },
    ];
    expect(inSegment(segment(conditions, 'any'), facts(), NOW)).toBe(true);
    expect(inSegment(segment(conditions, 'all'), facts(), NOW)).toBe(false);
  });

  it('refuses unknown fields, operators without values, built-in ids and duplicates', () => {
    expect(
      segmentSchema.safeParse({ id: 'x', name: 'x', conditions: [{ field: 'profile.secret', op: 'eq', value: 1 }] })
        .success,
    ).toBe(false);
    expect(
      segmentSchema.safeParse({ id: 'x', name: 'x', conditions: [{ field: 'counters.order_count', op: 'gt' }] })
        .success,
    ).toBe(false);
    expect(
      segmentSchema.safeParse({
        id: 'x',
        name: 'x',
        conditions: [{ field: 'counters.order_count', op: 'gt', value: 'many' }],
      }).success,
    ).toBe(false);
    expect(
      segmentSchema.safeParse({
        id: 'paying',
        name: 'x',
        conditions: [{ field: 'counters.order_count', op: 'exists' }],
      }).success,
    ).toBe(false);
    const one = { id: 'dup', name: 'x', conditions: [{ field: 'counters.order_count', op: 'exists' }] };
    expect(segmentCatalogueSchema.safeParse([one, one]).success).toBe(false);
  });
});
