/**
 * What a warm function instance keeps of rarely changed settings it reads by key: each value for
 * `ttlMs()` from its read (0: not kept), at most `capacity` keys, and a full cache starts over, so
 * its memory is bounded whatever keys callers name.
 */
export interface ReadThroughCache<V> {
  (key: string): Promise<V>;
  /** Drops the key's copy: the next read goes to the source. */
  forget(key: string): void;
}

export function readThroughCache<V>(
  read: (key: string) => Promise<V>,
  ttlMs: () => number,
  capacity = 1000,
): ReadThroughCache<V> {
  const entries = new Map<string, { value: V; until: number }>();
  const cached = async (key: string): Promise<V> => {
    const hit = entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const value = await read(key);
    const ttl = ttlMs();
    if (ttl > 0) {
      if (entries.size >= capacity) entries.clear();
      entries.set(key, { value, until: Date.now() + ttl });
    }
    return value;
  };
  return Object.assign(cached, { forget: (key: string) => void entries.delete(key) });
}
