import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.js';
import {
  applyCommand,
  MANUAL_STATUS_CHANGES,
  SUBSCRIPTION_STATUSES,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../../lib/domain/subscription-state.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');

function state(status: SubscriptionStatus, overrides: Partial<SubscriptionState> = {}): SubscriptionState {
  return {
    status,
    expires_at: '2026-04-01T00:00:00.000Z',
    auto_renew: true,
    paused_at: status === 'paused' ? '2026-03-05T12:00:00.000Z' : null,
    cancelled_at: null,
    cancellation_reason: null,
    ...overrides,
  };
}

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('PUT status: every current status x every target status', () => {
  for (const from of SUBSCRIPTION_STATUSES) {
    for (const to of SUBSCRIPTION_STATUSES) {
      const allowed = MANUAL_STATUS_CHANGES[from].includes(to);
      if (from === 'expired') {
        it(`expired -> ${to} is SUBSCRIPTION_EXPIRED`, () => {
          expect(errorOf(() => applyCommand(state(from), { type: 'update', status: to }, NOW)).code).toBe('SUBSCRIPTION_EXPIRED');
        });
      } else if (from === to) {
        it(`${from} -> ${to} is a no-op without a status change`, () => {
          const result = applyCommand(state(from), { type: 'update', status: to }, NOW);
          expect(result.statusChange).toBeNull();
          expect(result.next).toEqual(state(from));
        });
      } else if (allowed) {
        it(`${from} -> ${to} is allowed and reports the change`, () => {
          const result = applyCommand(state(from), { type: 'update', status: to }, NOW);
          expect(result.statusChange).toEqual({ from, to });
          expect(result.next.status).toBe(to);
        });
      } else {
        it(`${from} -> ${to} is a 409 INVALID_STATUS_TRANSITION naming the current status`, () => {
          const error = errorOf(() => applyCommand(state(from), { type: 'update', status: to }, NOW));
          expect(error.code).toBe('INVALID_STATUS_TRANSITION');
          expect(error.status).toBe(409);
          expect(error.message).toContain(from);
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
      { type: 'update', status: 'cancelled', cancellation_date: '2026-03-09T00:00:00.000Z', cancellation_reason: 'too_expensive' },
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
    const result = applyCommand(state('active'), { type: 'update', auto_renew: false, cancellation_reason: 'user_request' }, NOW);
    expect(result.statusChange).toBeNull();
    expect(result.next).toMatchObject({ status: 'active', auto_renew: false, cancellation_reason: 'user_request' });
  });

  it('auto_renew cannot be turned back on for a cancelled subscription', () => {
    const error = errorOf(() => applyCommand(state('cancelled', { auto_renew: false }), { type: 'update', auto_renew: true }, NOW));
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('a cancelled subscription still accepts a cancellation reason', () => {
    const { next } = applyCommand(state('cancelled'), { type: 'update', cancellation_reason: 'fraud' }, NOW);
    expect(next.cancellation_reason).toBe('fraud');
  });

  it('an expired subscription accepts no change at all', () => {
    expect(errorOf(() => applyCommand(state('expired'), { type: 'update', auto_renew: false }, NOW)).code).toBe('SUBSCRIPTION_EXPIRED');
  });

  it('the input state is never mutated', () => {
    const current = state('paused');
    const copy = structuredClone(current);
    applyCommand(current, { type: 'update', status: 'cancelled' }, NOW);
    expect(current).toEqual(copy);
  });
});
