/**
 * The simulation half of `npm run bench:hot-app` (pure, deterministic for a seed; its unit tests:
 * test/unit/hot-app-simulation.test.ts). DynamoDB Local on a two-core machine cannot carry 1,000
 * changes per second, so the item sets that real changes wrote (recorded by the conflict proxy,
 * test/support/dynamodb-conflict-proxy.ts) are replayed here at that rate, with the rules the proxy
 * applies (docs/capacity.md):
 * - a transaction touching an item another in-flight transaction holds is cancelled
 *   (TransactionConflict); a single-item write on such an item fails the same way;
 * - a transaction holds its items for `transactionMs`; a single-item write takes `singleWriteMs` and
 *   holds nothing (AWS cancels transactions only for items of other transactions);
 * - each item has a token bucket of `itemWriteUnitsPerSecond` (1,000, DynamoDB's most for one item),
 *   `burstSeconds` of it saved; a write on an empty bucket is throttled.
 * Changes arrive as a Poisson process for one app, each of a measured kind (by weight); a change's
 * writes run one after another. Items a change owns (its subscription, transaction binding, outbox
 * event...) get fresh ids per simulated change, so they are never contended and are not tracked;
 * items every change of a kind touches (the app's counters, revenue item, API key) are.
 *
 * Background writers are writes no request makes: e.g. a stream consumer that maintains counters,
 * flushing each of its items with one UpdateItem per stream batch, so at most
 * `flushesPerSecond` (shards × batches per second) per item whatever the request rate. They are an
 * input of their own (`SimulationInput.backgroundWriters`), replayed at their rate beside the
 * changes, with the same conflict and throughput rules.
 */

/** An item as the simulation names it: `pk|sk`, the app's id replaced by `<app>`. */
export type ItemId = string;

export interface ProfiledItem {
  item: ItemId;
  writeUnits: number;
  /** Owned by one change (fresh for each simulated change); false: shared by the app's changes. */
  perChange: boolean;
  /**
   * A shared item of which there are this many copies, one picked at random per change: a secret
   * key's counter when the app's backend spreads its requests over that many keys.
   */
  spreadOver?: number;
}

export interface ProfiledWrite {
  /** TransactWriteItems, or a single-item PutItem / UpdateItem / DeleteItem. */
  operation: string;
  items: ProfiledItem[];
}

/** One kind of change as measured alone: the writes it made, in order. */
export interface ChangeProfile {
  name: string;
  /** Its share of the simulated changes (relative to the other kinds' weights). */
  weight: number;
  writes: ProfiledWrite[];
}

/** Writes made by no request: one single-item write of each item per flush. */
export interface BackgroundWriter {
  name: string;
  items: ItemId[];
  flushesPerSecond: number;
  writeUnits: number;
}

export interface SimulationSettings {
  changesPerSecond: number;
  seconds: number;
  /** How long a transaction holds its items (the proxy's transactionHoldMs). */
  transactionMs: number;
  /** How long a single-item write takes (it holds nothing). */
  singleWriteMs: number;
  itemWriteUnitsPerSecond: number;
  burstSeconds: number;
  /** Retries of a write cancelled by a conflict, each after a random wait in [0, retryJitterMs × 2^attempt). */
  retries: number;
  retryJitterMs: number;
  seed: number;
}

export const DEFAULT_SIMULATION: Omit<SimulationSettings, 'changesPerSecond'> = {
  seconds: 10,
  transactionMs: 15,
  singleWriteMs: 5,
  itemWriteUnitsPerSecond: 1000,
  burstSeconds: 1,
  retries: 1,
  retryJitterMs: 50,
  seed: 1,
};

export interface SimulationInput {
  profiles: ChangeProfile[];
  backgroundWriters: BackgroundWriter[];
  settings: Partial<SimulationSettings> & Pick<SimulationSettings, 'changesPerSecond'>;
}

export interface ItemLoad {
  item: ItemId;
  /** Write units per second the item needs for every write to commit once. */
  demandWcuPerSecond: number;
  /** Write units per second it took (writes admitted). */
  committedWcuPerSecond: number;
}

