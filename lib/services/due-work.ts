/**
 * Runs a job over the work the clock has made due (one kind of the workDueByDay index), day by day
 * from the checkpoint, and moves the checkpoint past the days it finished (checkpointAfter).
 */

import { logger } from '../core/logger.js';
import { advanceCheckpoint, findDueItems } from '../data/due.js';
import type { DueKind } from '../data/keys.js';
import { checkpointAfter, type HandledDueDay } from '../domain/due-checkpoint.js';

export interface DueWorkResult {
  examined: number;
  failed: number;
}

export async function processDueWork(
  kind: DueKind,
  now: Date,
  options: { limit: number; concurrency: number },
  work: (item: Record<string, unknown>) => Promise<void>,
): Promise<DueWorkResult> {
  const result: DueWorkResult = { examined: 0, failed: 0 };
  const handled: HandledDueDay[] = [];
  for (const { day, items, complete } of await findDueItems(kind, now, options.limit)) {
    let dayFailed = false;
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
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
    handled.push({ day, complete, failed: dayFailed });
    if (dayFailed) break;
  }
  const checkpoint = checkpointAfter(handled, now);
  if (checkpoint) await advanceCheckpoint(kind, checkpoint);
  return result;
}
