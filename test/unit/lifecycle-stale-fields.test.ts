/**
 * No transition leaves a field saying something the status no longer means. Every status, in
 * every shape it can really have (a scheduled cancellation, a pause with a reason, a refund...),
 * goes through every operation and every PUT; each state that comes out is checked against the
 * rules below, written down here rather than read from the production table.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import {
  applyCommand,
  INITIAL_LIFECYCLE,
  type SubscriptionCommand,
  type SubscriptionState,
} from '../../lib/domain/subscription-state.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const FUTURE = '2026-04-01T00:00:00.000Z';
const PAST = '2026-03-01T00:00:00.000Z';

const base: SubscriptionState = { ...INITIAL_LIFECYCLE, status: 'active', expires_at: FUTURE, auto_renew: true };

/** Every shape a subscription of each status can be found in (all reachable through the API). */
const STARTING_STATES: Record<string, SubscriptionState> = {
  pending_verification: { ...base, status: 'pending_verification' },
  active: base,
  'active, past its expires_at (not swept yet)': { ...base, expires_at: PAST },
  'active, cancellation scheduled for the period end': {
    ...base,
    auto_renew: false,
    cancel_at_period_end: true,
    cancelled_at: '2026-03-05T00:00:00.000Z',
    cancellation_reason: 'too_expensive',
  },
  'active, cancellation scheduled, period over (not swept yet)': {
    ...base,
    expires_at: PAST,
    auto_renew: false,
    cancel_at_period_end: true,
    cancelled_at: '2026-02-20T00:00:00.000Z',
    cancellation_reason: 'too_expensive',
  },
  'paused, with a reason': {
    ...base,
    status: 'paused',
    paused_at: '2026-03-05T12:00:00.000Z',
    paused_until: '2026-03-20T12:00:00.000Z',
    pause_reason: 'travelling',
  },
  'paused, its pause over (not swept yet)': {
    ...base,
    status: 'paused',
    paused_at: '2026-03-01T12:00:00.000Z',
    paused_until: '2026-03-08T12:00:00.000Z',
    pause_reason: 'travelling',
  },
  'cancelled (refunded)': {
    ...base,
    status: 'cancelled',
    auto_renew: false,
    expires_at: PAST,
    cancelled_at: PAST,
    refunded_at: PAST,
  },
  expired: { ...base, status: 'expired', auto_renew: false, expires_at: PAST },
};

const COMMANDS: Record<string, SubscriptionCommand> = {
  renew: { type: 'renew', expires_at: '2026-05-01T00:00:00.000Z' },
  pause: { type: 'pause', duration: 7, unit: 'days', reason: 'holiday' },
  resume: { type: 'resume' },
  'cancel immediately': { type: 'cancel', immediate: true, refund: false },
  'cancel immediately with a refund': { type: 'cancel', immediate: true, refund: true },
  'cancel at period end': { type: 'cancel', immediate: false, refund: false, reason: 'other' },
  activate: { type: 'activate', expires_at: FUTURE },
  'activate a lapsed purchase': { type: 'activate', expires_at: PAST },
  'time passes': { type: 'time_passes' },
  'PUT status active': { type: 'update', status: 'active' },
  'PUT status cancelled': { type: 'update', status: 'cancelled' },
  'PUT status expired': { type: 'update', status: 'expired' },
  'PUT auto_renew true': { type: 'update', auto_renew: true },
  'PUT auto_renew false': { type: 'update', auto_renew: false },
};

