import { describe, expect, it } from 'vitest';
import {
  addCounts,
  countDeleted,
  ERASED_KINDS,
  erasedKindOf,
  NO_COUNTS,
  type UserPartition,
} from '../../lib/domain/erasure.js';

describe('erasedKindOf: what a deleted item counts as', () => {
  it.each([
    ['user', 'PROFILE', 'profile'],
    ['user', 'ACTIVITY', 'profile'],
    ['user', 'FEATURES', 'profile'],
    ['user', 'GRANT#pro', 'grants'],
    ['user', 'REPORT#device_info', 'reports'],
    ['events', 'EVT#id:1', 'events'],
    ['sessions', 's-1', 'sessions'],
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
