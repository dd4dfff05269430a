import { describe, expect, it } from 'vitest';
import { parseEventFilter, receivesEvent } from '../../lib/domain/webhook-filter.js';
import { EVENT_KINDS, RENEWED, STATUS_CHANGED } from '../../lib/events/schemas.js';

describe('webhook event filter', () => {
  it('no filter receives every kind, one not known today included', () => {
    expect(receivesEvent(null, RENEWED)).toBe(true);
    expect(receivesEvent(null, 'subscription.some_future_kind')).toBe(true);
    expect(receivesEvent([STATUS_CHANGED], STATUS_CHANGED)).toBe(true);
    expect(receivesEvent([STATUS_CHANGED], RENEWED)).toBe(false);
  });

  it('a list of kinds parses to those kinds, once each, in the order of the known kinds', () => {
    expect(parseEventFilter(` ${RENEWED}, ${STATUS_CHANGED},${RENEWED},`, EVENT_KINDS)).toEqual({
      ok: true,
      filter: [STATUS_CHANGED, RENEWED],
    });
  });

  it('"all" is no filter', () => {
    expect(parseEventFilter('all', EVENT_KINDS)).toEqual({ ok: true, filter: null });
  });

  it('unknown names, an empty list and "all" among kinds are refused, naming the problem', () => {
    expect(parseEventFilter('subscription.renewd,renewed', EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"subscription.renewd", "renewed" are not event kinds',
    });
    expect(parseEventFilter('bogus', EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"bogus" is not an event kind',
    });
    expect(parseEventFilter(' , ', EVENT_KINDS)).toEqual({ ok: false, problem: 'names no event kind' });
    expect(parseEventFilter(`all,${RENEWED}`, EVENT_KINDS)).toMatchObject({ ok: false });
  });

  it('"all" among kinds is refused with a message saying so', () => {
    expect(parseEventFilter(`all,${RENEWED}`, EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"all" cannot be combined with kinds',
    });
    expect(parseEventFilter(`${STATUS_CHANGED}, all`, EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"all" cannot be combined with kinds',
    });
  });
});
