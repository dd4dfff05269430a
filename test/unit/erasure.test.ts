import { describe, expect, it } from 'vitest';
import type { UserPartition } from '../../lib/domain/erasure.js';
import { freshBeforeEach } from '../support/fresh-module.js';

// Loaded before each test: what the module makes while it loads is then every test's to hold (docs/mutation.md).
const erasureModule = freshBeforeEach(() => import('../../lib/domain/erasure.js'));

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
    expect(erasureModule.erasedKindOf(partition, sk)).toBe(kind);
  });
});

describe('counts', () => {
  it('countDeleted counts a page by kind, leaving out what is no data of the user', () => {
    expect(erasureModule.countDeleted('user', ['ACTIVITY', 'GRANT#a', 'GRANT#b', 'PROFILE', 'REPORT#x'])).toEqual({
      profile: 2,
      grants: 2,
      reports: 1,
    });
    expect(erasureModule.countDeleted('rate_limit', ['WINDOW'])).toEqual({});
    expect(erasureModule.countDeleted('events', [])).toEqual({});
  });

  it('addCounts adds kind by kind, and every kind is always present', () => {
    const step = erasureModule.addCounts(erasureModule.NO_COUNTS, { events: 1000 });
    expect(erasureModule.addCounts(step, { events: 3, subscriptions_detached: 2 })).toEqual({
      ...erasureModule.NO_COUNTS,
      events: 1003,
      subscriptions_detached: 2,
    });
    expect(Object.keys(erasureModule.NO_COUNTS)).toEqual([...erasureModule.ERASED_KINDS]);
    expect(Object.values(erasureModule.NO_COUNTS)).toEqual(erasureModule.ERASED_KINDS.map(() => 0));
  });
});
