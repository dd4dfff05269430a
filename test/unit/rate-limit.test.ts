import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/core/config.js';
import {
  DEFAULT_RATE_LIMITS,
  decideRateLimit,
  firstWindowWrite,
  isRateLimitTier,
  RATE_LIMIT_WINDOW_SECONDS,
  rateLimitHeaders,
  rateLimitPolicyHeader,
} from '../../lib/domain/rate-limit.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('rate-limit decisions', () => {
  it('allows the limit-th request of a window and refuses the next one', () => {
    const window = { windowEndsAt: NOW + 30_000 };
    expect(decideRateLimit('standard', 200, { ...window, count: 200 }, NOW)).toEqual({
      allowed: true,
      tier: 'standard',
      limit: 200,
      remaining: 0,
      resetSeconds: 30,
    });
    expect(decideRateLimit('standard', 200, { ...window, count: 201 }, NOW)).toMatchObject({
      allowed: false,
      remaining: 0,
    });
  });

  it('counts the remaining requests down from the limit', () => {
    expect(decideRateLimit('premium', 2000, { count: 1, windowEndsAt: NOW + 60_000 }, NOW)).toMatchObject({
      remaining: 1999,
      resetSeconds: 60,
    });
  });

  it('rounds the reset up to whole seconds and never says 0 while the window is open', () => {
    expect(decideRateLimit('standard', 200, { count: 1, windowEndsAt: NOW + 1_200 }, NOW).resetSeconds).toBe(2);
    expect(decideRateLimit('standard', 200, { count: 1, windowEndsAt: NOW + 1 }, NOW).resetSeconds).toBe(1);
  });

  it('keeps remaining within 0..limit and reset within 1..window for any count and time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (limit, count, left) => {
          const decision = decideRateLimit('standard', limit, { count, windowEndsAt: NOW + left }, NOW);
          expect(decision.allowed).toBe(count <= limit);
          expect(decision.remaining).toBeGreaterThanOrEqual(0);
          expect(decision.remaining).toBeLessThanOrEqual(limit);
          expect(decision.resetSeconds).toBeGreaterThanOrEqual(1);
          expect(decision.resetSeconds).toBeLessThanOrEqual(RATE_LIMIT_WINDOW_SECONDS);
        },
      ),
    );
  });
});

describe('RateLimit header fields', () => {
  it('name the tier as the policy, with its quota and window, and the remaining units and reset', () => {
    const headers = rateLimitHeaders(decideRateLimit('standard', 200, { count: 50, windowEndsAt: NOW + 42_000 }, NOW));
    expect(headers).toEqual({ 'RateLimit-Policy': '"standard";q=200;w=60', RateLimit: '"standard";r=150;t=42' });
  });

  it('add Retry-After, equal to the reset, when the request is refused', () => {
    const headers = rateLimitHeaders(decideRateLimit('premium', 10, { count: 11, windowEndsAt: NOW + 7_000 }, NOW));
    expect(headers).toEqual({
      'RateLimit-Policy': '"premium";q=10;w=60',
      RateLimit: '"premium";r=0;t=7',
      'Retry-After': '7',
    });
  });
});

describe('RateLimit-Policy alone (a mobile request refused before its user is counted)', () => {
  it('is the same policy field a counted response carries', () => {
    expect(rateLimitPolicyHeader('standard', 200)).toEqual({ 'RateLimit-Policy': '"standard";q=200;w=60' });
    const counted = rateLimitHeaders(decideRateLimit('premium', 2000, { count: 1, windowEndsAt: NOW + 60_000 }, NOW));
    expect(rateLimitPolicyHeader('premium', 2000)['RateLimit-Policy']).toBe(counted['RateLimit-Policy']);
  });
});

describe('which write counts a request on a window item first', () => {
  it.each([
    ['no window seen by this instance', undefined, 'open'],
    ['a window seen closing before now', NOW - 1, 'open'],
    ['a window seen closing exactly now', NOW, 'open'],
    ['a window seen still open', NOW + 1, 'count'],
    ['a window seen just opened', NOW + 60_000, 'count'],
  ] as const)('%s: %s', (_case, knownEnd, write) => {
    expect(firstWindowWrite(knownEnd, NOW)).toBe(write);
  });
});

describe('rate-limit tiers (what `--tier` accepts)', () => {
  it.each([
    ['standard', true],
    ['premium', true],
    ['Premium', false],
    ['gold', false],
    ['', false],
    [undefined, false],
    [1, false],
  ])('isRateLimitTier(%o) is %s', (value, expected) => {
    expect(isRateLimitTier(value)).toBe(expected);
  });
});

describe('rate-limit configuration', () => {
  it('caches what was read about a key for 30 s by default, at most 60 s (the revocation latency of sdk keys)', () => {
    expect(readConfig({}).keyCacheTtlSeconds).toBe(30);
    expect(readConfig({ KEY_CACHE_TTL_SECONDS: '0' }).keyCacheTtlSeconds).toBe(0);
    expect(readConfig({ KEY_CACHE_TTL_SECONDS: '60' }).keyCacheTtlSeconds).toBe(60);
    expect(() => readConfig({ KEY_CACHE_TTL_SECONDS: '61' })).toThrow(/KEY_CACHE_TTL_SECONDS must be at most 60/);
  });

  it('defaults to 200 requests per minute for standard keys and reads each tier from its variable', () => {
    expect(readConfig({}).rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(DEFAULT_RATE_LIMITS.standard).toBe(200);
    expect(readConfig({ RATE_LIMIT_PREMIUM_PER_MINUTE: '5000' }).rateLimits).toEqual({ standard: 200, premium: 5000 });
  });

  it('refuses a limit that is not a whole number', () => {
    expect(() => readConfig({ RATE_LIMIT_STANDARD_PER_MINUTE: 'lots' })).toThrow(/RATE_LIMIT_STANDARD_PER_MINUTE/);
  });
});
