import { describe, expect, it } from 'vitest';
import type { UserPartition } from '../../lib/domain/erasure-scope.js';
import {
  ANONYMOUS_ID_PATTERN,
  addCounts,
  anonymisedFields,
  countDeleted,
  ERASED_KINDS,
  erasedKindOf,
  NO_COUNTS,
  usersNamedBy,
} from '../../lib/domain/erasure-scope.js';

describe('erasedKindOf: what a deleted item counts as', () => {
  it.each([
    ['user', 'PROFILE', 'profile'],
    ['user', 'ACTIVITY', 'profile'],
    ['user', 'FEATURES', 'profile'],
    ['user', 'GRANT#pro', 'grants'],
    ['user', 'REPORT#device_info', 'reports'],
    ['events', 'EVT#id:1', 'events'],
    ['sessions', 's-1', 'sessions'],
    ['orders', 'ORDER#o-1', 'orders'],
    ['reports', 'conversion#2026-01-01T00:00:00.000Z#a1', 'reports'],
    ['rate_limit', 'WINDOW', undefined],
  ] as const)('%s / %s: %s', (partition: UserPartition, sk, kind) => {
    expect(erasedKindOf(partition, sk)).toBe(kind);
  });
});

describe('counts', () => {
  it('countDeleted counts a page by kind, leaving out what is no data of the user', () => {
    expect(countDeleted('user', ['ACTIVITY', 'GRANT#a', 'GRANT#b', 'PROFILE', 'REPORT#x'])).toEqual({
      profile: 2,
      grants: 2,
      reports: 1,
    });
    expect(countDeleted('rate_limit', ['WINDOW'])).toEqual({});
    expect(countDeleted('events', [])).toEqual({});
  });

  it('addCounts adds kind by kind, and every kind is always present', () => {
    const step = addCounts(NO_COUNTS, { events: 1000 });
    expect(addCounts(step, { events: 3, subscriptions_detached: 2 })).toEqual({
      ...NO_COUNTS,
      events: 1003,
      subscriptions_detached: 2,
    });
    expect(Object.keys(NO_COUNTS)).toEqual([...ERASED_KINDS]);
    expect(Object.values(NO_COUNTS)).toEqual(ERASED_KINDS.map(() => 0));
  });
});

describe('anonymisedFields: what anonymises a kept item', () => {
  it.each([
    ['a subscription of the user', { user_id: 'u1' }, { user_id: 'erased_1' }],
    [
      'a purchase the user owns and binds',
      { user_id: 'u1', owner_user_id: 'u1' },
      { user_id: 'erased_1', owner_user_id: 'erased_1' },
    ],
    ['a transfer from the user', { from_user_id: 'u1', to_user_id: 'u2' }, { from_user_id: 'erased_1' }],
    ['a transfer to the user', { from_user_id: 'u2', to_user_id: 'u1' }, { to_user_id: 'erased_1' }],
    ["another user's item", { user_id: 'u2', owner_user_id: 'u2' }, {}],
    ['an item anonymised already', { user_id: 'erased_0' }, {}],
    ['a field that is no user field', { subscription_id: 'u1' }, {}],
  ])('%s', (_, item, expected) => {
    expect(anonymisedFields(item, 'u1', 'erased_1')).toEqual(expected);
  });
});

describe('usersNamedBy: the users an event names', () => {
  it.each([
    ['a status change', { data: { subscription_id: 's', user_id: 'u1' } }, ['u1']],
    ['a transfer', { data: { from_user_id: 'u1', to_user_id: 'u2' } }, ['u1', 'u2']],
    ['a transfer back to the same user', { data: { from_user_id: 'u1', to_user_id: 'u1' } }, ['u1']],
    ['no user', { data: { subscription_id: 's' } }, []],
    ['no data', {}, []],
    ['an empty or non-string user', { data: { user_id: '', from_user_id: 7 } }, []],
  ])('%s', (_, payload, expected) => {
    expect(usersNamedBy(payload)).toEqual(expected);
  });

  it('anonymous ids are erased_ and 24 hex digits', () => {
    expect(ANONYMOUS_ID_PATTERN.test('erased_0123456789abcdef01234567')).toBe(true);
    expect(ANONYMOUS_ID_PATTERN.test('erased_0123')).toBe(false);
    expect(ANONYMOUS_ID_PATTERN.test('x_erased_0123456789abcdef01234567')).toBe(false);
    expect(ANONYMOUS_ID_PATTERN.test('erased_0123456789abcdef01234567x')).toBe(false);
  });
});
