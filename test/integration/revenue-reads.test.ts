/**
 * Reading the day-by-day counters and exchange rates kept in one partition per month
 * (lib/data/revenue-reads.ts), against DynamoDB Local: periods across months and a year's end, the
 * first and last day included, counters a day never moved read as 0.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchWriteAll, putRequest } from '../../lib/data/batch.js';
import * as keys from '../../lib/data/entity-keys.js';
import { putExchangeRates, readExchangeRates, readRevenueCounters } from '../../lib/data/revenue-reads.js';
import { interceptCommands, stopIntercepting } from '../support/ddb-intercept.js';

const counter = (appId: string, day: string, counters: Record<string, number>) =>
  putRequest({ ...keys.revenue(appId, day, 'pro', 'EUR'), day, product_id: 'pro', currency: 'EUR', ...counters });

describe('revenue counters and exchange rates by day', () => {
  it('a period across the year end reads every month between, from its first day to its last', async () => {
    const appId = `app_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await batchWriteAll([
      counter(appId, '2026-10-31', { amount_micros: 1 }),
      counter(appId, '2026-11-30', { amount_micros: 2, renewals: 1 }),
      counter(appId, '2026-12-15', { amount_micros: 3, refunds: 1, net_active: -1 }),
      counter(appId, '2027-01-01', { amount_micros: 4, new_subscriptions: 2, net_active: 2 }),
      counter(appId, '2027-02-28', { amount_micros: 5 }),
      counter(appId, '2027-03-01', { amount_micros: 6 }),
    ]);
    const read = await readRevenueCounters(appId, '2026-11-30', '2027-02-28');
    expect(read.sort((a, b) => a.day.localeCompare(b.day))).toEqual([
      {
        day: '2026-11-30',
        product_id: 'pro',
        currency: 'EUR',
        amount_micros: 2,
        new_subscriptions: 0,
        renewals: 1,
        refunds: 0,
        net_active: 0,
      },
      {
        day: '2026-12-15',
        product_id: 'pro',
        currency: 'EUR',
        amount_micros: 3,
        new_subscriptions: 0,
        renewals: 0,
        refunds: 1,
        net_active: -1,
      },
      {
        day: '2027-01-01',
        product_id: 'pro',
        currency: 'EUR',
        amount_micros: 4,
        new_subscriptions: 2,
        renewals: 0,
        refunds: 0,
        net_active: 2,
      },
      {
        day: '2027-02-28',
        product_id: 'pro',
        currency: 'EUR',
        amount_micros: 5,
        new_subscriptions: 0,
        renewals: 0,
        refunds: 0,
        net_active: 0,
      },
    ]);
    expect(await readRevenueCounters(appId, '2027-01-02', '2027-02-27')).toEqual([]);
    // One query per month of the period, all four at once: no other partition is asked.
    const sent = interceptCommands();
    try {
      await readRevenueCounters(appId, '2026-11-30', '2027-02-28');
    } finally {
      stopIntercepting();
    }
    expect(sent.map(({ input }) => input.ExpressionAttributeValues?.[':pk']).sort()).toEqual(
      ['2026-11', '2026-12', '2027-01', '2027-02'].map((month) => `REV#${appId}#${month}`),
    );
  });

  it('exchange rates: into one currency, by day and source currency, across the year end', async () => {
    const to = `X${randomUUID().replace(/-/g, '').slice(0, 6).toUpperCase()}`;
    await putExchangeRates([
      { date: '2026-12-31', from: 'EUR', to, rate: 1.1 },
      { date: '2026-12-31', from: 'GBP', to, rate: 1.3 },
      { date: '2027-01-01', from: 'EUR', to, rate: 1.2 },
      { date: '2027-01-02', from: 'EUR', to, rate: 9 },
      { date: '2027-01-01', from: 'EUR', to: `${to}Z`, rate: 7 },
    ]);
    const table = await readExchangeRates(to, '2026-12-31', '2027-01-01');
    expect(Object.fromEntries([...table].map(([day, rates]) => [day, Object.fromEntries(rates)]))).toEqual({
      '2026-12-31': { EUR: 1.1, GBP: 1.3 },
      '2027-01-01': { EUR: 1.2 },
    });
  });
});
