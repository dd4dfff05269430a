/**
 * The local stand-in for the stack's one-minute schedules: runs the expiry sweeper and the
 * webhook retry job every SWEEP_INTERVAL_SECONDS, one run at a time.
 */
import { handler as expireSubscriptions } from '../functions/jobs/expire-subscriptions.js';
import { handler as retryWebhooks } from '../functions/jobs/retry-webhooks.js';

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
      for (const job of [expireSubscriptions, retryWebhooks]) {
        try {
          await job();
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
