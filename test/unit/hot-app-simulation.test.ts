/** The pure parts of `npm run bench:hot-app`: key classification, the per-item token bucket, the simulation. */
import { describe, expect, it } from 'vitest';
import {
  type ChangeProfile,
  type ProfiledWrite,
  seededRandom,
  sharedItems,
  simulate,
  TokenBucket,
} from '../../bench/support/hot-app-simulation.js';

const COUNTER = 'COUNT#<app>|LIST#*#*#*';
const REVENUE = 'REV#<app>#2026-11|2026-11-25#premium_monthly#USD';

const transaction = (...items: [string, number, boolean?][]): ProfiledWrite => ({
  operation: 'TransactWriteItems',
  items: items.map(([item, writeUnits, perChange = false]) => ({ item, writeUnits, perChange })),
});
const single = (item: string, writeUnits = 1, perChange = false): ProfiledWrite => ({
  operation: 'UpdateItem',
  items: [{ item, writeUnits, perChange }],
});
const profile = (name: string, writes: ProfiledWrite[], weight = 1): ChangeProfile => ({ name, weight, writes });

describe('sharedItems', () => {
  it.each([
    {
      case: 'an item every instance touched, holding no id of theirs, is shared',
      instances: [
        { items: [COUNTER, 'SUB#<app>#sub_1|SUB'], ownIds: ['sub_1'] },
        { items: [COUNTER, 'SUB#<app>#sub_2|SUB'], ownIds: ['sub_2'] },
      ],
      shared: [COUNTER],
    },
    {
      case: 'an item one instance touched belongs to that change (an outbox event: an id the bench does not know)',
      instances: [
        { items: [REVENUE, 'OUTBOX#evt_a|OUTBOX'], ownIds: [] },
        { items: [REVENUE, 'OUTBOX#evt_b|OUTBOX'], ownIds: [] },
      ],
      shared: [REVENUE],
    },
    {
      case: 'an item both touched but named by an own id (the same user by mistake) is not shared',
      instances: [
        { items: ['USER#<app>#u1|PROFILE', COUNTER], ownIds: ['u1'] },
        { items: ['USER#<app>#u1|PROFILE', COUNTER], ownIds: ['u2'] },
      ],
      shared: [COUNTER],
    },
    {
      case: 'an empty own id names nothing',
      instances: [
        { items: [COUNTER], ownIds: [''] },
        { items: [COUNTER], ownIds: [''] },
      ],
      shared: [COUNTER],
    },
  ])('$case', ({ instances, shared }) => {
    expect([...sharedItems(instances)]).toEqual(shared);
  });

  it('needs two instances to tell', () => {
    expect(() => sharedItems([{ items: [COUNTER], ownIds: [] }])).toThrow('at least two instances');
  });
});

describe('TokenBucket', () => {
  it.each([
    { case: 'full at first', takes: [] as [number, number][], at: 0, open: true },
    { case: 'empty after its burst', takes: [[0, 10]] as [number, number][], at: 0, open: false },
    { case: 'refills at its rate', takes: [[0, 10]] as [number, number][], at: 100, open: true },
    {
      case: 'a write into debt waits for the debt to refill',
      takes: [[0, 15]] as [number, number][],
      at: 500,
      open: false,
    },
    { case: 'and goes once it has', takes: [[0, 15]] as [number, number][], at: 600, open: true },
    { case: 'saves no more than its burst', takes: [[10_000, 10]] as [number, number][], at: 10_000, open: false },
  ])('$case', ({ takes, at, open }) => {
    const bucket = new TokenBucket(10, 1); // 10 units per second, 1 second of burst
    for (const [time, units] of takes) {
      expect(bucket.hasTokens(time)).toBe(true);
      bucket.take(units);
    }
    expect(bucket.hasTokens(at)).toBe(open);
  });

  it('an infinite rate never refuses', () => {
    const bucket = new TokenBucket(Number.POSITIVE_INFINITY, 1);
    bucket.take(1e9);
    expect(bucket.hasTokens(0)).toBe(true);
  });
});

describe('seededRandom', () => {
  it('replays for a seed, differs between seeds, stays in [0, 1)', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const value of draw(9)) expect(value >= 0 && value < 1).toBe(true);
  });
});

