import { describe, expect, it } from 'vitest';
import {
  applyCommand,
  applyLifecycleCommand,
  INITIAL_LIFECYCLE,
  type LifecycleCommand,
  nextTimeTransitionAt,
  SUBSCRIPTION_STATUSES,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../../lib/domain/subscription-state.js';
import { appErrorThrownBy } from '../support/assertions.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');

function state(status: SubscriptionStatus, overrides: Partial<SubscriptionState> = {}): SubscriptionState {
  return {
    ...INITIAL_LIFECYCLE,
    status,
    expires_at: '2026-04-01T00:00:00.000Z',
    auto_renew: true,
    paused_at: status === 'paused' ? '2026-03-05T12:00:00.000Z' : null,
    paused_until: status === 'paused' ? '2026-03-20T12:00:00.000Z' : null,
    ...overrides,
  };
}

/**
 * PUT /v1/subscriptions/{id} {status}, written out from the README's Lifecycle section (the spec
 * leaves these transitions unspecified), not read from MANUAL_STATUS_CHANGES: every current status
 * x every target status. A cell is the resulting status, 409 (INVALID_STATUS_TRANSITION) or EXPIRED
 * (SUBSCRIPTION_EXPIRED); the same status again is a no-op.
 */
const PUT_STATUS: Record<SubscriptionStatus, Record<SubscriptionStatus, SubscriptionStatus | 409 | 'EXPIRED'>> = {
  pending_verification: {
    pending_verification: 'pending_verification',
    active: 'active',
    paused: 409,
    cancelled: 'cancelled',
    expired: 409,
  },
  active: {
    pending_verification: 409,
    active: 'active',
    paused: 409,
    cancelled: 'cancelled',
    expired: 'expired',
  },
  paused: {
    pending_verification: 409,
    active: 'active',
    paused: 'paused',
    cancelled: 'cancelled',
    expired: 409,
  },
  cancelled: {
    pending_verification: 409,
    active: 409,
    paused: 409,
    cancelled: 'cancelled',
    expired: 409,
  },
  expired: {
    pending_verification: 'EXPIRED',
    active: 'EXPIRED',
    paused: 'EXPIRED',
    cancelled: 'EXPIRED',
    expired: 'EXPIRED',
  },
};

describe('PUT status: every current status x every target status', () => {
  it('the table covers every status both ways', () => {
    expect(Object.keys(PUT_STATUS).sort()).toEqual([...SUBSCRIPTION_STATUSES].sort());
    for (const row of Object.values(PUT_STATUS))
      expect(Object.keys(row).sort()).toEqual([...SUBSCRIPTION_STATUSES].sort());
  });

  for (const from of SUBSCRIPTION_STATUSES) {
    for (const to of SUBSCRIPTION_STATUSES) {
      const expected = PUT_STATUS[from][to];
      if (expected === 'EXPIRED') {
        it(`${from} -> ${to} is SUBSCRIPTION_EXPIRED`, () => {
          const error = appErrorThrownBy(() => applyCommand(state(from), { type: 'update', status: to }, NOW));
          expect(error.code).toBe('SUBSCRIPTION_EXPIRED');
        });
      } else if (expected === 409) {
        it(`${from} -> ${to} is a 409 INVALID_STATUS_TRANSITION naming the current status`, () => {
          const error = appErrorThrownBy(() => applyCommand(state(from), { type: 'update', status: to }, NOW));
          expect(error.code).toBe('INVALID_STATUS_TRANSITION');
          expect(error.status).toBe(409);
          expect(error.message).toContain(`status is ${from}`);
        });
      } else if (expected === from) {
        it(`${from} -> ${to} is a no-op without a status change`, () => {
          const result = applyCommand(state(from), { type: 'update', status: to }, NOW);
          expect(result.statusChange).toBeNull();
          expect(result.next).toEqual(state(from));
        });
      } else {
        it(`${from} -> ${to} is allowed and reports the change`, () => {
          const result = applyCommand(state(from), { type: 'update', status: to }, NOW);
          expect(result.statusChange).toEqual({ from, to: expected });
          expect(result.next.status).toBe(expected);
        });
      }
    }
  }
});

