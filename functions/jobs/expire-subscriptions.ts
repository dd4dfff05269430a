import type { Context } from 'aws-lambda';
import { logger } from '../../lib/core/logger.js';
import { checkpointDays } from '../../lib/services/due-work.js';
import { continueErasures } from '../../lib/services/erasure.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { expireDueGrants } from '../../lib/services/grants.js';

/** Time kept for the subscriptions under way when the deadline passes: up to two store requests each. */
const SWEEP_SAFETY_MS = 60_000;

/**
 * Scheduled every minute (EventBridge Scheduler in AWS; the local scheduler loop in `npm start`):
 * subscriptions whose period or pause ended, grants of entitlements that ran out, and erasures of
 * users under way (DELETE /v1/customers/{user_id} of a user with more than a request deletes).
 */
export const handler = async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const now = new Date();
  // A store asked about a subscription may take its whole timeout: no new one is started after this.
  const deadline = context ? now.getTime() + context.getRemainingTimeInMillis() - SWEEP_SAFETY_MS : undefined;
  // The three kinds' checkpoints in one read, not one each.
  const from = await checkpointDays(['SUB', 'GRT', 'ERA'], now);
  const [result, grants, erasures] = await Promise.all([
    expireDueSubscriptions(now, deadline, from.get('SUB')),
    expireDueGrants(now, from.get('GRT')),
    continueErasures(now, undefined, from.get('ERA')),
  ]);
  if (result.examined > 0) logger.info('expiry sweep', { ...result });
  if (grants.examined > 0) logger.info('grant expiry sweep', { ...grants });
  if (erasures.examined > 0) logger.info('erasures continued', { ...erasures });
  return { ...result, grants, erasures };
};
