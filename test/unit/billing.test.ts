import { describe, expect, it } from 'vitest';
import { addBillingPeriod, addMonths } from '../../lib/domain/billing.js';

const d = (iso: string) => new Date(iso);

describe('billing periods', () => {
  it('a monthly period from Jan 31 ends on the last day of February', () => {
    expect(addMonths(d('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(d('2028-01-31T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
  });

  it('a yearly period from Feb 29 ends on Feb 28 of the next year', () => {
    expect(addBillingPeriod(d('2028-02-29T00:00:00Z'), 'yearly').toISOString()).toBe('2029-02-28T00:00:00.000Z');
  });

  it('periods cross year boundaries', () => {
    expect(addBillingPeriod(d('2026-12-15T08:30:00Z'), 'monthly').toISOString()).toBe('2027-01-15T08:30:00.000Z');
    expect(addBillingPeriod(d('2026-11-30T00:00:00Z'), 'quarterly').toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(addBillingPeriod(d('2026-08-31T00:00:00Z'), 'semiannual').toISOString()).toBe('2027-02-28T00:00:00.000Z');
  });

  it('a weekly period is exactly seven days', () => {
    expect(addBillingPeriod(d('2026-12-29T23:59:59Z'), 'weekly').toISOString()).toBe('2027-01-05T23:59:59.000Z');
  });
});
