/**
 * The subscription state machine: every status a subscription can have and every way it may
 * change, as pure functions of (current state, command, now). No I/O: services load the record,
 * call `applyCommand` (or `applyLifecycleCommand`, the same for every command but an operator's
 * edit), and persist the result conditioned on the version they read.
 *
 * LIFECYCLE is the whole table, one row per status and one column per operation; a reader finds
 * every transition, its guard and its effect there.
 */
import { AppError } from '../core/errors.js';
import { addDays, addMonths } from './billing.js';

export const SUBSCRIPTION_STATUSES = ['pending_verification', 'active', 'paused', 'cancelled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The part of a subscription the state machine reads and writes. Timestamps are ISO strings. */
export interface SubscriptionState {
  status: SubscriptionStatus;
  expires_at: string;
  auto_renew: boolean;
  paused_at: string | null;
  /** When a paused subscription resumes by itself. */
  paused_until: string | null;
  /** Cancelled by the subscriber but paid up: stays active until expires_at, then cancelled. */
  cancel_at_period_end: boolean;
  cancelled_at: string | null;
  cancellation_reason: string | null;
  pause_reason: string | null;
  /** When the current period was refunded (cancel with refund, or by the store). */
  refunded_at: string | null;
  /** Since when the store has failed to charge the renewal (billing retry); null: no billing issue. */
  billing_issue_at: string | null;
  /** While the store retries, access continues until then (a store's grace period). */
  grace_period_expires_at: string | null;
}

/** The lifecycle fields of a subscription nothing has happened to yet. */
/** Every subscription starts so: recorded, its purchase not verified yet. */
export const INITIAL_STATUS = 'pending_verification' satisfies SubscriptionStatus;

export const INITIAL_LIFECYCLE = {
  paused_at: null,
  paused_until: null,
  cancel_at_period_end: false,
  cancelled_at: null,
  cancellation_reason: null,
  pause_reason: null,
  refunded_at: null,
  billing_issue_at: null,
  grace_period_expires_at: null,
} as const satisfies Partial<SubscriptionState>;

/**
 * What a store says about a purchase, as the state machine needs it (lib/domain/store-sync.ts
 * derives it from the store's state): the store's dates win over ours.
 */
export interface StoreFacts {
  /** The end of the period the store's latest transaction paid for. */
  expires_at: string;
  /** Whether the store will renew; null when it did not say (a receipt). */
  auto_renew: boolean | null;
  billing_issue: boolean;
  grace_period_expires_at: string | null;
  /** The store refunded (revoked) the purchase. */
  revoked: boolean;
  /** The store reversed its refund: only this gives a refunded subscription its access back. */
  refund_reversed: boolean;
  /**
   * What the store says is about an earlier period than the subscription's current one (a refund
   * of an earlier renewal, or its reversal): it moves that period's money only.
   */
  earlier_period?: boolean | undefined;
  /**
   * The store charged a new period that starts now with a transaction for another product (a plan
   * change that takes effect at once): a renewal even when it ends before the current period.
   */
  new_period?: boolean | undefined;
}

export const PAUSE_UNITS = ['days', 'weeks', 'months'] as const;
export type PauseUnit = (typeof PAUSE_UNITS)[number];

export type SubscriptionCommand =
  /** PUT /subscriptions/{id}: status and configuration set by an operator. */
  | {
      type: 'update';
      status?: SubscriptionStatus | undefined;
      auto_renew?: boolean | undefined;
      cancellation_reason?: string | undefined;
      cancellation_date?: string | undefined;
    }
  /** A paid renewal: the period now ends at expires_at (which must be later). */
  | { type: 'renew'; expires_at: string }
  | { type: 'pause'; duration: number; unit: PauseUnit; reason?: string | undefined }
  | { type: 'resume' }
  | { type: 'cancel'; immediate: boolean; refund: boolean; reason?: string | undefined }
  /** The store confirmed the purchase of a pending_verification record: its period ends at expires_at. */
  | { type: 'activate'; expires_at: string }
  /** The store's truth about the purchase (a notification, a status query, a verified receipt). */
  | { type: 'sync'; facts: StoreFacts }
  /**
   * The sweeper: apply whatever transition the clock has made due (expiry, end of a pause).
   * storeMarginMs: a store subscription that renews by itself is expired only that long after its
   * period ends, to give the store's renewal notification time to arrive.
   */
  | { type: 'time_passes'; storeMarginMs?: number | undefined };

export type Operation =
  | Exclude<SubscriptionCommand['type'], 'update' | 'cancel'>
  | 'cancel_immediate'
  | 'cancel_at_period_end';

export interface StatusChange {
  from: SubscriptionStatus;
  to: SubscriptionStatus;
}

export interface TransitionResult {
  /** The state after the command (a full state, not a patch). */
  next: SubscriptionState;
  /** Set when the status changed: exactly one status-change notification is due. */
  statusChange: StatusChange | null;
  /** Money moved: a renewal was paid, a refund was granted, or the store reversed its refund. */
  renewal: boolean;
  refund: boolean;
  refundReversed: boolean;
}

/** The commands the lifecycle table decides (an `update` is decided by MANUAL_STATUS_CHANGES). */
export type LifecycleCommand = Exclude<SubscriptionCommand, { type: 'update' }>;

/** The command an operation's rules are given. */
type CommandOf<O extends Operation> = O extends 'cancel_immediate' | 'cancel_at_period_end'
  ? Extract<SubscriptionCommand, { type: 'cancel' }>
  : Extract<SubscriptionCommand, { type: O }>;

/** What a rule changes: the state's fields, and whether money moved. */
type Patch = Partial<SubscriptionState> & Partial<Pick<TransitionResult, 'renewal' | 'refund' | 'refundReversed'>>;

/** A transition's effect, given the command of its column. */
type Effect<C extends SubscriptionCommand> = (state: SubscriptionState, command: C, now: Date) => Patch;

type Refusal =
  /** Not possible from this status: 409 INVALID_STATUS_TRANSITION naming the status. */
  | { kind: 'conflict' }
  /** Any operation on an expired subscription: SUBSCRIPTION_EXPIRED. */
  | { kind: 'expired' }
  /** Nothing changes (idempotent repeat, or nothing due yet). */
  | { kind: 'stays' };

type Rule<C extends SubscriptionCommand> = { kind: 'apply'; effect: Effect<C> } | Refusal;

const conflict: Refusal = { kind: 'conflict' };
const expired: Refusal = { kind: 'expired' };
const stays: Refusal = { kind: 'stays' };
const apply = <C extends SubscriptionCommand>(effect: Effect<C>): Rule<C> => ({ kind: 'apply', effect });

const iso = (date: Date) => date.toISOString();
const reasonOf = (command: SubscriptionCommand) => ('reason' in command ? command.reason : undefined);

/** The earlier of a period's end and now: the moment access ends when it ends now. */
// Stryker disable next-line EqualityOperator: at equality both branches are the same instant
const endsNow = (expiresAt: string, now: Date) => (Date.parse(expiresAt) > now.getTime() ? iso(now) : expiresAt);

/** No pause is running: its fields go together, so none is left behind. */
const NOT_PAUSED = { paused_at: null, paused_until: null, pause_reason: null } as const;

/** A cancellation scheduled for the period end is withdrawn (renewed, or renewal turned back on). */
const withdrawScheduledCancel = (state: SubscriptionState): Partial<SubscriptionState> =>
  state.cancel_at_period_end ? { cancel_at_period_end: false, cancelled_at: null, cancellation_reason: null } : {};

/**
 * Cancelled now: access ends (expires_at is the cancellation time, so a consumer granting access
 * by expires_at stops too), renewal stops, and a cancellation scheduled for later is superseded.
 * A cancellation's or a store's refund (sync) alike.
 */
const cancelledNow: Effect<SubscriptionCommand> = (state, command, now) => ({
  status: 'cancelled',
  auto_renew: false,
  ...NOT_PAUSED,
  expires_at: endsNow(state.expires_at, now),
  cancel_at_period_end: false,
  cancelled_at: iso(now),
  cancellation_reason: reasonOf(command) ?? state.cancellation_reason,
  ...(command.type === 'cancel' && command.refund ? { refunded_at: iso(now), refund: true } : {}),
});
const cancelNow = apply(cancelledNow);

/** Resumed: the subscriber keeps the time they had left when the pause began. */
function resumed(state: SubscriptionState, at: Date): Partial<SubscriptionState> {
  const pausedMs = state.paused_at ? Math.max(0, at.getTime() - Date.parse(state.paused_at)) : 0;
  return { status: 'active', ...NOT_PAUSED, expires_at: iso(new Date(Date.parse(state.expires_at) + pausedMs)) };
}

/** When access ends: the period's end, or the end of the store's grace period when that is later. */
export function accessEndsAt(state: Pick<SubscriptionState, 'expires_at' | 'grace_period_expires_at'>): string {
  const grace = state.grace_period_expires_at;
  return grace !== null && Date.parse(grace) > Date.parse(state.expires_at) ? grace : state.expires_at;
}

/** The store took the money back: access ends now, with a refund (of a running or an ended subscription). */
const refundedByStore = (state: SubscriptionState, now: Date) =>
  state.refunded_at === null ? { refunded_at: iso(now), refund: true, cancellation_reason: 'refunded_by_store' } : {};

/**
 * The store reversed the refund it granted (Apple's REFUND_REVERSED): the subscription is as if it
 * had never been refunded: the money is back, and a subscription the refund cancelled runs again to
 * the store's period end (expired if that has passed). A subscription cancelled before the refund
 * (cancelled_at earlier than refunded_at) was not ended by it and stays cancelled.
 */
function refundReversal(state: SubscriptionState, facts: StoreFacts, now: Date): Patch {
  if (!facts.refund_reversed || facts.revoked || state.refunded_at === null) return {};
  const reversed = { refunded_at: null, cancellation_reason: null, refundReversed: true };
  if (state.status !== 'cancelled' || state.cancelled_at !== state.refunded_at) return reversed;
  // The refund cut the period short when it was granted; its end is the store's again (not a renewal).
  return {
    ...syncedWithStore({ ...state, expires_at: facts.expires_at }, facts, now),
    ...reversed,
    cancelled_at: null,
  };
}

/**
 * The store's truth over a running subscription: its period is the store's (the caller never
 * brings a state older than one applied: lib/domain/store-sync.ts), renewal follows the store, and
 * access lasts to the end of the period or of the grace period. Access already over is an expiry.
 */
function syncedWithStore(state: SubscriptionState, facts: StoreFacts, now: Date): Patch {
  // A later period than the one recorded was paid for, or a new one that starts now: a renewal.
  const renewal = facts.new_period === true || Date.parse(facts.expires_at) > Date.parse(state.expires_at);
  const autoRenew = facts.auto_renew ?? (renewal ? true : state.auto_renew);
  const billing = facts.billing_issue
    ? { billing_issue_at: state.billing_issue_at ?? iso(now), grace_period_expires_at: facts.grace_period_expires_at }
    : { billing_issue_at: null, grace_period_expires_at: null };
  const next = { expires_at: facts.expires_at, ...billing };
  const ends = Date.parse(accessEndsAt(next));
  return {
    ...next,
    auto_renew: autoRenew,
    ...(autoRenew ? withdrawScheduledCancel(state) : {}),
    ...(ends > now.getTime()
      ? { status: 'active', renewal }
      : { status: 'expired', auto_renew: false, cancel_at_period_end: false }),
  };
}

export function pauseEnd(now: Date, duration: number, unit: PauseUnit): Date {
  if (unit === 'months') return addMonths(now, duration);
  return addDays(now, unit === 'weeks' ? duration * 7 : duration);
}

/** One status's row: a rule per operation, each given its own command. */
type LifecycleRow = { readonly [O in Operation]: Rule<CommandOf<O>> };

export const LIFECYCLE: Readonly<Record<SubscriptionStatus, LifecycleRow>> = {
  pending_verification: {
    renew: conflict,
    pause: conflict,
    resume: conflict,
    cancel_immediate: cancelNow,
    cancel_at_period_end: cancelNow, // nothing was paid for: there is no period to run out
    // The store's dates win; a purchase the store says has already lapsed is expired at once.
    activate: apply((_state, { expires_at: expiresAt }, now) =>
      Date.parse(expiresAt) > now.getTime()
        ? { status: 'active', expires_at: expiresAt }
        : { status: 'expired', expires_at: expiresAt, auto_renew: false },
    ),
    // The store's first word on a purchase recorded before it was verified.
    sync: apply((state, command, now) => {
      const { facts } = command;
      if (facts.revoked) return cancelledNow(state, command, now);
      // Its dates are ours until the store's replace them: the activation is the payment, not a renewal.
      const { renewal: _activation, ...synced } = syncedWithStore(
        { ...state, expires_at: new Date(0).toISOString() },
        facts,
        now,
      );
      return synced;
    }),
    time_passes: stays,
  },
  active: {
    renew: apply((state, { expires_at: expiresAt }) => {
      if (Date.parse(expiresAt) <= Date.parse(state.expires_at)) {
        throw new AppError(
          'INVALID_PARAMETER',
          `expires_at must be later than the current expires_at ${state.expires_at}`,
          {
            details: [{ path: 'body.expires_at', message: 'must be later than the current expires_at' }],
          },
        );
      }
      // A paid renewal continues the subscription: a scheduled cancellation is void.
      return { expires_at: expiresAt, ...withdrawScheduledCancel(state), auto_renew: true, renewal: true };
    }),
    pause: apply((_state, { duration, unit, reason }, now) => ({
      status: 'paused',
      paused_at: iso(now),
      paused_until: iso(pauseEnd(now, duration, unit)),
      pause_reason: reason ?? null,
    })),
    resume: conflict,
    cancel_immediate: cancelNow,
    activate: conflict,
    cancel_at_period_end: apply((state, command, now) => ({
      auto_renew: false,
      cancel_at_period_end: true,
      cancelled_at: state.cancelled_at ?? iso(now),
      cancellation_reason: reasonOf(command) ?? state.cancellation_reason,
    })),
    sync: apply((state, command, now) => {
      if (command.facts.revoked) return { ...cancelledNow(state, command, now), ...refundedByStore(state, now) };
      return syncedWithStore(state, command.facts, now);
    }),
    time_passes: apply((state, command, now) => {
      const margin = state.auto_renew ? (command.storeMarginMs ?? 0) : 0;
      if (Date.parse(accessEndsAt(state)) + margin > now.getTime()) return {};
      return state.cancel_at_period_end
        ? { status: 'cancelled', auto_renew: false }
        : { status: 'expired', auto_renew: false };
    }),
  },
  paused: {
    renew: conflict,
    pause: conflict,
    resume: apply((state, _command, now) => resumed(state, now)),
    cancel_immediate: cancelNow,
    cancel_at_period_end: cancelNow, // a paused subscription has no running period to finish
    activate: conflict,
    // Paused by the app, not the store: only a refund changes it.
    sync: apply((state, command, now) =>
      command.facts.revoked ? { ...cancelledNow(state, command, now), ...refundedByStore(state, now) } : {},
    ),
    time_passes: apply((state, _command, now) => {
      if (!state.paused_until || Date.parse(state.paused_until) > now.getTime()) return {};
      // Resumes at paused_until, not at the (later) moment the sweeper runs.
      return resumed(state, new Date(state.paused_until));
    }),
  },
  cancelled: {
    renew: conflict,
    pause: conflict,
    resume: conflict,
    cancel_immediate: conflict,
    cancel_at_period_end: conflict,
    activate: conflict,
    sync: apply((state, { facts }, now) =>
      facts.revoked ? refundedByStore(state, now) : refundReversal(state, facts, now),
    ),
    time_passes: stays,
  },
  expired: {
    renew: expired,
    pause: expired,
    resume: expired,
    cancel_immediate: expired,
    cancel_at_period_end: expired,
    activate: expired,
    // A refund after the end still takes the money back; a store that charged after all (billing
    // recovery) renews the same subscription: a recovery is never a new subscription.
    sync: apply((state, { facts }, now) => {
      if (facts.revoked) return refundedByStore(state, now);
      if (state.refunded_at !== null) return refundReversal(state, facts, now);
      if (state.billing_issue_at === null || facts.billing_issue) return {};
      const synced = syncedWithStore(state, facts, now);
      // Stryker disable next-line ConditionalExpression: syncedWithStore sets renewal only on an active result, so renewal alone decides
      const active = synced.status === 'active';
      if (active && synced.renewal) return synced;
      // The store retries no more and charged nothing (Apple's EXPIRED BILLING_RETRY): the billing
      // issue is over, so a later purchase is a resubscription (a new subscription), not a recovery.
      return { billing_issue_at: null, grace_period_expires_at: null };
    }),
    time_passes: stays,
  },
};

/**
 * Status changes an operator may make by hand with PUT /v1/subscriptions/{id} {status}.
 * A target equal to the current status is accepted as a no-op (PUT is idempotent).
 */
export const MANUAL_STATUS_CHANGES: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  // Activation by hand (e.g. verified out of band) or abandonment of an unverified purchase.
  pending_verification: ['active', 'cancelled'],
  // Cancellation, forced expiry (access ends now), or a pause (as POST /pause with no end).
  active: ['cancelled', 'expired'],
  // Resume early (expires_at moves back by the time spent paused) or cancel.
  paused: ['active', 'cancelled'],
  // Terminal states: a new purchase makes a new subscription.
  cancelled: [],
  expired: [],
};

