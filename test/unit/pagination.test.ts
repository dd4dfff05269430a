import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  decodeCursorFields,
  encodeCursor,
  encodeCursorFields,
  hasNextPage,
  pageInfo,
  pageTotal,
} from '../../lib/domain/pagination.js';
import { appErrorThrownBy } from '../support/assertions.js';

describe('page arithmetic', () => {
  it('25 items at 10 per page make 3 pages', () => {
    expect(pageInfo(1, 10, 25)).toEqual({ page: 1, limit: 10, total: 25, pages: 3 });
    expect(hasNextPage(pageInfo(2, 10, 25))).toBe(true);
    expect(hasNextPage(pageInfo(3, 10, 25))).toBe(false);
  });

  it('no items make 0 pages and no next page', () => {
    expect(pageInfo(1, 20, 0)).toEqual({ page: 1, limit: 20, total: 0, pages: 0 });
    expect(hasNextPage(pageInfo(1, 20, 0))).toBe(false);
  });

  it('an exact multiple has no partial last page', () => {
    expect(pageInfo(1, 10, 30).pages).toBe(3);
  });
});

describe('a total never below what the page proves (pageTotal)', () => {
  // [name, counted, page, limit, items on the page, an item follows, total]
  const rows: [string, number, number, number, number, boolean, number][] = [
    ['counted right: as counted', 25, 1, 10, 10, true, 25],
    ['counted more than shown (removals not counted yet): as counted', 40, 3, 10, 5, false, 40],
    ['right after 28 creations, counted 26: a partial first page proves its items', 26, 1, 50, 28, false, 28],
    ['a full page with an item after it proves one more', 15, 2, 10, 10, true, 21],
    ['a full page with none after it proves its items only', 0, 2, 10, 10, false, 20],
    ['a partial page: an item after it is no more proof (it was left out of the page)', 0, 1, 10, 7, true, 7],
    ['items on page 3 follow two full pages', 0, 3, 10, 4, false, 24],
    ['an empty page proves nothing: it may lie past the end', 25, 9, 10, 0, false, 25],
    ['an empty page of an empty list', 0, 1, 20, 0, false, 0],
  ];
  for (const [name, counted, page, limit, onPage, more, total] of rows) {
    it(name, () => expect(pageTotal(counted, { page, limit, onPage, more })).toBe(total));
  }

  it('the pages follow the corrected total: a full page with more gets a next page', () => {
    const total = pageTotal(0, { page: 1, limit: 20, onPage: 20, more: true });
    expect(hasNextPage(pageInfo(1, 20, total))).toBe(true);
  });
});

describe('list cursor', () => {
  const position = {
    page: 3,
    list_sk: '2026-01-01T00:00:00.000Z#sub_0123456789abcdef01234567',
    id: 'sub_0123456789abcdef01234567',
  };
  const filters = { status: 'active', limit: 10 };

  it('round-trips the position for the same filters', () => {
    expect(
      decodeCursor(encodeCursor(position, filters), {
        limit: 10,
        status: 'active',
        user_id: undefined,
      }),
    ).toEqual(position);
  });

  it('is rejected for other filters', () => {
    const cursor = encodeCursor(position, filters);
    for (const other of [
      { status: 'expired', limit: 10 },
      { status: 'active', limit: 20 },
    ]) {
      const error = appErrorThrownBy(() => decodeCursor(cursor, other));
      expect(error.code, JSON.stringify(other)).toBe('INVALID_PARAMETER');
      expect(error.message).toMatch(/other filters/);
    }
  });

  it('rejects garbage and tampered cursors with INVALID_PARAMETER', () => {
    for (const bad of [
      'garbage',
      Buffer.from('{"p":1}').toString('base64url'),
      Buffer.from('{"p":2,"s":"x","i":"sub_../x","f":"y"}').toString('base64url'),
    ]) {
      expect(appErrorThrownBy(() => decodeCursor(bad, filters)).code, bad).toBe('INVALID_PARAMETER');
    }
  });
});

describe('list cursor: what is accepted and what each refusal says', () => {
  const id = 'sub_0123456789abcdef01234567';
  const position = (page: number, at = id) => ({ page, list_sk: `2026-01-01T00:00:00.000Z#${at}`, id: at });
  const filters = { status: 'active', limit: 10 };
  const notACursor = {
    code: 'INVALID_PARAMETER',
    message: 'cursor is not valid',
    details: [{ path: 'query.cursor', message: 'is not a cursor issued by this API' }],
  };
  const refusal = (cursor: string, with_ = filters) => {
    const error = appErrorThrownBy(() => decodeCursor(cursor, with_));
    return { code: error.code, message: error.message, details: error.details };
  };

  it('keeps its format, so a cursor a client holds across a deploy stays valid', () => {
    const issued =
      'eyJwIjozLCJzIjoiMjAyNi0wMS0wMVQwMDowMDowMC4wMDBaI3N1Yl8wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1NjciLCJpIjoic3ViXzAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2NyIsImYiOiJlRDB3c1RVS1I0czBwVTV1In0';
    expect(encodeCursor(position(3), filters)).toBe(issued);
    expect(decodeCursor(issued, filters)).toEqual(position(3));
  });

  it('leads to page 2 or later: a cursor for page 2 is accepted, one for page 1 or 0 is not', () => {
    expect(decodeCursor(encodeCursor(position(2), filters), filters)).toEqual(position(2));
    expect(refusal(encodeCursor(position(1), filters))).toEqual(notACursor);
    expect(refusal(encodeCursor(position(0), filters))).toEqual(notACursor);
  });

  it.each([
    ['not base64url JSON', 'garbage'],
    ['JSON null', Buffer.from('null').toString('base64url')],
    ['a fractional page', encodeCursor(position(2.5), filters)],
    ['an id with a prefix', encodeCursor(position(2, `x${id}`), filters)],
    ['an id with a suffix', encodeCursor(position(2, `${id}0`), filters)],
    ['an id in capitals', encodeCursor(position(2, 'sub_0123456789ABCDEF01234567'), filters)],
    // An array of the id would pass the id's pattern as a string.
    ['an id that is not a string', encodeCursorFields({ p: 2, s: position(2).list_sk, i: [id], f: 'x' })],
    ['a sort key that is not a string', encodeCursorFields({ p: 2, s: 20260101, i: id, f: 'x' })],
    ['a page that is not a number', encodeCursorFields({ p: '2', s: position(2).list_sk, i: id, f: 'x' })],
  ])('refuses %s as not a cursor of this API', (_, cursor) => {
    expect(refusal(cursor)).toEqual(notACursor);
  });

  it.each([
    ['a number', 5],
    ['a string', 'sub_0123456789abcdef01234567'],
    ['true', true],
  ])('takes only a JSON object as a cursor, whatever its fields must be: not %s', (_, value) => {
    const cursor = Buffer.from(JSON.stringify(value)).toString('base64url');
    const error = appErrorThrownBy(() => decodeCursorFields(cursor, () => true));
    expect({ code: error.code, message: error.message, details: error.details }).toEqual(notACursor);
  });

  it('refuses a cursor of other filters, saying so', () => {
    expect(refusal(encodeCursor(position(2), filters), { status: 'expired', limit: 10 })).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'cursor was issued for other filters',
      details: [{ path: 'query.cursor', message: 'use the cursor with the same filters as the page it came from' }],
    });
  });
});
