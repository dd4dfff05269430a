/**
 * The app's report quota item (`QUOTA#<app>` / `REPORTS`): events in the current minute window and
 * bytes in the current day window. Each function instance decides on the item as it last saw it
 * plus what it accepted since and has not written (lib/domain/report-quota.ts), and writes those
 * amounts in one conditional UpdateItem only when planQuotaFlush says so (a window to open, a
 * flush share reached, its last write a few seconds old): a busy app's reports cost a write per
 * share per instance, not one each, and the item's ~1,000 writes a second (DynamoDB's per-item
 * limit) bound flushes, not reports. A write's condition holds exactly when its plan was made on
 * the item as it is; otherwise the item as it is (returned by the failed condition) decides
 * again. A refused report is not counted.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  addAmounts,
  carriedUnflushed,
  type LocalQuota,
  NO_AMOUNTS,
  planQuotaCharge,
  planQuotaFlush,
  QUOTA_COUNTERS,
  QUOTA_WINDOW_SECONDS,
  type QuotaAmounts,
  type QuotaCharge,
  type QuotaCounter,
  type QuotaLimits,
  type QuotaPlan,
  type QuotaState,
  type QuotaWrite,
  withUnflushed,
} from '../domain/report-quota.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';

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

/** What this instance knows of each app's quota (item and unflushed amounts). Bounded; forgetting costs a write and at most a share each. */
const localQuotas = new Map<string, LocalQuota>();
const MAX_LOCAL_QUOTAS = 1000;

function remember(appId: string, local: LocalQuota): void {
  if (localQuotas.size >= MAX_LOCAL_QUOTAS && !localQuotas.has(appId)) localQuotas.clear();
  localQuotas.set(appId, local);
}

/**
 * The UpdateItem parts of a flush: per counter, open its window with this charge, or add the
 * pending amount to the window it belongs to, with room for it when this report charges that
 * counter (what an earlier report accepted is written whatever the room: it is stored already).
 */
function updateOf(
  local: LocalQuota,
  writes: Record<QuotaCounter, QuotaWrite>,
  charge: QuotaCharge,
  pending: QuotaAmounts,
  limits: QuotaLimits,
  nowMs: number,
) {
  const sets: string[] = [];
  const adds: string[] = [];
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const counter of QUOTA_COUNTERS) {
    const write = writes[counter];
    const { used, endsAt } = ATTRIBUTES[counter];
    if (write === 'open') {
      const ends = nowMs + QUOTA_WINDOW_SECONDS[counter] * 1000;
      names[`#${counter}Used`] = used;
      names[`#${counter}Ends`] = endsAt;
      values[':now'] = nowMs;
      values[`:${counter}`] = charge[counter];
      values[`:${counter}Ends`] = ends;
      sets.push(`#${counter}Used = :${counter}`, `#${counter}Ends = :${counter}Ends`);
      conditions.push(`(attribute_not_exists(#${counter}Ends) OR #${counter}Ends <= :now)`);
      if (counter === 'bytes') {
        // The item lives as long as its longest window: an app that stopped reporting leaves nothing.
        names['#ttl'] = 'ttl';
        values[':ttl'] = Math.ceil(ends / 1000);
        sets.push('#ttl = :ttl');
      }
      continue;
    }
    if (write === 'join') {
      // Whatever window is open now, with room for this charge: otherwise the item as it is decides.
      names[`#${counter}Used`] = used;
      names[`#${counter}Ends`] = endsAt;
      values[':now'] = nowMs;
      values[`:${counter}`] = pending[counter];
      values[`:${counter}Room`] = limits[counter] - pending[counter];
      adds.push(`#${counter}Used :${counter}`);
      conditions.push(`(#${counter}Ends > :now AND #${counter}Used <= :${counter}Room)`);
      continue;
    }
    const window = local.state[counter];
    if (pending[counter] <= 0 || window === undefined) continue;
    names[`#${counter}Used`] = used;
    names[`#${counter}Ends`] = endsAt;
    values[`:${counter}`] = pending[counter];
    values[`:${counter}Ends`] = window.endsAt;
    adds.push(`#${counter}Used :${counter}`);
    if (charge[counter] > 0) {
      // Room in that window for all this instance accepted plus this charge: a refused charge is not counted.
      values[`:${counter}Room`] = limits[counter] - pending[counter];
      conditions.push(`(#${counter}Ends = :${counter}Ends AND #${counter}Used <= :${counter}Room)`);
    } else conditions.push(`#${counter}Ends = :${counter}Ends`);
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
 * Counts a report of `charge` against the app's quota windows, or refuses it (nothing counted).
 * Decided on what this instance knows (the item as last seen plus its unflushed amounts): refused
 * without a write when that is too full; accepted without a write while planQuotaFlush allows it;
 * otherwise one write of everything pending, and one more when the item had moved under it.
 */
export async function chargeReportQuota(
  appId: string,
  charge: QuotaCharge,
  limits: QuotaLimits,
  nowMs: number = Date.now(),
): Promise<QuotaRefusal | undefined> {
  const known = localQuotas.get(appId) ?? { state: {}, unflushed: { ...NO_AMOUNTS } };
  let local: LocalQuota = { ...known, unflushed: carriedUnflushed(known, known.state, nowMs) };
  // Until this instance has read or written the item, it joins the window open now.
  let seen = localQuotas.has(appId);
  // What this process holds now: one Lambda instance serves one request at a time, the local
  // gateway many at once, whose reports may be accepted while a write is on its way.
  const current = (): LocalQuota => localQuotas.get(appId) ?? { state: local.state, unflushed: { ...NO_AMOUNTS } };
  for (let attempt = 0; attempt < 4; attempt++) {
    const plan = planQuotaCharge(seen ? withUnflushed(local, nowMs) : undefined, charge, limits, nowMs);
    // Refused, nothing changes: what the instance knows is remembered already (or, unseen, it joins next time).
    if (!plan.allowed) return plan;
    const pending = addAmounts(local.unflushed, charge);
    if (!planQuotaFlush(plan.writes, pending, limits, local.writtenAt, nowMs)) {
      remember(appId, { ...local, unflushed: pending });
      return undefined;
    }
    // The write takes what is held: reports accepted meanwhile are held anew, not written twice.
    remember(appId, { ...local, unflushed: { ...NO_AMOUNTS } });
    try {
      const { Attributes } = await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.reportQuota(appId),
          ...updateOf(local, plan.writes, charge, pending, limits, nowMs),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const fresh = stateOf(Attributes);
      remember(appId, { state: fresh, unflushed: carriedUnflushed(current(), fresh, nowMs), writtenAt: nowMs });
      return undefined;
    } catch (error) {
      // Not written: what it took is held again, with what was accepted meanwhile.
      const meanwhile = current();
      const old = isConditionFailure(error) ? (error as { Item?: Record<string, AttributeValue> }).Item : undefined;
      const fresh = isConditionFailure(error) ? stateOf(old ? unmarshall(old) : undefined) : local.state;
      seen = isConditionFailure(error);
      local = {
        state: fresh,
        unflushed: addAmounts(carriedUnflushed(meanwhile, fresh, nowMs), carriedUnflushed(local, fresh, nowMs)),
        writtenAt: meanwhile.writtenAt,
      };
      remember(appId, local);
      if (!isConditionFailure(error)) throw error;
    }
  }
  // Only reachable if windows keep opening and closing under us within milliseconds.
  throw new Error('report quota windows of an app kept changing');
}