describe('effects of status changes', () => {
  it('cancelling turns auto_renew off and records when it happened', () => {
    const { next } = applyCommand(state('active'), { type: 'update', status: 'cancelled' }, NOW);
    expect(next).toMatchObject({ status: 'cancelled', auto_renew: false, cancelled_at: NOW.toISOString() });
  });

  it('cancelling with a cancellation_date and reason keeps both', () => {
    const { next } = applyCommand(
      state('active'),
      {
        type: 'update',
        status: 'cancelled',
        cancellation_date: '2026-03-09T00:00:00.000Z',
        cancellation_reason: 'too_expensive',
      },
      NOW,
    );
    expect(next).toMatchObject({ cancelled_at: '2026-03-09T00:00:00.000Z', cancellation_reason: 'too_expensive' });
  });

  it('resuming a paused subscription pushes expires_at back by the time spent paused', () => {
    const { next } = applyCommand(state('paused'), { type: 'update', status: 'active' }, NOW);
    // paused 5 days (Mar 5 12:00 -> Mar 10 12:00): Apr 1 00:00 + 5 days
    expect(next).toMatchObject({ status: 'active', paused_at: null, expires_at: '2026-04-06T00:00:00.000Z' });
  });

  it('forcing expiry ends access now and stops renewal', () => {
    const { next } = applyCommand(state('active'), { type: 'update', status: 'expired' }, NOW);
    expect(next).toMatchObject({ status: 'expired', expires_at: NOW.toISOString(), auto_renew: false });
  });

  it('activating a pending_verification subscription keeps its dates', () => {
    const { next } = applyCommand(state('pending_verification'), { type: 'update', status: 'active' }, NOW);
    expect(next).toEqual({ ...state('pending_verification'), status: 'active' });
  });
});

