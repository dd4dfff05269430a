import { describe, expect, it } from 'vitest';
import { offeredProductsOf } from '../../lib/domain/offered-products.js';
import { answerPaywall } from '../../lib/domain/paywall-answer.js';
import { PREMIUM_MONTHLY, PRO_YEARLY, STANDARD_OFFERINGS } from '../support/fixtures.js';

const DOCUMENT = STANDARD_OFFERINGS;

describe('offeredProductsOf', () => {
  it('copies what a paywall shows of the products the packages name, and of no other', () => {
    // Not its trial, features, platforms or state: a paywall shows none of them.
    expect(offeredProductsOf(DOCUMENT, [PREMIUM_MONTHLY, PRO_YEARLY])).toEqual({
      premium_monthly: {
        name: 'Premium',
        description: 'Every feature, billed monthly',
        price: 9.99,
        currency: 'USD',
        billing_period: 'monthly',
      },
    });
    expect(offeredProductsOf(DOCUMENT, [PRO_YEARLY])).toEqual({});
  });
});

describe('answerPaywall', () => {
  const paywall = {
    id: 'main',
    name: 'Main',
    version: 2,
    sha256: 'ab'.repeat(32),
    bytes: 10,
    files: 1,
    uploaded_at: '2026-12-02T10:00:00.000Z',
  };
  it.each([
    [
      'under the base URL, one slash between',
      'https://cdn.example.com/paywalls//',
      `https://cdn.example.com/paywalls/app_1/main/${'ab'.repeat(32)}.zip`,
    ],
    [
      'under a base URL without a trailing slash',
      'https://cdn.example.com/paywalls',
      `https://cdn.example.com/paywalls/app_1/main/${'ab'.repeat(32)}.zip`,
    ],
    ['null while PAYWALLS_BASE_URL is unset', undefined, null],
  ])('downloads %s', (_, base, url) => {
    expect(answerPaywall('app_1', paywall, base)).toEqual({ ...paywall, download_url: url });
  });
});
