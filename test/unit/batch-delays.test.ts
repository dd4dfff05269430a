/** The pause before a batch request is sent again with what DynamoDB left unprocessed (lib/data/batch.ts). */
import { describe, expect, it } from 'vitest';
import { unprocessedDelayMs } from '../../lib/data/batch.js';

describe('the pause after a batch request left items unprocessed', () => {
  it.each([
    // round, random, pause: half of 50 · 2^(round-1) ms (at most 1,000), plus up to the other half.
    [1, 0, 25],
    [1, 1, 50],
    [2, 0, 50],
    [2, 0.5, 75],
    [3, 1, 200],
    [5, 0, 400],
    [5, 1, 800],
    [6, 0, 500],
    [6, 1, 1000],
    [9, 0.5, 750],
  ])('after request %i with random %d: %d ms', (round, random, ms) => {
    expect(unprocessedDelayMs(round, random)).toBe(ms);
  });

  it('is random between its half and its whole when not told', () => {
    const pauses = Array.from({ length: 200 }, () => unprocessedDelayMs(2));
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(100);
    expect(new Set(pauses).size).toBeGreaterThan(1);
  });
});
