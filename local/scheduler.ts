/**
 * The local stand-in for the stack's one-minute schedules: runs the expiry sweeper and the
 * webhook retry job every SWEEP_INTERVAL_SECONDS, one run at a time.
 */
import { handler as expireSubscriptions } from '../functions/jobs/expire-subscriptions.js';
import { handler as retryWebhooks } from '../functions/jobs/retry-webhooks.js';
import { SCHEDULED_JOB_TIMEOUT_SECONDS } from '../lib/core/defaults.js';
import { lambdaContext } from './lambda-context.js';

export interface Scheduler {
  stop(): Promise<void>;
}

export function startScheduler(
  intervalSeconds: number,
  onError: (error: unknown) => void = () => undefined,
): Scheduler {
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      for (const [name, job] of [
        ['ExpireSubscriptions', expireSubscriptions],
        ['RetryWebhooks', retryWebhooks],
      ] as const) {
        try {
          // As the schedule invokes them: with the time the function has (its timeout).
          await job({}, lambdaContext(name, `scheduled-${Date.now()}`, SCHEDULED_JOB_TIMEOUT_SECONDS * 1000));
        } catch (error) {
          onError(error);
        }
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalSeconds * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
