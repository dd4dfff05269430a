/**
 * The app's report quota item (`QUOTA#<app>` / `REPORTS`): events in the current minute window and
 * bytes in the current day window, counted by one conditional UpdateItem per report whose
 * condition holds exactly when the plan (lib/domain/report-quota.ts) was made on the item as it
 * is; otherwise the item as it is (returned by the failed condition) decides again. A refused
 * report is not counted. One item per app: about 1,000 counted reports a second per app
 * (DynamoDB's per-item write limit).
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  planQuotaCharge,
  QUOTA_COUNTERS,
  QUOTA_WINDOW_SECONDS,
  type QuotaCharge,
  type QuotaCounter,
  type QuotaLimits,
  type QuotaPlan,
  type QuotaState,
  type QuotaWrite,
} from '../domain/report-quota.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import { keys } from './keys.js';

/** Attribute names of each counter on the item. */
const ATTRIBUTES: Record<QuotaCounter, { used: string; endsAt: string }> = {
  events: { used: 'events_used', endsAt: 'events_window_ends_at' },
  bytes: { used: 'bytes_used', endsAt: 'bytes_window_ends_at' },
};

function stateOf(item: Record<string, unknown> | undefined): QuotaState {
  const state: QuotaState = {};
  for (const counter of QUOTA_COUNTERS) {
    const { used, endsAt } = ATTRIBUTES[counter];
    if (typeof item?.[endsAt] === 'number')
      state[counter] = { used: Number(item[used] ?? 0), endsAt: item[endsAt] as number };
  }
  return state;
}

/** The quota items this instance last wrote or read, by app: its first guess. Bounded; forgetting costs a write. */
const knownStates = new Map<string, QuotaState>();
const MAX_KNOWN_STATES = 1000;

function remember(appId: string, state: QuotaState): void {
  if (knownStates.size >= MAX_KNOWN_STATES) knownStates.clear();
  knownStates.set(appId, state);
}

/** The UpdateItem parts of a plan: each counter's write and the condition that it was planned on the item as it is. */
function updateOf(writes: Record<QuotaCounter, QuotaWrite>, charge: QuotaCharge, limits: QuotaLimits, nowMs: number) {
  const sets: string[] = [];
  const adds: string[] = [];
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': nowMs };
  for (const counter of QUOTA_COUNTERS) {
    const write = writes[counter];
    if (write === 'none') continue;
    const { used, endsAt } = ATTRIBUTES[counter];
    names[`#${counter}Used`] = used;
    names[`#${counter}Ends`] = endsAt;
    values[`:${counter}`] = charge[counter];
    if (write === 'add') {
      adds.push(`#${counter}Used :${counter}`);
      // Room for this charge in the open window: the refused charge is not counted.
      values[`:${counter}Room`] = limits[counter] - charge[counter];
      conditions.push(`(#${counter}Ends > :now AND #${counter}Used <= :${counter}Room)`);
    } else {
      const ends = nowMs + QUOTA_WINDOW_SECONDS[counter] * 1000;
      sets.push(`#${counter}Used = :${counter}`, `#${counter}Ends = :${counter}Ends`);
      values[`:${counter}Ends`] = ends;
      conditions.push(`(attribute_not_exists(#${counter}Ends) OR #${counter}Ends <= :now)`);
      if (counter === 'bytes') {
        // The item lives as long as its longest window: an app that stopped reporting leaves nothing.
        names['#ttl'] = 'ttl';
        values[':ttl'] = Math.ceil(ends / 1000);
        sets.push('#ttl = :ttl');
      }
    }
  }
  return {
    UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', adds.length > 0 ? `ADD ${adds.join(', ')}` : '']
      .filter(Boolean)
      .join(' '),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

export type QuotaRefusal = Extract<QuotaPlan, { allowed: false }>;

/**
 * Counts a report of `charge` against the app's quota windows, or refuses it (nothing counted):
 * refused without a write when this instance already knows the window is too full. One write when
 * the first guess is right (the common case); a wrong guess costs one more.
 */
export async function chargeReportQuota(
  appId: string,
  charge: QuotaCharge,
  limits: QuotaLimits,
  nowMs: number = Date.now(),
): Promise<QuotaRefusal | undefined> {
  let state = knownStates.get(appId);
  for (let attempt = 0; attempt < 4; attempt++) {
    const plan = planQuotaCharge(state, charge, limits, nowMs);
    if (!plan.allowed) return plan;
    if (QUOTA_COUNTERS.every((counter) => plan.writes[counter] === 'none')) return undefined;
    try {
      const { Attributes } = await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.reportQuota(appId),
          ...updateOf(plan.writes, charge, limits, nowMs),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      remember(appId, stateOf(Attributes));
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = (error as { Item?: Record<string, AttributeValue> }).Item;
      state = stateOf(old ? unmarshall(old) : undefined);
      remember(appId, state);
    }
  }
  // Only reachable if windows keep opening and closing under us within milliseconds.
  throw new Error('report quota windows of an app kept changing');
}
