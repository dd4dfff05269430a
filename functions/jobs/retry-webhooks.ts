import type { Context } from 'aws-lambda';
import { webhookConfig } from '../../lib/core/config.js';
import { logger } from '../../lib/core/logger.js';
import { retryRunDeadline } from '../../lib/domain/webhook-scheduling.js';
import { retryDueDeliveries } from '../../lib/services/webhook-delivery.js';

/**
 * Scheduled every minute: webhook deliveries whose next try is due. No attempt starts once too
 * little time is left for it to time out and be recorded, nor after the run's start window; what
 * is left stays due for the next run.
 */
export const handler = async (_event: unknown, context?: Context) => {
  const remaining = context?.getRemainingTimeInMillis();
  const now = Date.now();
  const result = await retryDueDeliveries(new Date(now), {
    deadline: remaining === undefined ? undefined : retryRunDeadline(now, remaining, webhookConfig.webhookTimeoutMs),
    recordUntil: remaining === undefined ? undefined : now + remaining - 1000,
  });
  if (result.attempted + result.paused + result.left > 0) logger.info('webhook retries', { ...result });
  return result;
};