/** Statuses in which the subscription may still renew by itself. */
const RENEWABLE: readonly SubscriptionStatus[] = ['pending_verification', 'active', 'paused'];

function invalidTransition(from: SubscriptionStatus, what: string): AppError {
  return new AppError('INVALID_STATUS_TRANSITION', `Cannot ${what}: subscription status is ${from}`);
}

const subscriptionExpired = () =>
  new AppError('SUBSCRIPTION_EXPIRED', 'Subscription has expired and can no longer be changed');

function manualStatusChange(
  current: SubscriptionState,
  to: SubscriptionStatus,
  cancellationDate: string | undefined,
  now: Date,
): Partial<SubscriptionState> {
  switch (to) {
    case 'active':
      // Stryker disable next-line ConditionalExpression: without a pause, resumed() changes nothing
      return current.status === 'paused' ? resumed(current, now) : { status: 'active' };
    case 'cancelled':
      return {
        status: 'cancelled',
        auto_renew: false,
        ...NOT_PAUSED,
        expires_at: endsNow(current.expires_at, now),
        cancel_at_period_end: false,
        cancelled_at: cancellationDate ?? iso(now),
      };
    case 'expired':
      return {
        status: 'expired',
        auto_renew: false,
        cancel_at_period_end: false,
        expires_at: endsNow(current.expires_at, now),
      };
    default:
      // Stryker disable next-line ObjectLiteral: unreachable, MANUAL_STATUS_CHANGES targets only the cases above
      return { status: to };
  }
}

