import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, RENEWED, STATUS_CHANGED } from '../../lib/events/schemas.js';
import { freshBeforeEach } from '../support/fresh-module.js';

// Loaded before each test: what the module makes while it loads is then every test's to hold (docs/mutation.md).
const webhookFilter = freshBeforeEach(() => import('../../lib/domain/webhook-filter.js'));

describe('webhook event filter', () => {
  it('no filter receives every kind, one not known today included', () => {
    expect(webhookFilter.receivesEvent(null, RENEWED)).toBe(true);
    expect(webhookFilter.receivesEvent(null, 'subscription.some_future_kind')).toBe(true);
    expect(webhookFilter.receivesEvent([STATUS_CHANGED], STATUS_CHANGED)).toBe(true);
    expect(webhookFilter.receivesEvent([STATUS_CHANGED], RENEWED)).toBe(false);
  });

  it('a list of kinds parses to those kinds, once each, in the order of the known kinds', () => {
    expect(webhookFilter.parseEventFilter(` ${RENEWED}, ${STATUS_CHANGED},${RENEWED},`, EVENT_KINDS)).toEqual({
      ok: true,
      filter: [STATUS_CHANGED, RENEWED],
    });
  });

  it('"all" is no filter', () => {
    expect(webhookFilter.parseEventFilter('all', EVENT_KINDS)).toEqual({ ok: true, filter: null });
  });

  it('unknown names, an empty list and "all" among kinds are refused, naming the problem', () => {
    expect(webhookFilter.parseEventFilter('subscription.renewd,renewed', EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"subscription.renewd", "renewed" are not event kinds',
    });
    expect(webhookFilter.parseEventFilter('bogus', EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"bogus" is not an event kind',
    });
    expect(webhookFilter.parseEventFilter(' , ', EVENT_KINDS)).toEqual({ ok: false, problem: 'names no event kind' });
    expect(webhookFilter.parseEventFilter(`all,${RENEWED}`, EVENT_KINDS)).toMatchObject({ ok: false });
  });

  it('"all" among kinds is refused with a message saying so', () => {
    expect(webhookFilter.parseEventFilter(`all,${RENEWED}`, EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"all" cannot be combined with kinds',
    });
    expect(webhookFilter.parseEventFilter(`${STATUS_CHANGED}, all`, EVENT_KINDS)).toEqual({
      ok: false,
      problem: '"all" cannot be combined with kinds',
    });
  });
});
