import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/core/config.js';
import {
  backOffSeconds,
  DEFAULT_BACK_OFF_SECONDS,
  decideStoreCall,
  MAX_BACK_OFF_SECONDS,
  retryAfterSecondsOf,
  type StoreCallBudgetState,
} from '../../lib/domain/store-call-budget.js';

const NOW = Date.parse('2026-12-01T08:00:00Z');
const LIMITS = { burst: 10, perMinute: 60 };
const state = (tokens: number, agoMs = 0, backOffUntil = 0): StoreCallBudgetState => ({
  tokens,
  refilledAt: NOW - agoMs,
  backOffUntil,
});

describe('decideStoreCall: one budgeted call, or how long to wait', () => {
  it.each([
    ['no bucket yet: full', undefined, { kind: 'call', next: state(9) }],
    ['one call left', state(1), { kind: 'call', next: state(0) }],
    ['empty', state(0), { kind: 'wait', throttled: false, retryAfterSeconds: 1 }],
    ['half a call: wait for the other half', state(0.5), { kind: 'wait', throttled: false, retryAfterSeconds: 1 }],
    ['empty 2 s ago at 1/s: two calls back', state(0, 2000), { kind: 'call', next: state(1) }],
    ['refill stops at the burst', state(3, 3_600_000), { kind: 'call', next: state(9) }],
    [
      'a clock that went back refills nothing',
      state(0, -5000),
      { kind: 'wait', throttled: false, retryAfterSeconds: 1 },
    ],
    [
      'back-off open: wait for it, tokens or not',
      state(10, 0, NOW + 4500),
      { kind: 'wait', throttled: true, retryAfterSeconds: 5 },
    ],
    ['back-off over', state(10, 0, NOW), { kind: 'call', next: state(9, 0, NOW) }],
  ] as const)('%s', (_, before, decision) => {
    const decided = decideStoreCall(before, LIMITS, NOW);
    if (decision.kind === 'call' && decided.kind === 'call') {
      expect(decided.next.tokens).toBeCloseTo(decision.next.tokens, 9);
      expect(decided.next.refilledAt).toBe(Math.max(NOW, before?.refilledAt ?? NOW));
      expect(decided.next.backOffUntil).toBe(decision.next.backOffUntil);
    } else expect(decided).toEqual(decision);
  });

  it('the wait for an empty bucket is the time one call takes to come back', () => {
    expect(decideStoreCall(state(0), { burst: 5, perMinute: 1 }, NOW)).toEqual({
      kind: 'wait',
      throttled: false,
      retryAfterSeconds: 60,
    });
  });
});

describe('backOffSeconds: how long a 429 from the store holds budgeted calls back', () => {
  it.each([
    ['no Retry-After: the default', undefined, DEFAULT_BACK_OFF_SECONDS],
    ['Retry-After 0: the default', 0, DEFAULT_BACK_OFF_SECONDS],
    ['Retry-After 7', 7, 7],
    ['Retry-After 2.2 rounds up', 2.2, 3],
    ['Retry-After beyond the cap', 86_400, MAX_BACK_OFF_SECONDS],
  ] as const)('%s', (_, retryAfter, seconds) => {
    expect(backOffSeconds(retryAfter)).toBe(seconds);
  });
});

describe('retryAfterSecondsOf', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['12', 12],
    [' 3 ', 3],
    [new Date(NOW + 30_000).toUTCString(), undefined],
    ['soon', undefined],
    // Digits with anything else around them are not delta-seconds.
    ['12 s', undefined],
    ['in 12', undefined],
  ])('%j -> %j', (header, seconds) => {
    expect(retryAfterSecondsOf(header)).toBe(seconds);
  });
});

describe('the budget configuration', () => {
  it('defaults to a burst of 60 and 120 a minute; STORE_CALL_BURST and STORE_CALLS_PER_MINUTE set it', () => {
    expect(readConfig({}).storeCallBudget).toEqual({ burst: 60, perMinute: 120 });
    expect(readConfig({ STORE_CALL_BURST: '5', STORE_CALLS_PER_MINUTE: '1' }).storeCallBudget).toEqual({
      burst: 5,
      perMinute: 1,
    });
    expect(readConfig({ STORE_CALL_BURST: '0', STORE_CALLS_PER_MINUTE: '0' }).storeCallBudget).toEqual({
      burst: 1,
      perMinute: 1,
    });
    expect(() => readConfig({ STORE_CALLS_PER_MINUTE: '-1' })).toThrow(
      'STORE_CALLS_PER_MINUTE must be a non-negative integer',
    );
    expect(readConfig({}).storeUnknownTtlSeconds).toBe(600);
    expect(readConfig({ STORE_UNKNOWN_TTL_SECONDS: '0' }).storeUnknownTtlSeconds).toBe(0);
  });
});