function applyUpdate(
  current: SubscriptionState,
  command: Extract<SubscriptionCommand, { type: 'update' }>,
  now: Date,
): Partial<SubscriptionState> {
  if (current.status === 'expired') throw subscriptionExpired();
  let next: Partial<SubscriptionState> = {};
  if (command.status !== undefined && command.status !== current.status) {
    if (!MANUAL_STATUS_CHANGES[current.status].includes(command.status)) {
      throw invalidTransition(current.status, `change status to ${command.status}`);
    }
    next = manualStatusChange(current, command.status, command.cancellation_date, now);
  }
  const status = next.status ?? current.status;
  if (command.auto_renew !== undefined) {
    if (command.auto_renew && !RENEWABLE.includes(status)) throw invalidTransition(status, 'turn auto_renew on');
    next.auto_renew = command.auto_renew;
    // Turning renewal back on withdraws a cancellation scheduled for the period end.
    if (command.auto_renew) Object.assign(next, withdrawScheduledCancel(current));
  }
  if (command.cancellation_reason !== undefined) next.cancellation_reason = command.cancellation_reason;
  if (command.cancellation_date !== undefined) next.cancelled_at = command.cancellation_date;
  return next;
}

function operationOf(command: LifecycleCommand): Operation {
  if (command.type === 'cancel') return command.immediate ? 'cancel_immediate' : 'cancel_at_period_end';
  return command.type;
}

