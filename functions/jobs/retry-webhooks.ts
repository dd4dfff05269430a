import { logger } from '../../lib/core/logger.js';
import { retryDueDeliveries } from '../../lib/services/webhook-delivery.js';

/** Scheduled every minute: webhook deliveries whose next try is due. */
export const handler = async () => {
  const result = await retryDueDeliveries();
  if (result.attempted > 0) logger.info('webhook retries', { ...result });
  return result;
};
