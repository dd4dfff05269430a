import { afterEach, describe, expect, it, vi } from 'vitest';
import { readThroughCache } from '../../lib/core/read-through-cache.js';

afterEach(() => vi.useRealTimers());

function counted(ttlMs: number, capacity?: number) {
  const reads: string[] = [];
  const cached = readThroughCache(
    async (key) => {
      reads.push(key);
      return `${key}#${reads.length}`;
    },
    () => ttlMs,
    capacity,
  );
  return { cached, reads };
}

describe('readThroughCache', () => {
  it('reads a key once within its TTL and again after it', async () => {
    vi.useFakeTimers({ now: 0 });
    const { cached, reads } = counted(1000);
    expect(await cached('a')).toBe('a#1');
    vi.setSystemTime(999);
    expect(await cached('a')).toBe('a#1');
    vi.setSystemTime(1000);
    expect(await cached('a')).toBe('a#2');
    expect(reads).toEqual(['a', 'a']);
  });

  it('keeps nothing with a TTL of 0', async () => {
    const { cached, reads } = counted(0);
    await cached('a');
    await cached('a');
    expect(reads).toEqual(['a', 'a']);
  });

  it('forget drops one key only', async () => {
    const { cached, reads } = counted(60_000);
    await cached('a');
    await cached('b');
    cached.forget('a');
    await cached('a');
    await cached('b');
    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('holds at most capacity keys: a full cache starts over', async () => {
    const { cached, reads } = counted(60_000, 2);
    await cached('a');
    await cached('b');
    await cached('c'); // full: starts over with c alone
    await cached('c');
    await cached('a');
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });

  it('keeps no failed read', async () => {
    let calls = 0;
    const cached = readThroughCache(
      async () => {
        calls++;
        if (calls === 1) throw new Error('down');
        return 'up';
      },
      () => 60_000,
    );
    await expect(cached('a')).rejects.toThrow('down');
    expect(await cached('a')).toBe('up');
  });
});
