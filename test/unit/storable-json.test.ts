import { describe, expect, it } from 'vitest';
import { normalizeEvents } from '../../lib/domain/events.js';
import { isStorableNumber, priceSchema, unstorablePlace } from '../../lib/schemas/common.js';
import {
  attributionReportBody,
  customPropertiesBody,
  freeFormReportBody,
  reportConversionBody,
} from '../../lib/schemas/mobile.js';
import { appErrorThrownBy } from '../support/assertions.js';

/** Free-form JSON whose stored form would fail the write (a 500 before these rules): each is refused with where. */
const UNSTORABLE: [string, unknown, (string | number)[]][] = [
  ['an integer beyond 2^53 (the SDK refuses to round it)', { a: { b: 2 ** 60 } }, ['a', 'b']],
  ['1e308', { a: [1, -1e308] }, ['a', 1]],
  ['a magnitude below 1e-130 (DynamoDB underflow)', { a: 5e-324 }, ['a']],
  ['an empty key (DynamoDB: empty attribute name)', { a: { '': 1 } }, ['a']],
  [
    'a nested own __proto__ key (marshalling would make it a prototype)',
    JSON.parse('{"a":{"__proto__":{"x":1}}}'),
    ['a', '__proto__'],
  ],
  ['a nested constructor key', { a: [{ constructor: 1 }] }, ['a', 0, 'constructor']],
];

describe('free-form JSON is stored as sent, or refused', () => {
  it('storable numbers: 0 and magnitudes from 1e-130 to 2^53 - 1', () => {
    for (const n of [0, -0, 1, -1, 0.1 + 0.2, 1e-130, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER])
      expect(isStorableNumber(n), String(n)).toBe(true);
    for (const n of [Number.MAX_SAFE_INTEGER + 1, 1e308, 5e-324, 1e-131, Number.NaN, Number.POSITIVE_INFINITY])
      expect(isStorableNumber(n), String(n)).toBe(false);
  });

  it.each(UNSTORABLE)('%s is found, with its path', (_name, value, path) => {
    expect(unstorablePlace(value)?.path).toEqual(path);
  });

  it('ordinary JSON has no unstorable place', () => {
    expect(unstorablePlace({ a: [1, 2.5, 'x', null, true, { b: {} }], 'key with spaces': -3 })).toBeUndefined();
  });

  it.each(UNSTORABLE)('a report holding %s is refused naming the field', (_name, value, path) => {
    const result = freeFormReportBody.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
    expect(attributionReportBody.safeParse({ network: 'n', data: value }).success).toBe(false);
  });

  it.each(UNSTORABLE)('an event whose extra or properties hold %s is refused with its index', (_name, value) => {
    for (const event of [
      { name: 'e', user: 'u', sessionId: 's', extra: value },
      { eventName: 'e', properties: value },
    ]) {
      const error = appErrorThrownBy(() =>
        normalizeEvents(
          [{ name: 'ok', user: 'u', sessionId: 's' }, event],
          { userId: 'u', userProven: false },
          new Date(),
        ),
      );
      expect(error).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('events[1]') });
    }
  });

  it('custom property values, conversion values and prices must be storable numbers', () => {
    for (const n of [2 ** 60, 1e308, 5e-324]) {
      expect(customPropertiesBody.safeParse({ properties: { p: n } }).success, String(n)).toBe(false);
      expect(reportConversionBody.safeParse({ conversionType: 't', value: n }).success, String(n)).toBe(false);
    }
    expect(priceSchema.safeParse(1e-200).success).toBe(false);
    expect(priceSchema.safeParse(9.99).success).toBe(true);
    expect(customPropertiesBody.safeParse({ properties: { p: -2.5 } }).success).toBe(true);
  });
});
