import { logger } from '../../lib/core/logger.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { expireDueGrants } from '../../lib/services/grants.js';

/**
 * Scheduled every minute (EventBridge Scheduler in AWS; the local scheduler loop in `npm start`):
 * subscriptions whose period or pause ended, and grants of entitlements that ran out.
 */
export const handler = async () => {
  const now = new Date();
  const [result, grants] = await Promise.all([expireDueSubscriptions(now), expireDueGrants(now)]);
  if (result.examined > 0) logger.info('expiry sweep', { ...result });
  if (grants.examined > 0) logger.info('grant expiry sweep', { ...grants });
  return { ...result, grants };
};
