import { logger } from '../../lib/core/logger.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';

/** Scheduled every minute (EventBridge Scheduler in AWS; the local scheduler loop in `npm start`). */
export const handler = async () => {
  const result = await expireDueSubscriptions();
  if (result.examined > 0) logger.info('expiry sweep', { ...result });
  return result;
};
