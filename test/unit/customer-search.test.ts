import { describe, expect, it } from 'vitest';
import {
  addCustomerEntries,
  type CustomersSeen,
  decodeCustomerCursor,
  encodeCustomerCursor,
} from '../../lib/domain/customer-search.js';

const nothing: CustomersSeen = { userIds: [], lastRead: undefined, ended: false };
const ERASED = `erased_${'0'.repeat(24)}`;

describe('addCustomerEntries', () => {
  it.each([
    // [what, seen before, entries read, prefix, seen after]
    [
      'equal ids in a row count once',
      nothing,
      ['a', 'a', 'b', 'b', 'b', 'c'],
      '',
      { userIds: ['a', 'b', 'c'], lastRead: 'c', ended: false },
    ],
    [
      'a read that goes on from the last id seen does not repeat it',
      { userIds: ['a', 'b'], lastRead: 'b', ended: false },
      ['b', 'c'],
      '',
      { userIds: ['a', 'b', 'c'], lastRead: 'c', ended: false },
    ],
    [
      'the first id past the prefix ends the range',
      nothing,
      ['ab1', 'ab2', 'ac', 'ab9'],
      'ab',
      { userIds: ['ab1', 'ab2'], lastRead: 'ab2', ended: true },
    ],
    [
      'an id equal to the prefix is in it',
      nothing,
      ['ab', 'abc'],
      'ab',
      { userIds: ['ab', 'abc'], lastRead: 'abc', ended: false },
    ],
    [
      'an anonymous id is no customer, but the reads go on past it',
      nothing,
      ['e1', ERASED, ERASED],
      'e',
      { userIds: ['e1'], lastRead: ERASED, ended: false },
    ],
    [
      'an id that only looks anonymous is a customer',
      nothing,
      ['erased_me'],
      'e',
      { userIds: ['erased_me'], lastRead: 'erased_me', ended: false },
    ],
    [
      'nothing read changes nothing',
      { userIds: ['a'], lastRead: 'a', ended: true },
      [],
      'a',
      { userIds: ['a'], lastRead: 'a', ended: true },
    ],
  ] as const)('%s', (_what, before, entries, prefix, after) => {
    expect(addCustomerEntries(before, entries, prefix)).toEqual(after);
  });

  it('leaves what was seen before as it was', () => {
    const before: CustomersSeen = { userIds: ['a'], lastRead: 'a', ended: false };
    addCustomerEntries(before, ['b'], '');
    expect(before).toEqual({ userIds: ['a'], lastRead: 'a', ended: false });
  });
});

describe('the customer cursor', () => {
  it('gives back the user id a page ended at, for the same prefix', () => {
    expect(decodeCustomerCursor(encodeCustomerCursor('cus-', 'cus-bob'), 'cus-')).toBe('cus-bob');
    expect(decodeCustomerCursor(encodeCustomerCursor('', 'anyone'), '')).toBe('anyone');
  });

  it('says how to use a cursor of another prefix', () => {
    expect(() => decodeCustomerCursor(encodeCustomerCursor('cus-', 'cus-bob'), 'other')).toThrow(
      expect.objectContaining({
        details: [{ path: 'query.cursor', message: 'use the cursor with the same prefix as the page it came from' }],
      }),
    );
  });

  it.each([
    ['another prefix', encodeCustomerCursor('cus-', 'cus-bob'), 'other', 'cursor was issued for another prefix'],
    ['no prefix where it had one', encodeCustomerCursor('cus-', 'cus-bob'), '', 'cursor was issued for another prefix'],
    ['not base64url JSON', 'not a cursor', 'cus-', 'cursor is not valid'],
    [
      'an id outside its own prefix',
      Buffer.from('{"a":"zed","p":"cus-"}').toString('base64url'),
      'cus-',
      'cursor is not valid',
    ],
    ['an empty id', Buffer.from('{"a":"","p":""}').toString('base64url'), '', 'cursor is not valid'],
    ['no prefix field', Buffer.from('{"a":"cus-bob"}').toString('base64url'), 'cus-', 'cursor is not valid'],
    ['an id that is no string', Buffer.from('{"a":7,"p":""}').toString('base64url'), '', 'cursor is not valid'],
  ])('refuses %s', (_what, cursor, prefix, message) => {
    expect(() => decodeCustomerCursor(cursor, prefix)).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMETER', message }),
    );
  });
});