const operationLabel: Record<Operation, string> = {
  renew: 'renew',
  pause: 'pause',
  resume: 'resume',
  cancel_immediate: 'cancel',
  cancel_at_period_end: 'cancel',
  activate: 'activate',
  // Stryker disable next-line StringLiteral: unreachable, sync is never a conflict in LIFECYCLE
  sync: 'apply the store state to',
  // Stryker disable next-line StringLiteral: unreachable, time_passes is never a conflict in LIFECYCLE
  time_passes: 'expire',
};

/** What the row's rule for this operation makes of the command; its command is the one its column takes. */
function followRule<O extends Operation>(
  row: LifecycleRow,
  operation: O,
  current: SubscriptionState,
  command: CommandOf<O>,
  now: Date,
): Patch {
  const rule: Rule<CommandOf<O>> = row[operation];
  switch (rule.kind) {
    case 'conflict':
      throw invalidTransition(current.status, operationLabel[operation]);
    case 'expired':
      throw subscriptionExpired();
    case 'stays':
      return {};
    case 'apply':
      return rule.effect(current, command, now);
  }
}

/** The one entry point for changing a subscription's state. Throws AppError when not allowed. */
export function applyCommand(current: SubscriptionState, command: SubscriptionCommand, now: Date): TransitionResult {
  return command.type === 'update'
    ? transitionOf(current, applyUpdate(current, command, now))
    : applyLifecycleCommand(current, command, now);
}

