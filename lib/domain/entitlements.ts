/**
 * What a user may use: each entitlement of the app, decided from the user's subscriptions to the
 * products that unlock it. Pure: the caller brings the definitions, the subscriptions and the time.
 *
 * - A subscription gives access while it is active and its period, or the store's grace period
 *   after a failed renewal, has not ended (a trial is an active period too). Paused, cancelled
 *   (refunded included), expired and not yet verified subscriptions give none.
 * - A grant of the entitlement (lib/domain/grant-decisions.ts) gives access until its expires_at.
 * - An entitlement is active while any subscription of one of its products, or a grant of it,
 *   gives access. It is described by what decides it: of those giving access, the one whose access
 *   ends last; else the one whose access ended last (the user had it once); else nothing. Of two
 *   ending at the same time, the newer.
 */
import type { EntitlementState } from '../schemas/entitlement.js';
import { type GrantRecord, grantRuns } from './grant-decisions.js';
import type { StoreName } from './store-purchase.js';
import type { SubscriptionEnvironment } from './store-sync.js';
import { accessEndsAt, type SubscriptionState } from './subscription-state.js';

/** What the decision reads of a subscription. */
export interface EntitledSubscription extends SubscriptionState {
  product_id: string;
  trial_period: boolean;
  trial_expires_at: string | null;
  store: StoreName | null;
  environment: SubscriptionEnvironment;
  created_at: string;
}

export interface EntitlementDefinition {
  id: string;
  products: readonly string[];
}

/** Whether a subscription gives access now: active, within its period or the store's grace. */
export const givesAccess = (
  subscription: Pick<SubscriptionState, 'status' | 'expires_at' | 'grace_period_expires_at'>,
  now: Date,
): boolean => subscription.status === 'active' && Date.parse(accessEndsAt(subscription)) > now.getTime();

/** The state of an entitlement nothing ever unlocked for this user. */
export const NEVER_ENTITLED: EntitlementState = {
  active: false,
  product_id: null,
  expires_at: null,
  will_renew: false,
  period_type: null,
  store: null,
  environment: null,
  billing_issue_detected_at: null,
  grace_period_expires_at: null,
};

/**
 * The period that runs (or ran last) is the trial when the trial had not ended by then: now for a
 * subscription still running, its period's end for one that has ended.
 */
export function isTrial(subscription: EntitledSubscription, now: Date): boolean {
  if (!subscription.trial_period || subscription.trial_expires_at === null) return false;
  const at = Math.min(now.getTime(), Date.parse(subscription.expires_at));
  return Date.parse(subscription.trial_expires_at) >= at;
}

/** What the decision reads of a grant. */
export type EntitledGrant = Pick<GrantRecord, 'entitlement_id' | 'granted_at' | 'expires_at' | 'ended_at'>;

/** A subscription or a grant that may decide an entitlement. */
interface Candidate {
  endsAt: number;
  since: string;
  gives: boolean;
  state: (active: boolean) => EntitlementState;
}

/**
 * Later access end first; of equal ends, the newer. Of a full tie the one listed first stays, so a
 * subscription (it names the product and store) is kept over a grant.
 */
const decidesBefore = (a: Candidate, b: Candidate): boolean =>
  a.endsAt > b.endsAt || (a.endsAt === b.endsAt && a.since > b.since);

function grantState(grant: EntitledGrant, active: boolean): EntitlementState {
  return { ...NEVER_ENTITLED, active, expires_at: grant.expires_at, period_type: 'grant' };
}

function subscriptionState(subscription: EntitledSubscription, active: boolean, now: Date): EntitlementState {
  return {
    active,
    product_id: subscription.product_id,
    expires_at: subscription.expires_at,
    will_renew: active && subscription.auto_renew && !subscription.cancel_at_period_end,
    period_type: isTrial(subscription, now) ? 'trial' : 'normal',
    store: subscription.store,
    environment: subscription.environment,
    billing_issue_detected_at: subscription.billing_issue_at,
    grace_period_expires_at: subscription.grace_period_expires_at,
  };
}

/** Every entitlement of the app, by id, for a user with these subscriptions and grants. */
export function entitlementStates(
  definitions: readonly EntitlementDefinition[],
  subscriptions: readonly EntitledSubscription[],
  now: Date,
  grants: readonly EntitledGrant[] = [],
): Record<string, EntitlementState> {
  // A subscription never verified was never paid for: it neither gives nor had access.
  const paid = subscriptions.filter((subscription) => subscription.status !== 'pending_verification');
  return Object.fromEntries(
    definitions.map((definition) => {
      const candidates: Candidate[] = [
        ...paid
          .filter((subscription) => definition.products.includes(subscription.product_id))
          .map((subscription) => ({
            endsAt: Date.parse(accessEndsAt(subscription)),
            since: subscription.created_at,
            gives: givesAccess(subscription, now),
            state: (active: boolean) => subscriptionState(subscription, active, now),
          })),
        ...grants
          .filter((grant) => grant.entitlement_id === definition.id)
          .map((grant) => ({
            endsAt: Date.parse(grant.expires_at),
            since: grant.granted_at,
            gives: grantRuns(grant, now),
            state: (active: boolean) => grantState(grant, active),
          })),
      ];
      const giving = candidates.filter((candidate) => candidate.gives);
      const pool = giving.length > 0 ? giving : candidates;
      const decider = pool.reduce<Candidate | undefined>(
        (best, candidate) => (best === undefined || decidesBefore(candidate, best) ? candidate : best),
        undefined,
      );
      return [definition.id, decider ? decider.state(giving.length > 0) : NEVER_ENTITLED];
    }),
  );
}
