/**
 * Which due webhook attempts the retry job starts next, and when an endpoint is paused (pure).
 *
 * One app's receiver that never answers must not hold back another app's retries: attempts are
 * taken round robin across apps (in the order of each app's oldest due attempt), an app has at most
 * a few in flight at once, and an endpoint whose attempts keep timing out is paused for a while
 * (its circuit breaker): its attempts are put off to the end of the pause rather than sent.
 */

export interface DueAttempt {
  event_id: string;
  app_id: string;
}

/** Attempts the retry job has in flight at once, all apps together. */
export const RETRY_CONCURRENCY = 8;
/** Attempts one app has in flight at once: an app's slow receiver holds at most this many of the job's. */
export const PER_APP_CONCURRENCY = 2;

export interface BreakerSettings {
  /** Consecutive timed-out attempts that pause an endpoint. */
  timeouts: number;
  /** How long it stays paused; the first attempt after it is a probe (one more timeout pauses it again). */
  pauseSeconds: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { timeouts: 3, pauseSeconds: 600 };

/**
 * The next attempts to start, at most `slots`: one per app in turn, starting after the app served
 * last, skipping an app at its cap. `queued` is oldest first; an app's own attempts keep that order.
 */
export function chooseNextAttempts(
  queued: readonly DueAttempt[],
  inFlight: ReadonlyMap<string, number>,
  slots: number,
  perAppCap: number,
  lastServedApp?: string,
): DueAttempt[] {
  const byApp = new Map<string, DueAttempt[]>();
  for (const attempt of queued) {
    const own = byApp.get(attempt.app_id);
    if (own) own.push(attempt);
    else byApp.set(attempt.app_id, [attempt]);
  }
  const apps = [...byApp.keys()];
  const after = lastServedApp === undefined ? -1 : apps.indexOf(lastServedApp);
  const order = [...apps.slice(after + 1), ...apps.slice(0, after + 1)];
  const taken = new Map<string, number>();
  const chosen: DueAttempt[] = [];
  for (let progress = true; progress; ) {
    progress = false;
    for (const app of order) {
      if (chosen.length >= slots) break;
      const count = taken.get(app) ?? 0;
      const next = byApp.get(app)![count];
      if (!next || (inFlight.get(app) ?? 0) + count >= perAppCap) continue;
      chosen.push(next);
      taken.set(app, count + 1);
      progress = true;
    }
  }
  return chosen;
}

/** What the endpoint's breaker remembers. */
export interface BreakerState {
  consecutive_timeouts: number;
  /** ISO time until which the endpoint is paused; null when it is not. */
  paused_until: string | null;
}

export const isPaused = (state: BreakerState, now: Date): boolean =>
  state.paused_until !== null && state.paused_until > now.toISOString();

/**
 * After a timed-out attempt that made the count `timeouts`: the end of the pause it starts, or null.
 * Past the threshold (a probe after a pause that timed out again) every timeout pauses it again.
 */
export function pauseAfterTimeout(timeouts: number, now: Date, settings: BreakerSettings): string | null {
  return timeouts >= settings.timeouts ? new Date(now.getTime() + settings.pauseSeconds * 1000).toISOString() : null;
}

/** Time kept back after a run's last attempt could time out: recording it, the checkpoint, the answer. */
export const RUN_RECORDING_MARGIN_MS = 5000;

/**
 * A run starts attempts for at most this long. The schedule starts one every minute: a run that
 * stops starting then is done (its last attempts timed out and recorded) about when the next one
 * begins, so runs do not pile up, each with its own per-app cap, behind one slow receiver.
 */
export const RUN_START_WINDOW_MS = 40_000;

/** Epoch ms after which a retry run that started at `start` with `remainingMs` of function time starts no attempt. */
export function retryRunDeadline(start: number, remainingMs: number, attemptTimeoutMs: number): number {
  return start + Math.min(RUN_START_WINDOW_MS, remainingMs - attemptTimeoutMs - RUN_RECORDING_MARGIN_MS);
}
