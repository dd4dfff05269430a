import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, hasNextPage, pageInfo } from '../../lib/domain/pagination.js';
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

describe('list cursor', () => {
  const position = {
    page: 3,
    list_sk: '2026-01-01T00:00:00.000Z#sub_0123456789abcdef01234567',
    id: 'sub_0123456789abcdef01234567',
  };
  const filters = { status: 'active', limit: 10 };

  it('round-trips the position for the same filters', () => {
    expect(decodeCursor(encodeCursor(position, filters), { limit: 10, status: 'active', user_id: undefined })).toEqual(
      position,
    );
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
