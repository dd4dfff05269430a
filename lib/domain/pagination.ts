/**
 * Page arithmetic and the opaque list cursor. A cursor remembers where a page ended and which
 * filters produced it, so the next page is read from there at constant cost.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';

export interface PageInfo {
  page: number;
  limit: number;
  total: number;
  pages: number;
}

/** pages is 0 when nothing matches; a page past the last one is empty, not an error. */
export function pageInfo(page: number, limit: number, total: number): PageInfo {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}

export const hasNextPage = (info: PageInfo): boolean => info.page < info.pages;

export interface CursorPosition {
  /** Page number of the page the cursor leads to. */
  page: number;
  /** Sort key and id of the last item of the previous page. */
  list_sk: string;
  id: string;
}

const fingerprint = (filters: Record<string, unknown>): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        Object.entries(filters)
          .filter(([, v]) => v !== undefined)
          .sort(),
      ),
    )
    .digest('base64url')
    .slice(0, 16);

export function encodeCursor(position: CursorPosition, filters: Record<string, unknown>): string {
  return Buffer.from(
    JSON.stringify({ p: position.page, s: position.list_sk, i: position.id, f: fingerprint(filters) }),
  ).toString('base64url');
}

/** Throws INVALID_PARAMETER for a cursor that is malformed or was issued for other filters. */
export function decodeCursor(cursor: string, filters: Record<string, unknown>): CursorPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not base64url JSON: decoded stays undefined and is refused below.
  }
  const c = decoded as { p?: unknown; s?: unknown; i?: unknown; f?: unknown } | undefined;
  if (
    !c ||
    typeof c.p !== 'number' ||
    !Number.isInteger(c.p) ||
    c.p < 2 ||
    typeof c.s !== 'string' ||
    typeof c.i !== 'string' ||
    !/^sub_[0-9a-f]{24}$/.test(c.i)
  ) {
    throw new AppError('INVALID_PARAMETER', 'cursor is not valid', {
      details: [{ path: 'query.cursor', message: 'is not a cursor issued by this API' }],
    });
  }
  if (c.f !== fingerprint(filters)) {
    throw new AppError('INVALID_PARAMETER', 'cursor was issued for other filters', {
      details: [{ path: 'query.cursor', message: 'use the cursor with the same filters as the page it came from' }],
    });
  }
  return { page: c.p, list_sk: c.s, id: c.i };
}
