/**
 * Runs a job over the work the clock has made due (one kind of the workDueByDay index), day by day
 * from the checkpoint, and moves the checkpoint past the days it finished (checkpointAfter).
 */

import { logger } from '../core/logger.js';
import { advanceCheckpoint, findDueItems } from '../data/due.js';
import type { DueKind } from '../data/table-keys.js';
import { checkpointAfter, type HandledDueDay } from '../domain/due-checkpoint.js';

/** For a job that runs several kinds at once: their checkpoints in one read (options.from of each). */
export { checkpointDays } from '../data/due.js';

export interface DueWorkResult {
  examined: number;
  failed: number;
}

export interface DueWorkOptions {
  limit: number;
  concurrency: number;
  /**
   * Epoch ms after which no item is started (the function's time runs out): the items left stay
   * due, and their day is not finished, for the next run.
   */
  deadline?: number | undefined;
  /** The checkpoint's day, when the job read it with other kinds' (checkpointDays); else it is read here. */
  from?: string | undefined;
}

/**
 * A failed item leaves its day unfinished (the checkpoint stays at it, and the next run reads it
 * again), but the days after it are still handled: one item that keeps failing (a store that
 * cannot be asked) holds back no other work.
 */
export async function processDueWork(
  kind: DueKind,
  now: Date,
  options: DueWorkOptions,
  work: (item: Record<string, unknown>) => Promise<void>,
): Promise<DueWorkResult> {
  const result: DueWorkResult = { examined: 0, failed: 0 };
  const handled: HandledDueDay[] = [];
  const timeLeft = () => options.deadline === undefined || Date.now() < options.deadline;
  for (const { day, items, complete } of await findDueItems(kind, now, options.limit, options.from)) {
    if (!timeLeft()) break;
    let dayFailed = false;
    let next = 0;
    const worker = async () => {
      while (next < items.length && timeLeft()) {
        const item = items[next++]!;
        result.examined += 1;
        try {
          await work(item);
        } catch (error) {
          dayFailed = true;
          result.failed += 1;
          logger.error(`due ${kind} work failed`, { due_sk: item.due_sk, error: (error as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, items.length) }, worker));
    handled.push({ day, complete: complete && next >= items.length, failed: dayFailed });
  }
  const checkpoint = checkpointAfter(handled, now);
  if (checkpoint) await advanceCheckpoint(kind, checkpoint);
  return result;
}