export interface SimulationResult {
  settings: SimulationSettings;
  changes: number;
  /** First attempts of transactions. */
  transactions: number;
  /** Of those, cancelled by a conflict. */
  transactionConflicts: number;
  /** transactionConflicts / transactions, in percent. */
  conflictRatePercent: number;
  /** Single-item writes (first attempts) failed by a conflict, of the changes and background writers. */
  singleWriteConflicts: number;
  retries: number;
  /** Writes refused by an item's throughput. */
  throttledWrites: number;
  /** Changes that did not complete: a conflict after every retry, or a throttled write. */
  failedChanges: number;
  failedChangesPercent: number;
  backgroundWrites: number;
  /** Every shared item (and background writer's), by demand, highest first. */
  hottest: ItemLoad[];
}

/** mulberry32: a small seedable generator, so a simulation replays exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The proxy's throughput rule for one item: admitted while above zero, then takes its units (into debt). */
export class TokenBucket {
  private tokens: number;
  private at = 0;
  constructor(
    private readonly perSecond: number,
    private readonly burstSeconds: number,
  ) {
    this.tokens = perSecond * burstSeconds;
  }
  /** Whether a write may go now (refills first); it does not take the units: see take. */
  hasTokens(nowMs: number): boolean {
    if (!Number.isFinite(this.perSecond)) return true;
    const capacity = this.perSecond * this.burstSeconds;
    this.tokens = Math.min(capacity, this.tokens + ((nowMs - this.at) / 1000) * this.perSecond);
    this.at = nowMs;
    return this.tokens > 0;
  }
  take(units: number): void {
    this.tokens -= units;
  }
}

/**
 * Which items of a kind of change are shared: those every measured instance touched (run at least
 * two instances with fresh ids) and whose key holds none of the instance's own ids (its
 * subscription, user, transaction, notification...). Everything else belongs to one change.
 */
export function sharedItems(instances: { items: ItemId[]; ownIds: string[] }[]): Set<ItemId> {
  if (instances.length < 2) throw new Error('classifying items needs at least two instances of the change');
  const [first, ...others] = instances;
  const shared = new Set<ItemId>();
  for (const item of first!.items) {
    if (!others.every((other) => other.items.includes(item))) continue;
    if (instances.some(({ ownIds }) => ownIds.some((id) => id.length > 0 && item.includes(id)))) continue;
    shared.add(item);
  }
  return shared;
}

/** A binary min-heap of events by time, then by insertion order (so equal times replay alike). */
class EventQueue<T> {
  private heap: { at: number; seq: number; value: T }[] = [];
  private seq = 0;
  get size() {
    return this.heap.length;
  }
  push(at: number, value: T) {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, value });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }
  pop(): { at: number; value: T } {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.less(left, smallest)) smallest = left;
        if (right < heap.length && this.less(right, smallest)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }
  private less(a: number, b: number) {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}

type SimEvent =
  | { kind: 'arrival' }
  | { kind: 'write'; profile: ChangeProfile; step: number; attempt: number }
  | { kind: 'flush'; writer: BackgroundWriter };

