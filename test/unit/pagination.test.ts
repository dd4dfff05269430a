import { describe, expect, it } from 'vitest';
import { encodeCursor, encodeCursorFields } from '../../lib/domain/pagination.js';
import { errorThrownBy } from '../support/assertions.js';
import { freshBeforeEach } from '../support/fresh-module.js';

// Loaded before each test: what the module makes while it loads is then every test's to hold (docs/mutation.md).
const paginationModule = freshBeforeEach(() => import('../../lib/domain/pagination.js'));
const appErrorThrownBy = (run: () => unknown) => errorThrownBy(run, paginationModule.AppError);

describe('page arithmetic', () => {
  it('25 items at 10 per page make 3 pages', () => {
    expect(paginationModule.pageInfo(1, 10, 25)).toEqual({ page: 1, limit: 10, total: 25, pages: 3 });
    expect(paginationModule.hasNextPage(paginationModule.pageInfo(2, 10, 25))).toBe(true);
    expect(paginationModule.hasNextPage(paginationModule.pageInfo(3, 10, 25))).toBe(false);
  });

  it('no items make 0 pages and no next page', () => {
    expect(paginationModule.pageInfo(1, 20, 0)).toEqual({ page: 1, limit: 20, total: 0, pages: 0 });
    expect(paginationModule.hasNextPage(paginationModule.pageInfo(1, 20, 0))).toBe(false);
  });

  it('an exact multiple has no partial last page', () => {
    expect(paginationModule.pageInfo(1, 10, 30).pages).toBe(3);
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
      paginationModule.decodeCursor(encodeCursor(position, filters), {
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
      const error = appErrorThrownBy(() => paginationModule.decodeCursor(cursor, other));
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
      expect(appErrorThrownBy(() => paginationModule.decodeCursor(bad, filters)).code, bad).toBe('INVALID_PARAMETER');
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
    const error = appErrorThrownBy(() => paginationModule.decodeCursor(cursor, with_));
    return { code: error.code, message: error.message, details: error.details };
  };

  it('keeps its format, so a cursor a client holds across a deploy stays valid', () => {
    const issued =
      'eyJwIjozLCJzIjoiMjAyNi0wMS0wMVQwMDowMDowMC4wMDBaI3N1Yl8wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1NjciLCJpIjoic3ViXzAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2NyIsImYiOiJlRDB3c1RVS1I0czBwVTV1In0';
    expect(encodeCursor(position(3), filters)).toBe(issued);
    expect(paginationModule.decodeCursor(issued, filters)).toEqual(position(3));
  });

  it('leads to page 2 or later: a cursor for page 2 is accepted, one for page 1 or 0 is not', () => {
    expect(paginationModule.decodeCursor(encodeCursor(position(2), filters), filters)).toEqual(position(2));
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
    const error = appErrorThrownBy(() => paginationModule.decodeCursorFields(cursor, () => true));
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