describe('configuration updates without a status', () => {
  it('turning auto_renew off on an active subscription changes no status', () => {
    const result = applyCommand(
      state('active'),
      { type: 'update', auto_renew: false, cancellation_reason: 'user_request' },
      NOW,
    );
    expect(result.statusChange).toBeNull();
    expect(result.next).toMatchObject({ status: 'active', auto_renew: false, cancellation_reason: 'user_request' });
  });

  it('auto_renew cannot be turned back on for a cancelled subscription', () => {
    const error = appErrorThrownBy(() =>
      applyCommand(state('cancelled', { auto_renew: false }), { type: 'update', auto_renew: true }, NOW),
    );
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('a cancelled subscription still accepts a cancellation reason', () => {
    const { next } = applyCommand(state('cancelled'), { type: 'update', cancellation_reason: 'fraud' }, NOW);
    expect(next.cancellation_reason).toBe('fraud');
  });

  it('an expired subscription accepts no change at all', () => {
    expect(
      appErrorThrownBy(() => applyCommand(state('expired'), { type: 'update', auto_renew: false }, NOW)).code,
    ).toBe('SUBSCRIPTION_EXPIRED');
  });

  it('the input state is never mutated', () => {
    const current = state('paused');
    const copy = structuredClone(current);
    applyCommand(current, { type: 'update', status: 'cancelled' }, NOW);
    expect(current).toEqual(copy);
  });
});

/**
 * The lifecycle table of issue #3, written out independently of LIFECYCLE: every status x every
 * operation. A cell is the resulting status, 409 (INVALID_STATUS_TRANSITION) or EXPIRED
 * (SUBSCRIPTION_EXPIRED). "time passes" is evaluated at a moment when the transition is due.
 */
const OPERATIONS: Record<string, LifecycleCommand> = {
  renew: { type: 'renew', expires_at: '2026-05-01T00:00:00.000Z' },
  pause: { type: 'pause', duration: 10, unit: 'days' },
  resume: { type: 'resume' },
  'cancel immediate': { type: 'cancel', immediate: true, refund: false },
  'cancel at period end': { type: 'cancel', immediate: false, refund: false },
  'time passes': { type: 'time_passes' },
  'store activates': { type: 'activate', expires_at: '2026-05-01T00:00:00.000Z' },
};

const EXPECTED: Record<SubscriptionStatus, Record<string, SubscriptionStatus | 409 | 'EXPIRED'>> = {
  pending_verification: {
    renew: 409,
    pause: 409,
    resume: 409,
    'cancel immediate': 'cancelled',
    'cancel at period end': 'cancelled',
    'time passes': 'pending_verification',
    'store activates': 'active',
  },
  active: {
    renew: 'active',
    pause: 'paused',
    resume: 409,
    'cancel immediate': 'cancelled',
    'cancel at period end': 'active',
    'time passes': 'expired',
    'store activates': 409,
  },
  paused: {
    renew: 409,
    pause: 409,
    resume: 'active',
    'cancel immediate': 'cancelled',
    'cancel at period end': 'cancelled',
    'time passes': 'active',
    'store activates': 409,
  },
  cancelled: {
    renew: 409,
    pause: 409,
    resume: 409,
    'cancel immediate': 409,
    'cancel at period end': 409,
    'time passes': 'cancelled',
    'store activates': 409,
  },
  expired: {
    renew: 'EXPIRED',
    pause: 'EXPIRED',
    resume: 'EXPIRED',
    'cancel immediate': 'EXPIRED',
    'cancel at period end': 'EXPIRED',
    'time passes': 'expired',
    'store activates': 'EXPIRED',
  },
};

/** Late enough that an active subscription has expired and a pause has ended. */
const LATER = new Date('2026-04-02T00:00:00.000Z');

// applyLifecycleCommand is the table without an operator's edit rules (what the stores, the clock
// and the lifecycle endpoints run): the same answer in every cell as the entry point's.
describe.each([
  ['applyCommand', applyCommand],
  ['applyLifecycleCommand', applyLifecycleCommand],
] as const)('lifecycle: every status x every operation (%s)', (_name, decide) => {
  for (const from of SUBSCRIPTION_STATUSES) {
    for (const [name, command] of Object.entries(OPERATIONS)) {
      const expected = EXPECTED[from][name]!;
      const at = command.type === 'time_passes' ? LATER : NOW;
      it(`${from} + ${name} -> ${expected}`, () => {
        if (expected === 409 || expected === 'EXPIRED') {
          const error = appErrorThrownBy(() => decide(state(from), command, at));
          expect(error.code).toBe(expected === 409 ? 'INVALID_STATUS_TRANSITION' : 'SUBSCRIPTION_EXPIRED');
          if (expected === 409) expect(error.message).toContain(from);
          return;
        }
        const result = decide(state(from), command, at);
        expect(result.next.status).toBe(expected);
        expect(result.statusChange).toEqual(expected === from ? null : { from, to: expected });
      });
    }
  }
});

describe('lifecycle effects', () => {
  it('renew moves expires_at, records a renewal, and voids a cancellation scheduled for the period end', () => {
    const current = state('active', { auto_renew: false, cancel_at_period_end: true });
    const result = applyCommand(current, { type: 'renew', expires_at: '2026-05-01T00:00:00.000Z' }, NOW);
    expect(result).toMatchObject({ renewal: true, refund: false, statusChange: null });
    expect(result.next).toMatchObject({
      expires_at: '2026-05-01T00:00:00.000Z',
      auto_renew: true,
      cancel_at_period_end: false,
    });
  });

  it('renew to an expires_at that is not later is a 400 naming the field', () => {
    const error = appErrorThrownBy(() =>
      applyCommand(state('active'), { type: 'renew', expires_at: '2026-04-01T00:00:00.000Z' }, NOW),
    );
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.details?.[0]?.path).toBe('body.expires_at');
  });

  it.each([
    ['days', 10, '2026-03-20T12:00:00.000Z'],
    ['weeks', 2, '2026-03-24T12:00:00.000Z'],
    ['months', 1, '2026-04-10T12:00:00.000Z'],
  ] as const)('pause for %s sets paused_until = now + %i %s', (unit, duration, until) => {
    const { next } = applyCommand(state('active'), { type: 'pause', duration, unit, reason: 'travel' }, NOW);
    expect(next).toMatchObject({
      status: 'paused',
      paused_at: NOW.toISOString(),
      paused_until: until,
      pause_reason: 'travel',
    });
  });

  it('cancel at period end keeps access until expires_at, then the clock cancels it', () => {
    const scheduled = applyCommand(
      state('active'),
      { type: 'cancel', immediate: false, refund: false, reason: 'price' },
      NOW,
    ).next;
    expect(scheduled).toMatchObject({
      status: 'active',
      auto_renew: false,
      cancel_at_period_end: true,
      cancellation_reason: 'price',
      cancelled_at: NOW.toISOString(),
    });
    // Before expiry nothing happens.
    expect(applyCommand(scheduled, { type: 'time_passes' }, NOW).statusChange).toBeNull();
    const atEnd = applyCommand(scheduled, { type: 'time_passes' }, LATER);
    expect(atEnd.statusChange).toEqual({ from: 'active', to: 'cancelled' });
  });

  it('cancelling at period end twice is an idempotent repeat', () => {
    const once = applyCommand(state('active'), { type: 'cancel', immediate: false, refund: false }, NOW).next;
    const twice = applyCommand(once, { type: 'cancel', immediate: false, refund: false }, LATER);
    expect(twice.next).toEqual(once);
  });

  it('an immediate cancel with refund records the refund', () => {
    const result = applyCommand(state('active'), { type: 'cancel', immediate: true, refund: true }, NOW);
    expect(result).toMatchObject({ refund: true, renewal: false, statusChange: { from: 'active', to: 'cancelled' } });
    expect(result.next).toMatchObject({
      auto_renew: false,
      cancelled_at: NOW.toISOString(),
      refunded_at: NOW.toISOString(),
    });
  });

  it('the store activating a pending purchase that has already lapsed expires it at once', () => {
    const result = applyCommand(
      state('pending_verification'),
      { type: 'activate', expires_at: '2026-03-01T00:00:00.000Z' },
      NOW,
    );
    expect(result.statusChange).toEqual({ from: 'pending_verification', to: 'expired' });
    expect(result.next.expires_at).toBe('2026-03-01T00:00:00.000Z');
  });

  it('an active subscription does not expire before expires_at', () => {
    expect(applyCommand(state('active'), { type: 'time_passes' }, NOW).statusChange).toBeNull();
  });

  it('a pause that ends resumes at paused_until, pushing expires_at back by the whole pause', () => {
    // paused Mar 5 12:00 -> Mar 20 12:00 = 15 days; the sweeper runs later, which must not count.
    const { next, statusChange } = applyCommand(state('paused'), { type: 'time_passes' }, LATER);
    expect(statusChange).toEqual({ from: 'paused', to: 'active' });
    expect(next).toMatchObject({ paused_at: null, paused_until: null, expires_at: '2026-04-16T00:00:00.000Z' });
  });

  it('resume pushes expires_at back by the time actually paused', () => {
    const { next } = applyCommand(state('paused'), { type: 'resume' }, NOW);
    expect(next.expires_at).toBe('2026-04-06T00:00:00.000Z');
  });

  it('the sweeper looks at active subscriptions at expires_at and paused ones at paused_until only', () => {
    expect(nextTimeTransitionAt(state('active'))).toBe('2026-04-01T00:00:00.000Z');
    expect(nextTimeTransitionAt(state('paused'))).toBe('2026-03-20T12:00:00.000Z');
    for (const status of ['pending_verification', 'cancelled', 'expired'] as const)
      expect(nextTimeTransitionAt(state(status))).toBeNull();
  });
});

describe('boundaries: a moment exactly at now', () => {
  it('the store activating a purchase that lapses exactly now expires it', () => {
    const result = applyCommand(
      state('pending_verification'),
      { type: 'activate', expires_at: '2026-03-10T12:00:00.000Z' },
      NOW,
    );
    expect(result.next).toMatchObject({ status: 'expired', expires_at: '2026-03-10T12:00:00.000Z', auto_renew: false });
  });

  it('an active subscription whose expires_at is exactly now expires when the clock passes', () => {
    const result = applyCommand(
      state('active', { expires_at: '2026-03-10T12:00:00.000Z' }),
      { type: 'time_passes' },
      NOW,
    );
    expect(result.next).toMatchObject({ status: 'expired', auto_renew: false });
    expect(result.statusChange).toEqual({ from: 'active', to: 'expired' });
  });

  it('a pause whose paused_until is exactly now ends when the clock passes', () => {
    const current = state('paused', { paused_until: '2026-03-10T12:00:00.000Z' });
    const result = applyCommand(current, { type: 'time_passes' }, NOW);
    expect(result.next).toMatchObject({ status: 'active', paused_at: null, paused_until: null });
  });

  it('a pause that has not ended yet stays paused when the clock passes', () => {
    const result = applyCommand(state('paused'), { type: 'time_passes' }, NOW);
    expect(result.next).toEqual(state('paused'));
    expect(result.statusChange).toBeNull();
  });
});

describe('cancel: what is kept and what is recorded', () => {
  const scheduled = state('active', {
    auto_renew: false,
    cancel_at_period_end: true,
    cancelled_at: '2026-03-05T00:00:00.000Z',
    cancellation_reason: 'too_expensive',
  });

  it('an immediate cancel without a reason keeps the reason already recorded', () => {
    const { next } = applyCommand(scheduled, { type: 'cancel', immediate: true, refund: false }, NOW);
    expect(next.cancellation_reason).toBe('too_expensive');
  });

  it('an immediate cancel with a reason replaces the one recorded', () => {
    const { next } = applyCommand(scheduled, { type: 'cancel', immediate: true, refund: false, reason: 'moved' }, NOW);
    expect(next.cancellation_reason).toBe('moved');
  });

  it('a cancel without refund records no refund', () => {
    const result = applyCommand(state('active'), { type: 'cancel', immediate: true, refund: false }, NOW);
    expect(result.refund).toBe(false);
    expect(result.next.refunded_at).toBeNull();
  });
});

describe('refusals: code, message and details', () => {
  it('renew to an expires_at that is not later names the current expires_at', () => {
    const error = appErrorThrownBy(() =>
      applyCommand(state('active'), { type: 'renew', expires_at: '2026-03-15T00:00:00.000Z' }, NOW),
    );
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.message).toBe('expires_at must be later than the current expires_at 2026-04-01T00:00:00.000Z');
    expect(error.details).toEqual([{ path: 'body.expires_at', message: 'must be later than the current expires_at' }]);
  });

  it('any operation on an expired subscription says it has expired', () => {
    for (const command of [{ type: 'resume' }, { type: 'update', auto_renew: false }] as const) {
      const error = appErrorThrownBy(() => applyCommand(state('expired'), command, NOW));
      expect(error.code).toBe('SUBSCRIPTION_EXPIRED');
      expect(error.message).toBe('Subscription has expired and can no longer be changed');
      expect(error.details).toBeUndefined();
    }
  });

  it('a status change not allowed by hand names the target and the current status', () => {
    const error = appErrorThrownBy(() => applyCommand(state('active'), { type: 'update', status: 'paused' }, NOW));
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
    expect(error.message).toBe('Cannot change status to paused: subscription status is active');
  });

  it('turning auto_renew on for a cancelled subscription says so', () => {
    const error = appErrorThrownBy(() => applyCommand(state('cancelled'), { type: 'update', auto_renew: true }, NOW));
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
    expect(error.message).toBe('Cannot turn auto_renew on: subscription status is cancelled');
  });

  it.each([
    [
      'paused',
      { type: 'renew', expires_at: '2026-05-01T00:00:00.000Z' },
      'Cannot renew: subscription status is paused',
    ],
    ['paused', { type: 'pause', duration: 1, unit: 'days' }, 'Cannot pause: subscription status is paused'],
    ['active', { type: 'resume' }, 'Cannot resume: subscription status is active'],
    [
      'cancelled',
      { type: 'cancel', immediate: true, refund: false },
      'Cannot cancel: subscription status is cancelled',
    ],
    [
      'cancelled',
      { type: 'cancel', immediate: false, refund: false },
      'Cannot cancel: subscription status is cancelled',
    ],
    [
      'active',
      { type: 'activate', expires_at: '2026-05-01T00:00:00.000Z' },
      'Cannot activate: subscription status is active',
    ],
  ] as const)('a %s subscription refuses %o with its message', (from, command, message) => {
    const error = appErrorThrownBy(() => applyCommand(state(from), command, NOW));
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
    expect(error.message).toBe(message);
  });
});

