import { logger } from '../../lib/core/logger.js';
import { continueErasures } from '../../lib/services/erasure.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { expireDueGrants } from '../../lib/services/grants.js';

/**
 * Scheduled every minute (EventBridge Scheduler in AWS; the local scheduler loop in `npm start`):
 * subscriptions whose period or pause ended, grants of entitlements that ran out, and erasures of
 * users under way (DELETE /v1/customers/{user_id} of a user with more than a request deletes).
 */
export const handler = async () => {
  const now = new Date();
  const [result, grants, erasures] = await Promise.all([
    expireDueSubscriptions(now),
    expireDueGrants(now),
    continueErasures(now),
  ]);
  if (result.examined > 0) logger.info('expiry sweep', { ...result });
  if (grants.examined > 0) logger.info('grant expiry sweep', { ...grants });
  if (erasures.examined > 0) logger.info('erasures continued', { ...erasures });
  return { ...result, grants, erasures };
};