/** What must hold of every state a transition produces; each rule returns the broken fields. */
function staleFields(next: SubscriptionState): string[] {
  const broken: string[] = [];
  const ended = next.status === 'cancelled' || next.status === 'expired';
  if (ended) {
    // Access has ended: nothing may suggest it continues.
    if (Date.parse(next.expires_at) > NOW.getTime()) broken.push('expires_at in the future on an ended subscription');
    if (next.auto_renew) broken.push('auto_renew on an ended subscription');
  }
  if (
    next.status !== 'paused' &&
    (next.paused_at !== null || next.paused_until !== null || next.pause_reason !== null)
  ) {
    broken.push('pause fields on a subscription that is not paused');
  }
  if (next.status === 'paused' && (next.paused_at === null || next.paused_until === null))
    broken.push('paused without paused_at/paused_until');
  if (next.status === 'active') {
    // An active subscription is cancelled only as a scheduled cancellation, and then renews no more.
    if (next.cancel_at_period_end !== (next.cancelled_at !== null))
      broken.push('cancelled_at and cancel_at_period_end disagree on an active subscription');
    if (next.cancel_at_period_end && next.auto_renew) broken.push('auto_renew on with a cancellation scheduled');
    if (!next.cancel_at_period_end && next.cancellation_reason !== null)
      broken.push('cancellation_reason on an active subscription with no cancellation');
  }
  if (next.status === 'expired' && next.cancel_at_period_end)
    broken.push('cancel_at_period_end on an expired subscription');
  if (next.status === 'cancelled' && next.cancelled_at === null) broken.push('cancelled without cancelled_at');
  if (next.refunded_at !== null && next.status !== 'cancelled')
    broken.push('refunded_at on a subscription that is not cancelled');
  return broken;
}

describe('no transition leaves a stale field', () => {
  for (const [stateName, start] of Object.entries(STARTING_STATES)) {
    it(`starting state "${stateName}" is itself consistent`, () => {
      // time_passes has not run yet on the overdue shapes; everything else must hold already.
      expect(staleFields(start).filter((rule) => !rule.startsWith('expires_at in the future'))).toEqual([]);
    });
    for (const [commandName, command] of Object.entries(COMMANDS)) {
      it(`${stateName} + ${commandName}`, () => {
        let next: SubscriptionState;
        try {
          next = applyCommand(start, command, NOW).next;
        } catch (error) {
          // Refused transitions change nothing; only their code matters here.
          expect(error).toBeInstanceOf(AppError);
          return;
        }
        expect(staleFields(next)).toEqual([]);
      });
    }
  }
});

describe('an immediate cancel after a scheduled one', () => {
  const scheduled = STARTING_STATES['active, cancellation scheduled for the period end']!;

  it('ends access now: expires_at is the cancellation time and the scheduled flag is cleared', () => {
    const { next, statusChange } = applyCommand(scheduled, { type: 'cancel', immediate: true, refund: false }, NOW);
    expect(statusChange).toEqual({ from: 'active', to: 'cancelled' });
    expect(next).toMatchObject({
      status: 'cancelled',
      expires_at: '2026-03-10T12:00:00.000Z',
      cancel_at_period_end: false,
      cancelled_at: '2026-03-10T12:00:00.000Z',
      auto_renew: false,
    });
  });

  it('keeps an expires_at already in the past (access ended then, not now)', () => {
    const lapsed = STARTING_STATES['active, cancellation scheduled, period over (not swept yet)']!;
    const { next } = applyCommand(lapsed, { type: 'cancel', immediate: true, refund: false }, NOW);
    expect(next.expires_at).toBe(PAST);
  });

  it('a scheduled cancellation that ran to its period end keeps saying so', () => {
    const lapsed = STARTING_STATES['active, cancellation scheduled, period over (not swept yet)']!;
    const { next } = applyCommand(lapsed, { type: 'time_passes' }, NOW);
    expect(next).toMatchObject({
      status: 'cancelled',
      cancel_at_period_end: true,
      expires_at: PAST,
      cancelled_at: '2026-02-20T00:00:00.000Z',
    });
  });
});

describe('withdrawing a scheduled cancellation', () => {
  const scheduled = STARTING_STATES['active, cancellation scheduled for the period end']!;

  it('a renewal clears when and why it was to be cancelled', () => {
    const { next } = applyCommand(scheduled, { type: 'renew', expires_at: '2026-05-01T00:00:00.000Z' }, NOW);
    expect(next).toMatchObject({
      cancel_at_period_end: false,
      cancelled_at: null,
      cancellation_reason: null,
      auto_renew: true,
    });
  });

  it('turning auto_renew back on clears them too', () => {
    const { next } = applyCommand(scheduled, { type: 'update', auto_renew: true }, NOW);
    expect(next).toMatchObject({
      cancel_at_period_end: false,
      cancelled_at: null,
      cancellation_reason: null,
      auto_renew: true,
    });
  });
});
