/** Intro eligibility as purchases-ios decodes it (GetIntroEligibilityResponse.swift): a table, no database. */
import { describe, expect, it } from 'vitest';
import { introEligibilityOf } from '../../lib/domain/revenuecat-intro-eligibility.js';

describe('introEligibilityOf', () => {
  it.each([
    ['no subscriptions', [], { a: null, b: null }],
    ['a trial of a', [{ product_id: 'a', trial_period: true }], { a: false, b: null }],
    ['a paid a (no trial): proves nothing', [{ product_id: 'a', trial_period: false }], { a: null, b: null }],
    [
      'a trial of a and of b',
      [
        { product_id: 'a', trial_period: true },
        { product_id: 'b', trial_period: true },
      ],
      { a: false, b: false },
    ],
    ['a trial of another product', [{ product_id: 'c', trial_period: true }], { a: null, b: null }],
  ])('%s', (_, subscriptions, expected) => {
    expect(introEligibilityOf(['a', 'b'], subscriptions)).toEqual(expected);
  });

  it('answers each product asked once, and nothing for none asked; never true', () => {
    expect(introEligibilityOf([], [{ product_id: 'a', trial_period: true }])).toEqual({});
    expect(Object.values(introEligibilityOf(['a', 'a', 'b'], []))).toEqual([null, null]);
  });
});