/**
 * A command of the lifecycle table (every command but an operator's `update`): what the stores,
 * the clock and the lifecycle endpoints do, decided without the operator's edit rules, so that
 * functions that never edit a subscription do not carry them.
 */
export function applyLifecycleCommand(
  current: SubscriptionState,
  command: LifecycleCommand,
  now: Date,
): TransitionResult {
  if (command.type === 'sync' && command.facts.earlier_period) {
    // Whatever the status: the lifecycle follows the current period, which an earlier one's refund leaves as it is.
    const { revoked, refund_reversed } = command.facts;
    return transitionOf(current, { refund: revoked, refundReversed: refund_reversed && !revoked });
  }
  return transitionOf(current, followRule(LIFECYCLE[current.status], operationOf(command), current, command, now));
}

function transitionOf(current: SubscriptionState, patch: Patch): TransitionResult {
  const { renewal = false, refund = false, refundReversed = false, ...changes } = patch;
  const next: SubscriptionState = { ...current, ...changes };
  const statusChange = next.status !== current.status ? { from: current.status, to: next.status } : null;
  return { next, statusChange, renewal, refund, refundReversed };
}

/**
 * When the sweeper must next look at this subscription, or null when time alone changes nothing.
 * storeMarginMs: as time_passes's, for a store subscription.
 */
export function nextTimeTransitionAt(state: SubscriptionState, storeMarginMs = 0): string | null {
  if (state.status === 'active') {
    const margin = state.auto_renew ? storeMarginMs : 0;
    return new Date(Date.parse(accessEndsAt(state)) + margin).toISOString();
  }
  // Stryker disable next-line ConditionalExpression: paused_until is null outside paused (lifecycle-stale-fields)
  if (state.status === 'paused') return state.paused_until;
  return null;
}
