/**
 * Where a due-work checkpoint may move after a run: past the leading days the run read to the end,
 * handled without a failure, and that ended long enough ago that no late write can still file an
 * item under them.
 */

const DAY_MS = 86_400_000;

/**
 * How long after a day ends it may still receive items: a writer that read its clock before
 * midnight and committed after, or the index catching up on AWS (GSIs are eventually consistent).
 */
export const DUE_DAY_SETTLE_MS = 15 * 60_000;

export interface HandledDueDay {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** The run read every item of the day due by then (its limit did not cut it short). */
  complete: boolean;
  failed: boolean;
}

/** The first day later runs must still read, or undefined to leave the checkpoint where it is. */
export function checkpointAfter(days: readonly HandledDueDay[], now: Date): string | undefined {
  let checkpoint: string | undefined;
  for (const { day, complete, failed } of days) {
    const nextDay = Date.parse(day) + DAY_MS;
    if (failed || !complete || now.getTime() < nextDay + DUE_DAY_SETTLE_MS) break;
    checkpoint = new Date(nextDay).toISOString().slice(0, 10);
  }
  return checkpoint;
}