/** Replays the profiled changes of one app at `changesPerSecond` for `seconds` (simulated). */
export function simulate(input: SimulationInput): SimulationResult {
  const settings: SimulationSettings = { ...DEFAULT_SIMULATION, ...input.settings };
  const { profiles, backgroundWriters } = input;
  const totalWeight = profiles.reduce((sum, p) => sum + p.weight, 0);
  if (profiles.length === 0 || totalWeight <= 0) throw new Error('no change profile to simulate');
  const random = seededRandom(settings.seed);
  const endMs = settings.seconds * 1000;
  const heldUntil = new Map<ItemId, number>();
  const buckets = new Map<ItemId, TokenBucket>();
  const demand = new Map<ItemId, number>();
  const committed = new Map<ItemId, number>();
  const add = (map: Map<ItemId, number>, item: ItemId, units: number) => map.set(item, (map.get(item) ?? 0) + units);
  const bucket = (item: ItemId) => {
    let found = buckets.get(item);
    if (!found) {
      found = new TokenBucket(settings.itemWriteUnitsPerSecond, settings.burstSeconds);
      buckets.set(item, found);
    }
    return found;
  };
  const counts = {
    changes: 0,
    transactions: 0,
    transactionConflicts: 0,
    singleWriteConflicts: 0,
    retries: 0,
    throttledWrites: 0,
    failedChanges: 0,
    backgroundWrites: 0,
  };
  const pick = () => {
    let r = random() * totalWeight;
    for (const profile of profiles) {
      r -= profile.weight;
      if (r < 0) return profile;
    }
    return profiles[profiles.length - 1]!;
  };

  /** One write's attempt at `now` on shared items: its outcome (it takes the units and holds the items if it goes). */
  function attempt(now: number, transactional: boolean, items: { item: ItemId; writeUnits: number }[]) {
    if (items.some(({ item }) => (heldUntil.get(item) ?? -1) > now)) return 'conflict' as const;
    if (!items.every(({ item }) => bucket(item).hasTokens(now))) return 'throttled' as const;
    for (const { item, writeUnits } of items) {
      bucket(item).take(writeUnits);
      add(committed, item, writeUnits);
      if (transactional) heldUntil.set(item, now + settings.transactionMs);
    }
    return 'written' as const;
  }

  const queue = new EventQueue<SimEvent>();
  const interarrival = () => (-Math.log(1 - random()) * 1000) / settings.changesPerSecond;
  queue.push(interarrival(), { kind: 'arrival' });
  for (const writer of backgroundWriters) {
    if (writer.flushesPerSecond > 0) queue.push(random() * (1000 / writer.flushesPerSecond), { kind: 'flush', writer });
  }

  while (queue.size > 0) {
    const { at: now, value: event } = queue.pop();
    if (event.kind === 'arrival') {
      if (now >= endMs) continue;
      const picked = pick();
      const profile: ChangeProfile = {
        ...picked,
        writes: picked.writes.map((write) => ({
          ...write,
          items: write.items.map((i) =>
            i.spreadOver && i.spreadOver > 1 ? { ...i, item: `${i.item}#${Math.floor(random() * i.spreadOver)}` } : i,
          ),
        })),
      };
      counts.changes++;
      for (const write of profile.writes)
        for (const { item, writeUnits, perChange } of write.items) if (!perChange) add(demand, item, writeUnits);
      queue.push(now, { kind: 'write', profile, step: 0, attempt: 0 });
      queue.push(now + interarrival(), { kind: 'arrival' });
    } else if (event.kind === 'flush') {
      if (now >= endMs) continue;
      for (const item of event.writer.items) {
        counts.backgroundWrites++;
        add(demand, item, event.writer.writeUnits);
        const outcome = attempt(now, false, [{ item, writeUnits: event.writer.writeUnits }]);
        if (outcome === 'conflict') counts.singleWriteConflicts++;
        if (outcome === 'throttled') counts.throttledWrites++;
      }
      queue.push(now + 1000 / event.writer.flushesPerSecond, event);
    } else {
      const { profile, step } = event;
      const write = profile.writes[step];
      if (!write) continue;
      const transactional = write.operation === 'TransactWriteItems';
      if (transactional && event.attempt === 0) counts.transactions++;
      const outcome = attempt(
        now,
        transactional,
        write.items.filter((i) => !i.perChange),
      );
      const duration = transactional ? settings.transactionMs : settings.singleWriteMs;
      if (outcome === 'written') {
        queue.push(now + duration, { kind: 'write', profile, step: step + 1, attempt: 0 });
      } else if (outcome === 'throttled') {
        counts.throttledWrites++;
        counts.failedChanges++;
      } else {
        if (event.attempt === 0) {
          if (transactional) counts.transactionConflicts++;
          else counts.singleWriteConflicts++;
        }
        if (event.attempt < settings.retries) {
          counts.retries++;
          const wait = random() * settings.retryJitterMs * 2 ** event.attempt;
          queue.push(now + wait, { kind: 'write', profile, step, attempt: event.attempt + 1 });
        } else {
          counts.failedChanges++;
        }
      }
    }
  }

  const perSecond = (units: number) => units / settings.seconds;
  const hottest = [...demand.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([item, units]) => ({
      item,
      demandWcuPerSecond: perSecond(units),
      committedWcuPerSecond: perSecond(committed.get(item) ?? 0),
    }));
  const percent = (part: number, whole: number) => (whole === 0 ? 0 : (100 * part) / whole);
  return {
    settings,
    ...counts,
    conflictRatePercent: percent(counts.transactionConflicts, counts.transactions),
    failedChangesPercent: percent(counts.failedChanges, counts.changes),
    hottest,
  };
}
