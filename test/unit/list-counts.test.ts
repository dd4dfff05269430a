/** The count moves of one write of a subscription, as a table (no database). */
import { describe, expect, it } from 'vitest';
import { countCells, countMoves } from '../../lib/data/list-counters.js';
import type { FacetValues } from '../../lib/data/table-keys.js';
import { conflictDelayMs, isTransactionConflict } from '../../lib/data/transactions.js';

const ACTIVE_IOS: FacetValues = { status: 'active', product_id: 'p1', platform: 'ios' };
const CANCELLED_IOS: FacetValues = { ...ACTIVE_IOS, status: 'cancelled' };
const ACTIVE_P2: FacetValues = { ...ACTIVE_IOS, product_id: 'p2' };

/** Moves as `<product item> <status>#<platform>: delta`, sorted. */
const moves = (before: FacetValues | undefined, after: FacetValues | undefined) =>
  countMoves('app', before, after)
    .map((m) => `${m.key.sk} ${m.attribute.replace('count#', '')}: ${m.delta}`)
    .sort();

describe('count cells and moves', () => {
  it('a subscription is counted in 8 cells held by 2 items: its product and any product', () => {
    const cells = countCells('app', ACTIVE_IOS);
    expect(cells).toHaveLength(8);
    expect(new Set(cells.map((c) => `${c.key.pk}|${c.key.sk}`))).toEqual(
      new Set(['COUNT#app|LIST#p1', 'COUNT#app|LIST#*']),
    );
  });

  it.each([
    [
      'created',
      undefined,
      ACTIVE_IOS,
      [
        'LIST#* *#*: 1',
        'LIST#* *#ios: 1',
        'LIST#* active#*: 1',
        'LIST#* active#ios: 1',
        'LIST#p1 *#*: 1',
        'LIST#p1 *#ios: 1',
        'LIST#p1 active#*: 1',
        'LIST#p1 active#ios: 1',
      ],
    ],
    [
      'deleted',
      ACTIVE_IOS,
      undefined,
      [
        'LIST#* *#*: -1',
        'LIST#* *#ios: -1',
        'LIST#* active#*: -1',
        'LIST#* active#ios: -1',
        'LIST#p1 *#*: -1',
        'LIST#p1 *#ios: -1',
        'LIST#p1 active#*: -1',
        'LIST#p1 active#ios: -1',
      ],
    ],
    [
      'status changed: only the status cells move',
      ACTIVE_IOS,
      CANCELLED_IOS,
      [
        'LIST#* active#*: -1',
        'LIST#* active#ios: -1',
        'LIST#* cancelled#*: 1',
        'LIST#* cancelled#ios: 1',
        'LIST#p1 active#*: -1',
        'LIST#p1 active#ios: -1',
        'LIST#p1 cancelled#*: 1',
        'LIST#p1 cancelled#ios: 1',
      ],
    ],
    [
      'product changed: the any-product item does not move',
      ACTIVE_IOS,
      ACTIVE_P2,
      [
        'LIST#p1 *#*: -1',
        'LIST#p1 *#ios: -1',
        'LIST#p1 active#*: -1',
        'LIST#p1 active#ios: -1',
        'LIST#p2 *#*: 1',
        'LIST#p2 *#ios: 1',
        'LIST#p2 active#*: 1',
        'LIST#p2 active#ios: 1',
      ],
    ],
    ['nothing counted changed', ACTIVE_IOS, { ...ACTIVE_IOS }, []],
    ['neither image', undefined, undefined, []],
  ])('%s', (_name, before, after, expected) => {
    expect(moves(before, after)).toEqual(expected);
  });
});

describe('retrying a transaction that met another', () => {
  const cancelled = (...codes: string[]) =>
    Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it.each([
    ['a conflict on one item, none on the others', cancelled('None', 'TransactionConflict'), true],
    ['a conflict beside a reason without a code', cancelled(undefined as never, 'TransactionConflict'), true],
    [
      'a conflict and a failed condition: the condition is the answer',
      cancelled('TransactionConflict', 'ConditionalCheckFailed'),
      false,
    ],
    ['a failed condition alone', cancelled('ConditionalCheckFailed', 'None'), false],
    ['throttled: the SDK and the 503 handle it', cancelled('ThrottlingError'), false],
    ['any other error', new Error('boom'), false],
  ])('%s: retried %s', (_name, error, retried) => {
    expect(isTransactionConflict(error)).toBe(retried);
  });

  it.each([
    [1, 1, 20],
    [2, 1, 40],
    [5, 1, 320],
    [6, 1, 500],
    [9, 1, 500],
    [3, 0.5, 40],
    [3, 0, 0],
  ])('before attempt %i+1 with random %d: pause %i ms', (attempt, random, ms) => {
    expect(conflictDelayMs(attempt, random)).toBe(ms);
  });
});
