/**
 * Segment membership (pure), evaluated on read from what is known about a user: built-in segments
 * from activity and subscriptions, and the app's rule segments.
 */

import { BUILT_IN_SEGMENTS, type BuiltInSegment, type Segment, type SegmentCondition } from '../schemas/segment.js';
import type { SubscriptionStatus } from './subscription-state.js';

export interface UserFacts {
  first_seen: string | null;
  last_seen: string | null;
  attributes: Record<string, unknown>;
  custom_properties: Record<string, unknown>;
  counters: { total_sessions: number; order_count: number; conversion_count: number; features_used: number };
  attribution_network: string | null;
  subscriptions: { status: SubscriptionStatus; trial_period: boolean; trial_expires_at: string | null }[];
}

const DAY_MS = 86_400_000;
const daysSince = (iso: string | null, now: Date) => (iso ? (now.getTime() - Date.parse(iso)) / DAY_MS : null);

export function builtInSegments(facts: UserFacts, now: Date): BuiltInSegment[] {
  // Why each built-in segment holds (docs/api.md lists the same definitions).
  const holds: Record<BuiltInSegment, (facts: UserFacts, now: Date) => boolean> = {
    /** First seen in the last 7 days. */
    new_user: (f, now) => (daysSince(f.first_seen, now) ?? Infinity) <= 7,
    /** Seen (any report) in the last 7 days. */
    active_7d: (f, now) => (daysSince(f.last_seen, now) ?? Infinity) <= 7,
    /** Known, but not seen for more than 30 days. */
    dormant_30d: (f, now) => (daysSince(f.last_seen, now) ?? 0) > 30,
    /** An active subscription still in its free trial. */
    trialing: (f, now) =>
      f.subscriptions.some(
        (s) =>
          s.status === 'active' &&
          s.trial_period &&
          s.trial_expires_at !== null &&
          Date.parse(s.trial_expires_at) > now.getTime(),
      ),
    /** An active or paused subscription past any trial. */
    paying: (f, now) =>
      f.subscriptions.some(
        (s) =>
          (s.status === 'active' || s.status === 'paused') &&
          !(s.trial_period && s.trial_expires_at !== null && Date.parse(s.trial_expires_at) > now.getTime()),
      ),
    /** Had subscriptions, all of them ended (expired or cancelled). */
    churned: (f) =>
      f.subscriptions.length > 0 && f.subscriptions.every((s) => s.status === 'expired' || s.status === 'cancelled'),
    /** Never had a subscription. */
    never_subscribed: (f) => f.subscriptions.length === 0,
  };
  return BUILT_IN_SEGMENTS.filter((id) => holds[id](facts, now));
}

function fieldValues(facts: UserFacts, field: string, now: Date): unknown[] {
  const [scope, name] = field.split('.') as [string, string | undefined];
  switch (scope) {
    case 'attributes':
      return facts.attributes[name!] === undefined ? [] : [facts.attributes[name!]];
    case 'custom_properties':
      return facts.custom_properties[name!] === undefined ? [] : [facts.custom_properties[name!]];
    case 'counters':
      return [facts.counters[name as keyof UserFacts['counters']] ?? 0];
    case 'subscription':
      return facts.subscriptions.map((s) => s.status);
    case 'days_since_first_seen':
      return facts.first_seen ? [daysSince(facts.first_seen, now)] : [];
    case 'days_since_last_seen':
      return facts.last_seen ? [daysSince(facts.last_seen, now)] : [];
    case 'attribution':
      return facts.attribution_network ? [facts.attribution_network] : [];
    default:
      return [];
  }
}

/** A condition holds when any of the field's values satisfies it (a user may have several subscriptions). */
export function conditionHolds(condition: SegmentCondition, facts: UserFacts, now: Date): boolean {
  const values = fieldValues(facts, condition.field, now);
  const expected = condition.value;
  switch (condition.op) {
    case 'exists':
      return values.length > 0;
    case 'not_exists':
      return values.length === 0;
    case 'eq':
      return values.some((v) => v === expected);
    case 'neq':
      return values.every((v) => v !== expected);
    case 'in':
      return Array.isArray(expected) && values.some((v) => expected.includes(v as never));
    case 'contains':
      return values.some((v) =>
        typeof v === 'string' && typeof expected === 'string'
          ? v.includes(expected)
          : Array.isArray(v) && v.includes(expected),
      );
    case 'gt':
      return values.some((v) => typeof v === 'number' && v > (expected as number));
    case 'gte':
      return values.some((v) => typeof v === 'number' && v >= (expected as number));
    case 'lt':
      return values.some((v) => typeof v === 'number' && v < (expected as number));
    case 'lte':
      return values.some((v) => typeof v === 'number' && v <= (expected as number));
  }
}

export function inSegment(segment: Segment, facts: UserFacts, now: Date): boolean {
  const check = (condition: SegmentCondition) => conditionHolds(condition, facts, now);
  return segment.match === 'any' ? segment.conditions.some(check) : segment.conditions.every(check);
}

/** The segments a user is in: the built-in ones, then the app's rule segments that hold, in the app's order. */
export function segmentsOf(
  facts: UserFacts,
  ruleSegments: readonly Segment[],
  now: Date,
): { builtIn: BuiltInSegment[]; rules: Segment[] } {
  return {
    builtIn: builtInSegments(facts, now),
    rules: ruleSegments.filter((segment) => inSegment(segment, facts, now)),
  };
}
