/**
 * The subscription state machine: every status a subscription can have and every way it may
 * change, as pure functions of (current state, command, now). No I/O: services load the
 * record, call `applyCommand`, and persist the result conditioned on the version they read.
 */
import { AppError } from '../errors.js';

export const SUBSCRIPTION_STATUSES = ['pending_verification', 'active', 'paused', 'cancelled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The part of a subscription the state machine reads and writes. Timestamps are ISO strings. */
export interface SubscriptionState {
  status: SubscriptionStatus;
  expires_at: string;
  auto_renew: boolean;
  paused_at: string | null;
  cancelled_at: string | null;
  cancellation_reason: string | null;
}

/**
 * Status changes an operator may make by hand with PUT /v1/subscriptions/{id} {status}.
 * A target equal to the current status is accepted as a no-op (PUT is idempotent).
 */
export const MANUAL_STATUS_CHANGES: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  // Activation by hand (e.g. verified out of band) or abandonment of an unverified purchase.
  pending_verification: ['active', 'cancelled'],
  // Immediate cancellation, or forced expiry (access ends now).
  active: ['cancelled', 'expired'],
  // Resume early (expires_at moves back by the time spent paused) or cancel.
  paused: ['active', 'cancelled'],
  // Terminal states: a new purchase makes a new subscription.
  cancelled: [],
  expired: [],
};

/** Statuses in which the subscription may still renew by itself. */
const RENEWABLE: readonly SubscriptionStatus[] = ['pending_verification', 'active', 'paused'];

export interface UpdateCommand {
  type: 'update';
  status?: SubscriptionStatus | undefined;
  auto_renew?: boolean | undefined;
  cancellation_reason?: string | undefined;
  /** When the cancellation happened (defaults to now when the status becomes cancelled). */
  cancellation_date?: string | undefined;
}

export type SubscriptionCommand = UpdateCommand;

export interface StatusChange {
  from: SubscriptionStatus;
  to: SubscriptionStatus;
}

export interface TransitionResult {
  /** The state after the command (a full state, not a patch). */
  next: SubscriptionState;
  /** Set when the status changed: a status-change notification is due. */
  statusChange: StatusChange | null;
}

function invalidTransition(from: SubscriptionStatus, what: string): AppError {
  return new AppError(
    'INVALID_STATUS_TRANSITION',
    `Cannot ${what}: subscription status is ${from}`,
  );
}

function changeStatus(
  current: SubscriptionState,
  to: SubscriptionStatus,
  command: UpdateCommand,
  now: Date,
): SubscriptionState {
  const nowIso = now.toISOString();
  const next: SubscriptionState = { ...current, status: to };
  switch (to) {
    case 'active':
      if (current.status === 'paused' && current.paused_at) {
        // Resume: the subscriber keeps the time they had left when the pause began.
        const pausedMs = now.getTime() - new Date(current.paused_at).getTime();
        next.expires_at = new Date(new Date(current.expires_at).getTime() + Math.max(0, pausedMs)).toISOString();
      }
      next.paused_at = null;
      break;
    case 'cancelled':
      next.auto_renew = false;
      next.paused_at = null;
      next.cancelled_at = command.cancellation_date ?? nowIso;
      break;
    case 'expired':
      next.auto_renew = false;
      if (new Date(current.expires_at).getTime() > now.getTime()) next.expires_at = nowIso;
      break;
    case 'paused':
      next.paused_at = nowIso;
      break;
    case 'pending_verification':
      break;
  }
  return next;
}

function applyUpdate(current: SubscriptionState, command: UpdateCommand, now: Date): TransitionResult {
  if (current.status === 'expired') {
    throw new AppError('SUBSCRIPTION_EXPIRED', 'Subscription has expired and can no longer be changed');
  }
  let next: SubscriptionState = { ...current };
  let statusChange: StatusChange | null = null;

  if (command.status !== undefined && command.status !== current.status) {
    if (!MANUAL_STATUS_CHANGES[current.status].includes(command.status)) {
      throw invalidTransition(current.status, `change status to ${command.status}`);
    }
    next = changeStatus(current, command.status, command, now);
    statusChange = { from: current.status, to: command.status };
  }

  if (command.auto_renew !== undefined) {
    if (command.auto_renew && !RENEWABLE.includes(next.status)) {
      throw invalidTransition(next.status, 'turn auto_renew on');
    }
    next.auto_renew = command.auto_renew;
  }
  if (command.cancellation_reason !== undefined) next.cancellation_reason = command.cancellation_reason;
  if (command.cancellation_date !== undefined) next.cancelled_at = command.cancellation_date;

  return { next, statusChange };
}

/** The one entry point for changing a subscription's state. Throws AppError when not allowed. */
export function applyCommand(current: SubscriptionState, command: SubscriptionCommand, now: Date): TransitionResult {
  switch (command.type) {
    case 'update':
      return applyUpdate(current, command, now);
  }
}
