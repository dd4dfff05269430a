import { describe, expect, it } from 'vitest';
import type { UserFacts } from '../../lib/domain/segments.js';
import { builtInSegments, conditionHolds, inSegment, segmentsOf } from '../../lib/domain/segments.js';
import { type SegmentCondition, segmentCatalogueSchema, segmentSchema } from '../../lib/schemas/segment.js';

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

describe('built-in segments at their boundaries', () => {
  const inDays = (days: number) => new Date(NOW.getTime() + days * 86_400_000).toISOString();
  type Sub = UserFacts['subscriptions'][number];
  const sub = (status: Sub['status'], trial_period: boolean, trial_expires_at: string | null): Sub => ({
    status,
    trial_period,
    trial_expires_at,
  });

  it.each([
    ['first and last seen exactly 7 days ago: still new and active', daysAgo(7), daysAgo(7), ['new_user', 'active_7d']],
    ['first and last seen 8 days ago: neither new nor active', daysAgo(8), daysAgo(8), []],
    ['last seen exactly 30 days ago: not yet dormant', daysAgo(60), daysAgo(30), []],
    ['last seen 31 days ago: dormant', daysAgo(60), daysAgo(31), ['dormant_30d']],
    ['never seen: neither new, active nor dormant', null, null, []],
  ])('%s', (_, first_seen, last_seen, expected) => {
    expect(builtInSegments(facts({ first_seen, last_seen }), NOW)).toEqual([...expected, 'never_subscribed']);
  });

  it.each([
    ['an active trial ending tomorrow is trialing', [sub('active', true, inDays(1))], ['trialing']],
    ['an active trial ending exactly now is paying', [sub('active', true, NOW.toISOString())], ['paying']],
    ['an active subscription whose trial ended yesterday is paying', [sub('active', true, inDays(-1))], ['paying']],
    ['an active trial without an end date is paying', [sub('active', true, null)], ['paying']],
    ['an active non-trial with a future trial end is paying', [sub('active', false, inDays(1))], ['paying']],
    ['a paused trial is neither trialing nor paying', [sub('paused', true, inDays(1))], []],
    ['a paused paid subscription is paying', [sub('paused', false, null)], ['paying']],
    ['an expired subscription is churned, not paying', [sub('expired', false, null)], ['churned']],
    ['an expired trial ending tomorrow is churned, not trialing', [sub('expired', true, inDays(1))], ['churned']],
    ['expired and cancelled: churned', [sub('expired', false, null), sub('cancelled', false, null)], ['churned']],
    ['expired and active: paying, not churned', [sub('expired', false, null), sub('active', false, null)], ['paying']],
    ['a pending subscription: none of them', [sub('pending_verification', false, null)], []],
  ])('%s', (_, subscriptions, expected) => {
    // Seen yesterday, first seen 60 days ago: active_7d, never new or dormant.
    expect(builtInSegments(facts({ subscriptions }), NOW)).toEqual(['active_7d', ...expected]);
  });
});