describe('PUT effects on the scheduled cancellation and cancelled_at', () => {
  const scheduled = state('active', {
    auto_renew: false,
    cancel_at_period_end: true,
    cancelled_at: '2026-03-05T00:00:00.000Z',
    cancellation_reason: 'too_expensive',
  });

  it('cancelling by hand supersedes a cancellation scheduled for the period end', () => {
    const { next } = applyCommand(scheduled, { type: 'update', status: 'cancelled' }, NOW);
    expect(next).toMatchObject({ status: 'cancelled', cancel_at_period_end: false });
  });

  it('turning auto_renew off leaves a scheduled cancellation in place', () => {
    const { next } = applyCommand(scheduled, { type: 'update', auto_renew: false }, NOW);
    expect(next).toMatchObject({
      auto_renew: false,
      cancel_at_period_end: true,
      cancelled_at: '2026-03-05T00:00:00.000Z',
      cancellation_reason: 'too_expensive',
    });
  });

  it('turning auto_renew on withdraws a scheduled cancellation', () => {
    const { next } = applyCommand(scheduled, { type: 'update', auto_renew: true }, NOW);
    expect(next).toMatchObject({
      auto_renew: true,
      cancel_at_period_end: false,
      cancelled_at: null,
      cancellation_reason: null,
    });
  });

  it('a cancellation_date without a status change sets cancelled_at', () => {
    const current = state('cancelled', { cancelled_at: '2026-03-01T00:00:00.000Z' });
    const { next } = applyCommand(current, { type: 'update', cancellation_date: '2026-03-02T00:00:00.000Z' }, NOW);
    expect(next.cancelled_at).toBe('2026-03-02T00:00:00.000Z');
  });

  it('an update without a cancellation_date leaves cancelled_at as it was', () => {
    const current = state('cancelled', { cancelled_at: '2026-03-01T00:00:00.000Z' });
    const { next } = applyCommand(current, { type: 'update', cancellation_reason: 'moved' }, NOW);
    expect(next.cancelled_at).toBe('2026-03-01T00:00:00.000Z');
  });
});
