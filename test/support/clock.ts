/**
 * An injected clock for tests whose code runs in the test worker (lib/ directly, or the local
 * gateway started there): Date alone is faked, timers stay real and the clock keeps running, so
 * "later" or "earlier" is a value of the test, not a moment to wait for.
 */
import { vi } from 'vitest';

/** Runs `action` with the clock at `time` (epoch ms), then gives the real clock back. */
export async function atTime<T>(time: number, action: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(time);
  try {
    return await action();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * For the rest of the file (call in beforeAll, with vi.useRealTimers in afterAll): the clock runs
 * from noon UTC of `day`, so everything the file writes falls on that day however long it runs,
 * and a run that crosses UTC midnight reads the day it wrote.
 */
export function runFromNoonOf(day: string): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.parse(`${day}T12:00:00.000Z`));
}
