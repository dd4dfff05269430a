import { describe, expect, it } from 'vitest';
import { mergeProfileItems } from '../../lib/domain/user-activity.js';

describe('mergeProfileItems', () => {
  const profile = {
    total_sessions: 3,
    first_seen: '2026-01-02T00:00:00.000Z',
    last_seen: '2026-03-01T00:00:00.000Z',
    features: new Set(['export']),
  };

  it('is undefined for a user with none of the items', () => {
    expect(mergeProfileItems(undefined, undefined, undefined)).toBeUndefined();
  });

  it('takes the earliest first_seen, the latest last_seen and the union of the features', () => {
    expect(
      mergeProfileItems(
        profile,
        { first_seen: '2026-02-01T00:00:00.000Z', last_seen: '2026-04-01T00:00:00.000Z' },
        { features: new Set(['sync', 'export']) },
      ),
    ).toEqual({
      total_sessions: 3,
      first_seen: '2026-01-02T00:00:00.000Z',
      last_seen: '2026-04-01T00:00:00.000Z',
      features: new Set(['export', 'sync']),
    });
    expect(
      mergeProfileItems(
        { last_seen: '2026-05-01T00:00:00.000Z' },
        { first_seen: '2025-12-01T00:00:00.000Z', last_seen: '2026-04-01T00:00:00.000Z' },
        undefined,
      ),
    ).toEqual({ first_seen: '2025-12-01T00:00:00.000Z', last_seen: '2026-05-01T00:00:00.000Z' });
  });

  it('stands for a user known only by events, and reads features stored as a list', () => {
    expect(
      mergeProfileItems(undefined, { first_seen: 'a', last_seen: 'b' }, { features: ['sync'] as unknown as string[] }),
    ).toEqual({ first_seen: 'a', last_seen: 'b', features: new Set(['sync']) });
    expect(mergeProfileItems({ features: new Set() }, undefined, undefined)).toEqual({});
  });

  it('takes the earliest first_seen and the latest last_seen whichever item holds it', () => {
    // The activity item holds the earlier first_seen and the profile the later last_seen: the
    // profile's own dates are not taken just for coming first.
    expect(
      mergeProfileItems(
        { first_seen: '2026-02-01T00:00:00.000Z', last_seen: '2026-06-01T00:00:00.000Z' },
        { first_seen: '2026-01-15T00:00:00.000Z', last_seen: '2026-05-01T00:00:00.000Z' },
        undefined,
      ),
    ).toEqual({ first_seen: '2026-01-15T00:00:00.000Z', last_seen: '2026-06-01T00:00:00.000Z' });
    expect(
      mergeProfileItems(
        { first_seen: '2026-03-01T00:00:00.000Z', last_seen: '2026-03-02T00:00:00.000Z' },
        { first_seen: '2026-01-01T00:00:00.000Z', last_seen: '2026-04-01T00:00:00.000Z' },
        undefined,
      ),
    ).toEqual({ first_seen: '2026-01-01T00:00:00.000Z', last_seen: '2026-04-01T00:00:00.000Z' });
  });

  it('adds no first_seen or last_seen attribute when no item holds one', () => {
    // toStrictEqual: an attribute holding undefined is not an absent one (DynamoDB refuses to
    // marshal undefined, and `in` sees the key).
    const merged = mergeProfileItems({ total_sessions: 1 }, undefined, {
      features: new Set(['sync']),
    });
    expect(merged).toStrictEqual({ total_sessions: 1, features: new Set(['sync']) });
    expect(Object.keys(merged!)).toEqual(['total_sessions', 'features']);
    const onlyFirst = mergeProfileItems(undefined, { first_seen: '2026-01-01T00:00:00.000Z' }, undefined);
    expect(onlyFirst).toStrictEqual({ first_seen: '2026-01-01T00:00:00.000Z' });
    const onlyLast = mergeProfileItems({ last_seen: '2026-01-01T00:00:00.000Z' }, undefined, undefined);
    expect(onlyLast).toStrictEqual({ last_seen: '2026-01-01T00:00:00.000Z' });
  });
});