describe('simulate', () => {
  const counterChange = profile('change', [transaction([COUNTER, 2], ['SUB#<app>#x|SUB', 4, true])]);
  const noBackground = { backgroundWriters: [] };

  it('changes that share no item never conflict, and per-change items need no throughput of the app', () => {
    const result = simulate({
      profiles: [profile('own', [transaction(['SUB#<app>#x|SUB', 4, true]), single('OUTBOX#e|OUTBOX', 1, true)])],
      ...noBackground,
      settings: { changesPerSecond: 1000, seconds: 2 },
    });
    expect(result.transactions).toBe(result.changes);
    expect(result.transactionConflicts).toBe(0);
    expect(result.failedChanges).toBe(0);
    expect(result.hottest).toEqual([]);
  });

  it('one shared item at 1,000 changes/s and 15 ms per transaction: most first tries conflict (a loss system, ρ/(1+ρ) = 94%)', () => {
    const result = simulate({
      profiles: [counterChange],
      ...noBackground,
      settings: { changesPerSecond: 1000, seconds: 5, retries: 0 },
    });
    expect(result.conflictRatePercent).toBeGreaterThan(90);
    expect(result.conflictRatePercent).toBeLessThan(97);
    expect(result.failedChanges).toBe(result.transactionConflicts);
    // Every change needs the counter once: 2 units × 1,000/s.
    expect(result.hottest[0]!.item).toBe(COUNTER);
    expect(result.hottest[0]!.demandWcuPerSecond).toBeGreaterThan(1800);
    expect(result.hottest[0]!.demandWcuPerSecond).toBeLessThan(2200);
    expect(result.hottest[0]!.committedWcuPerSecond).toBeLessThan(result.hottest[0]!.demandWcuPerSecond / 10);
  });

  it('an item spread over 4 copies takes a quarter of the writes on each, and the copies are named apart', () => {
    const result = simulate({
      profiles: [
        profile('keyed', [
          {
            operation: 'UpdateItem',
            items: [{ item: 'APIKEY#<h>|APIKEY', writeUnits: 1, perChange: false, spreadOver: 4 }],
          },
        ]),
      ],
      ...noBackground,
      settings: { changesPerSecond: 1000, seconds: 5 },
    });
    expect(result.hottest.map((h) => h.item).sort()).toEqual([0, 1, 2, 3].map((c) => `APIKEY#<h>|APIKEY#${c}`));
    for (const copy of result.hottest) {
      expect(copy.demandWcuPerSecond).toBeGreaterThan(200);
      expect(copy.demandWcuPerSecond).toBeLessThan(300);
    }
  });

  it('at 1 change/s the same item rarely conflicts', () => {
    const result = simulate({
      profiles: [counterChange],
      ...noBackground,
      settings: { changesPerSecond: 1, seconds: 200 },
    });
    expect(result.conflictRatePercent).toBeLessThan(5);
  });

  it('retries with jitter leave fewer failed changes than none', () => {
    const run = (retries: number) =>
      simulate({
        profiles: [counterChange],
        ...noBackground,
        settings: { changesPerSecond: 40, seconds: 20, retries },
      });
    const [none, three] = [run(0), run(3)];
    expect(none.transactionConflicts).toBeGreaterThan(0);
    expect(three.retries).toBeGreaterThan(0);
    expect(three.failedChanges).toBeLessThan(none.failedChanges);
  });

  it('an item past 1,000 write units per second is throttled down to about that rate (plus its burst)', () => {
    const result = simulate({
      profiles: [profile('count', [single('APIKEY#h|APIKEY', 1)])],
      ...noBackground,
      settings: { changesPerSecond: 2000, seconds: 10 },
    });
    expect(result.throttledWrites).toBeGreaterThan(0);
    expect(result.failedChanges).toBe(result.throttledWrites);
    expect(result.hottest[0]!.committedWcuPerSecond).toBeGreaterThanOrEqual(1000);
    expect(result.hottest[0]!.committedWcuPerSecond).toBeLessThanOrEqual(1101); // 1,000/s and one second saved
  });

  it('a single-item write on an item a transaction holds conflicts', () => {
    const result = simulate({
      profiles: [counterChange, profile('direct', [single(COUNTER, 1)])],
      ...noBackground,
      settings: { changesPerSecond: 500, seconds: 5, retries: 0 },
    });
    expect(result.singleWriteConflicts).toBeGreaterThan(0);
  });

  it('a background writer writes each item once per flush, whatever the request rate', () => {
    const writer = { name: 'aggregator', items: [COUNTER, REVENUE], flushesPerSecond: 10, writeUnits: 1 };
    for (const changesPerSecond of [10, 1000]) {
      const result = simulate({
        profiles: [profile('own', [transaction(['SUB#<app>#x|SUB', 4, true])])],
        backgroundWriters: [writer],
        settings: { changesPerSecond, seconds: 10 },
      });
      expect(result.backgroundWrites).toBe(200);
      expect(result.hottest.map((h) => [h.item, h.demandWcuPerSecond])).toEqual([
        [COUNTER, 10],
        [REVENUE, 10],
      ]);
      expect(result.transactionConflicts + result.singleWriteConflicts).toBe(0);
    }
  });

  it('replays exactly for a seed, and mixes kinds by weight', () => {
    const profiles = [counterChange, profile('revenue', [transaction([REVENUE, 2])], 3)];
    const run = (seed: number) =>
      simulate({ profiles, ...noBackground, settings: { changesPerSecond: 200, seconds: 5, seed } });
    expect(run(3)).toEqual(run(3));
    expect(run(3)).not.toEqual(run(4));
    const [revenue, counter] = run(3).hottest;
    expect(revenue!.item).toBe(REVENUE);
    expect(revenue!.demandWcuPerSecond / counter!.demandWcuPerSecond).toBeGreaterThan(2.5);
    expect(revenue!.demandWcuPerSecond / counter!.demandWcuPerSecond).toBeLessThan(3.5);
  });
});
