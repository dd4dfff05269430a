/**
 * Page arithmetic and the opaque list cursor. A cursor remembers where a page ended and which
 * filters produced it, so the next page is read from there at constant cost.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { base64urlJson, parseBase64urlJson } from '../core/json.js';

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

/** What a page read shows of the list: its items, and whether an item follows them. */
export interface PageSeen {
  page: number;
  limit: number;
  /** Items on this page. */
  onPage: number;
  /** An item follows this page's last one. */
  more: boolean;
}

/**
 * The total a page claims: the counted one, never below what the page itself proves. Counts kept
 * from the table's stream trail the writes, so right after creations they may count fewer items
 * than the list shows. Items on page N follow N-1 full pages; a full page with an item after it
 * proves one more. An empty page proves nothing (it may lie past the end).
 */
export function pageTotal(counted: number, { page, limit, onPage, more }: PageSeen): number {
  if (onPage === 0) return counted;
  const proven = (page - 1) * limit + onPage + (onPage === limit && more ? 1 : 0);
  return Math.max(counted, proven);
}

/** An opaque cursor: its fields as base64url JSON. */
export const encodeCursorFields = (fields: Record<string, unknown>): string => base64urlJson(fields);

const invalidCursor = () =>
  new AppError('INVALID_PARAMETER', 'cursor is not valid', {
    details: [{ path: 'query.cursor', message: 'is not a cursor issued by this API' }],
  });

/**
 * The fields of a cursor that `isValid` accepts; INVALID_PARAMETER when it is not base64url JSON
 * of an object, or its fields are not what the list issues.
 */
export function decodeCursorFields<T extends Record<string, unknown>>(
  cursor: string,
  isValid: (fields: Record<string, unknown>) => boolean,
): T {
  let decoded: unknown;
  try {
    decoded = parseBase64urlJson(cursor);
  } catch {
    // Not base64url JSON: refused below.
  }
  if (!decoded || typeof decoded !== 'object' || !isValid(decoded as Record<string, unknown>)) throw invalidCursor();
  return decoded as T;
}

/** A valid cursor used with another query than the one whose page it came from. */
export const cursorOfAnotherQuery = (issuedFor: string, use: string): AppError =>
  new AppError('INVALID_PARAMETER', `cursor was issued for ${issuedFor}`, {
    details: [{ path: 'query.cursor', message: use }],
  });

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
  return encodeCursorFields({ p: position.page, s: position.list_sk, i: position.id, f: fingerprint(filters) });
}

/** Throws INVALID_PARAMETER for a cursor that is malformed or was issued for other filters. */
export function decodeCursor(cursor: string, filters: Record<string, unknown>): CursorPosition {
  const c = decodeCursorFields<{ p: number; s: string; i: string; f: unknown }>(
    cursor,
    (c) =>
      typeof c.p === 'number' &&
      Number.isInteger(c.p) &&
      c.p >= 2 &&
      typeof c.s === 'string' &&
      typeof c.i === 'string' &&
      /^sub_[0-9a-f]{24}$/.test(c.i),
  );
  if (c.f !== fingerprint(filters)) {
    throw cursorOfAnotherQuery('other filters', 'use the cursor with the same filters as the page it came from');
  }
  return { page: c.p, list_sk: c.s, id: c.i };
}
