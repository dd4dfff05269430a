/**
 * Grants of entitlements (POST /v1/customers/{user_id}/entitlements/{entitlement_id}/grant and
 * /revoke) and their end by the clock (the expiry sweeper). Decisions are lib/domain/grant-decisions.ts';
 * each change writes the grant and its webhook's outbox item in one transaction. A grant is no
 * purchase: nothing here touches a subscription, so neither revenue nor the list counts move.
 */
import { AppError } from '../core/errors.js';
import { getEntitlements } from '../data/entitlements.js';
import { endGrant, GrantChangedError, getGrant, getGrantAt, putGrant, type StoredGrant } from '../data/grant-items.js';
import { decideExpiry, decideGrant, decideRevoke, type GrantRequest, grantRuns } from '../domain/grant-decisions.js';
import {
  ENTITLEMENT_EXPIRED,
  ENTITLEMENT_GRANTED,
  ENTITLEMENT_REVOKED,
  type GrantEventPayload,
} from '../events/schemas.js';
import type { Grant, RevokeResult } from '../schemas/entitlement.js';
import { processDueWork } from './due-work.js';

/** Attempts of a grant or revoke that races another write of the same grant. */
const MAX_ATTEMPTS = 3;

export const toGrant = (grant: StoredGrant, now: Date): Grant => ({
  user_id: grant.user_id,
  entitlement_id: grant.entitlement_id,
  active: grantRuns(grant, now),
  granted_at: grant.granted_at,
  expires_at: grant.expires_at,
  ended_at: grant.ended_at,
  end_reason: grant.end_reason,
});

/** Read the entitlements uncached: a grant of one defined a moment ago must not be a 404. */
async function requireEntitlement(appId: string, entitlementId: string): Promise<void> {
  const entitlements = await getEntitlements(appId);
  if (!entitlements.some((entitlement) => entitlement.id === entitlementId))
    throw new AppError('ENTITLEMENT_NOT_FOUND', `Entitlement ${entitlementId} not found`);
}

const eventData = (grant: StoredGrant) => ({
  user_id: grant.user_id,
  entitlement_id: grant.entitlement_id,
  granted_at: grant.granted_at,
  expires_at: grant.expires_at,
});

/** Read, decide, write conditioned on what was read; a concurrent change of the grant is read again. */
async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof GrantChangedError)) throw error;
      if (n === MAX_ATTEMPTS)
        throw new AppError('CONCURRENT_MODIFICATION', 'The grant is being changed concurrently; retry', {
          retryable: true,
        });
    }
  }
}

/** Grants the entitlement to the user (a user never seen becomes known), or extends or changes the grant that runs. */
export async function grantEntitlement(
  appId: string,
  userId: string,
  entitlementId: string,
  request: GrantRequest,
  now = new Date(),
): Promise<Grant> {
  await requireEntitlement(appId, entitlementId);
  return withRetry(async () => {
    const current = await getGrant(appId, userId, entitlementId);
    const decision = decideGrant(current, request, now);
    const next: StoredGrant = {
      app_id: appId,
      user_id: userId,
      entitlement_id: entitlementId,
      granted_at: decision.granted_at,
      expires_at: decision.expires_at,
      ended_at: null,
      end_reason: null,
      version: (current?.version ?? 0) + 1,
    };
    const event: GrantEventPayload = {
      event: ENTITLEMENT_GRANTED,
      timestamp: now.toISOString(),
      data: { ...eventData(next), previous_expires_at: decision.previous_expires_at },
    };
    await putGrant(next, current?.version ?? 0, event, now);
    return toGrant(next, now);
  });
}

/** Ends the running grant now; with none running, changes nothing and says so (revoked: false). */
export async function revokeEntitlement(
  appId: string,
  userId: string,
  entitlementId: string,
  now = new Date(),
): Promise<RevokeResult> {
  await requireEntitlement(appId, entitlementId);
  return withRetry(async () => {
    const current = await getGrant(appId, userId, entitlementId);
    const ended = decideRevoke(current, now);
    if (!ended) return { revoked: false, grant: current ? toGrant(current, now) : null };
    const grant = { ...current!, ...ended };
    await endGrant(grant, { event: ENTITLEMENT_REVOKED, timestamp: now.toISOString(), data: eventData(grant) }, now);
    return { revoked: true, grant: toGrant(grant, now) };
  });
}

export interface GrantSweepResult {
  examined: number;
  ended: number;
  failed: number;
}

/** Grants handled per run; the next run (a minute later) continues. */
const MAX_GRANTS_PER_RUN = 1000;

/**
 * Records the end of every grant that has run out, with its entitlement.expired event: once,
 * since the write is conditioned on the version read and takes the grant out of the due index.
 * A grant extended or revoked meanwhile is no longer due and is left alone.
 */
export async function expireDueGrants(now = new Date(), from?: string): Promise<GrantSweepResult> {
  let ended = 0;
  const { examined, failed } = await processDueWork(
    'GRT',
    now,
    { limit: MAX_GRANTS_PER_RUN, concurrency: 8, from },
    async (item) => {
      const key = { pk: item.pk as string, sk: item.sk as string };
      try {
        const current = await getGrantAt(key);
        const expired = decideExpiry(current, now);
        if (!expired) return;
        const grant = { ...current!, ...expired };
        await endGrant(
          grant,
          { event: ENTITLEMENT_EXPIRED, timestamp: now.toISOString(), data: eventData(grant) },
          now,
        );
        ended += 1;
      } catch (error) {
        // Changed meanwhile (extended, revoked, or ended by an overlapping run): the next run reads it again if still due.
        if (!(error instanceof GrantChangedError)) throw error;
      }
    },
  );
  return { examined, ended, failed };
}
