import type { Context } from 'aws-lambda';
import { config } from '../../lib/core/config.js';
import { logger } from '../../lib/core/logger.js';
import { retryDueDeliveries } from '../../lib/services/webhook-delivery.js';

/** Time kept back after the last attempt's timeout: recording its outcome, the checkpoint, the answer. */
const RECORDING_MARGIN_MS = 5000;

/**
 * Scheduled every minute: webhook deliveries whose next try is due. No attempt starts once too
 * little time is left for it to time out and be recorded; what is left stays due for the next run.
 */
export const handler = async (_event: unknown, context?: Context) => {
  const remaining = context?.getRemainingTimeInMillis();
  const now = Date.now();
  const result = await retryDueDeliveries(new Date(now), {
    deadline: remaining === undefined ? undefined : now + remaining - config.webhookTimeoutMs - RECORDING_MARGIN_MS,
    recordUntil: remaining === undefined ? undefined : now + remaining - 1000,
  });
  if (result.attempted + result.paused + result.left > 0) logger.info('webhook retries', { ...result });
  return result;
};
