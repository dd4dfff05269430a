/**
 * Measures DynamoDB consumed capacity of whatever runs through the shared document client: a
 * middleware asks every operation for ReturnConsumedCapacity TOTAL and adds up what comes back.
 */
import { ddb } from '../../lib/data/client.js';

interface Capacity {
  CapacityUnits?: number;
}

let total = 0;

ddb.middlewareStack.add(
  (next) => async (args) => {
    (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
    for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) total += entry.CapacityUnits ?? 0;
    return result;
  },
  { step: 'initialize', name: 'measureConsumedCapacity' },
);

/** Capacity units consumed while `work` runs (run measured work alone: the counter is global). */
export async function measureCapacity<T>(work: () => Promise<T>): Promise<{ units: number; result: T }> {
  const before = total;
  const result = await work();
  return { units: total - before, result };
}

