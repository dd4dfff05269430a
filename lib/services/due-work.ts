/**
 * Runs a job over the work the clock has made due (one kind of the workDueByDay index), day by day
 * from the checkpoint, and moves the checkpoint past every earlier day it finished without error.
 */

import { logger } from '../core/logger.js';
import { advanceCheckpoint, findDueItems } from '../data/due.js';
import type { DueKind } from '../data/keys.js';

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
  const today = now.toISOString().slice(0, 10);
  let completeBefore: string | undefined;
  for (const { day, items } of await findDueItems(kind, now, options.limit)) {
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
    // A past day whose due items were all handled never receives new ones: skip it from now on.
    if (dayFailed || day >= today) break;
    completeBefore = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  }
  if (completeBefore) await advanceCheckpoint(kind, completeBefore);
  return result;
}