describe('each rule operator on each field, at its boundary', () => {
  const known = facts({
    custom_properties: { plan_tier: 'gold', level: 7, level_text: '9', tags: ['vip', 'beta'] },
    subscriptions: [
      { status: 'active', trial_period: false, trial_expires_at: null },
      { status: 'expired', trial_period: false, trial_expires_at: null },
    ],
  });
  const unknown = facts({
    first_seen: null,
    last_seen: null,
    attributes: {},
    custom_properties: {},
    attribution_network: null,
    subscriptions: [],
  });
  const users = { known, unknown };

  it.each([
    // exists / not_exists: a missing value is no value
    ['attributes.country', 'exists', undefined, 'known', true],
    ['attributes.missing', 'exists', undefined, 'known', false],
    ['attributes.country', 'not_exists', undefined, 'known', false],
    ['attributes.missing', 'not_exists', undefined, 'known', true],
    ['custom_properties.level', 'exists', undefined, 'known', true],
    ['custom_properties.missing', 'exists', undefined, 'known', false],
    ['days_since_first_seen', 'exists', undefined, 'known', true],
    ['days_since_first_seen', 'exists', undefined, 'unknown', false],
    ['days_since_last_seen', 'exists', undefined, 'known', true],
    ['days_since_last_seen', 'exists', undefined, 'unknown', false],
    ['attribution.network', 'exists', undefined, 'known', true],
    ['attribution.network', 'exists', undefined, 'unknown', false],
    ['subscription.status', 'exists', undefined, 'known', true],
    ['subscription.status', 'exists', undefined, 'unknown', false],
    ['counters.order_count', 'exists', undefined, 'unknown', true],
    ['unknown.field', 'exists', undefined, 'known', false],
    // eq / neq: strict, any subscription may match eq, neq needs every one to differ
    ['subscription.status', 'eq', 'active', 'known', true],
    ['subscription.status', 'eq', 'paused', 'known', false],
    ['subscription.status', 'neq', 'active', 'known', false],
    ['subscription.status', 'neq', 'paused', 'known', true],
    ['custom_properties.level', 'eq', '7', 'known', false],
    ['days_since_last_seen', 'eq', 1, 'known', true],
    // in: any value in the list
    ['attributes.country', 'in', ['AT', 'DE'], 'known', true],
    ['attributes.country', 'in', ['AT', 'CH'], 'known', false],
    ['subscription.status', 'in', ['active'], 'known', true],
    ['subscription.status', 'in', ['paused'], 'known', false],
    // contains: a substring of a string, or an element of an array
    ['subscription.status', 'contains', 'exp', 'known', true],
    ['attribution.network', 'contains', 'search', 'known', true],
    ['attribution.network', 'contains', 'google', 'known', false],
    ['custom_properties.tags', 'contains', 'beta', 'known', true],
    ['custom_properties.tags', 'contains', 'gold', 'known', false],
    ['custom_properties.level', 'contains', 7, 'known', false],
    // comparisons: numbers only, strict and non-strict at the boundary, nothing when there is no value
    ['custom_properties.level', 'gt', 6, 'known', true],
    ['custom_properties.level', 'gt', 7, 'known', false],
    ['custom_properties.level_text', 'gt', 1, 'known', false],
    ['days_since_first_seen', 'gt', 0, 'unknown', false],
    ['custom_properties.level', 'gte', 7, 'known', true],
    ['custom_properties.level', 'gte', 8, 'known', false],
    ['custom_properties.level_text', 'gte', 7, 'known', false],
    ['days_since_first_seen', 'gte', 0, 'unknown', false],
    ['custom_properties.level', 'lt', 8, 'known', true],
    ['custom_properties.level', 'lt', 7, 'known', false],
    ['custom_properties.level', 'lt', 6, 'known', false],
    ['custom_properties.level_text', 'lt', 10, 'known', false],
    ['days_since_last_seen', 'lt', 100, 'unknown', false],
    ['custom_properties.level', 'lte', 7, 'known', true],
    ['custom_properties.level', 'lte', 8, 'known', true],
    ['custom_properties.level', 'lte', 6, 'known', false],
    ['custom_properties.level_text', 'lte', 10, 'known', false],
    ['days_since_last_seen', 'lte', 100, 'unknown', false],
    ['days_since_first_seen', 'lte', 60, 'known', true],
    ['days_since_first_seen', 'lt', 60, 'known', false],
  ] as const)('%s %s %o on the %s user -> %s', (field, op, value, user, expected) => {
    const condition = { field, op, value } as SegmentCondition;
    expect(conditionHolds(condition, users[user], NOW)).toBe(expected);
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

  it("segmentsOf: the built-in segments, then the rule segments that hold, in the app's order", () => {
    const german = segmentSchema.parse({
      id: 'german',
      name: 'German',
      conditions: [{ field: 'attributes.country', op: 'eq', value: 'DE' }],
    });
    const french = segmentSchema.parse({
      id: 'french',
      name: 'French',
      conditions: [{ field: 'attributes.country', op: 'eq', value: 'FR' }],
    });
    const gold = segmentSchema.parse({
      id: 'gold',
      name: 'Gold',
      conditions: [{ field: 'custom_properties.plan_tier', op: 'eq', value: 'gold' }],
    });
    const { builtIn, rules } = segmentsOf(facts(), [gold, french, german], NOW);
    expect(builtIn).toEqual(['active_7d', 'never_subscribed']);
    expect(rules.map((s) => s.id)).toEqual(['gold', 'german']);
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
