import { describe, expect, it } from 'vitest';
import { headerOf, originalFrame } from '../../lib/core/stack-traces.js';

const BUNDLE = 'file:///var/task/index.mjs';

/** A source map of two positions in the bundle's line 3, as SourceMap#findOrigin answers (1-based). */
const origins: Record<string, { fileName: string; lineNumber: number; columnNumber: number }> = {
  '3:120': { fileName: '../../../lib/services/store-truth.ts', lineNumber: 98, columnNumber: 31 },
  '3:4507': { fileName: '../../node_modules/@smithy/core/dist-es/index.js', lineNumber: 7, columnNumber: 2 },
  '3:9': { fileName: 'file:///work/main/functions/jobs/expire-subscriptions.ts', lineNumber: 12, columnNumber: 3 },
};
const findOrigin = (line: number, column: number) => origins[`${line}:${column}`] ?? {};

describe('a stack frame of the bundle, as its sources name it', () => {
  it.each([
    ['a named frame', `applyStoreState (${BUNDLE}:3:120)`, 'applyStoreState (lib/services/store-truth.ts:98:31)'],
    [
      'an async frame',
      `async Promise.all (index 0) (${BUNDLE}:3:120)`,
      'async Promise.all (index 0) (lib/services/store-truth.ts:98:31)',
    ],
    ['an anonymous frame', `${BUNDLE}:3:4507`, 'node_modules/@smithy/core/dist-es/index.js:7:2'],
    ['a source named by URL', `handler (${BUNDLE}:3:9)`, 'handler (functions/jobs/expire-subscriptions.ts:12:3)'],
    ['a position the map does not cover', `x (${BUNDLE}:3:121)`, `x (${BUNDLE}:3:121)`],
    [
      "a frame of Node's own",
      'TCPConnectWrap.afterConnect [as oncomplete] (node:net:2021:16)',
      'TCPConnectWrap.afterConnect [as oncomplete] (node:net:2021:16)',
    ],
    ['another file', 'f (file:///var/task/other.mjs:3:120)', 'f (file:///var/task/other.mjs:3:120)'],
    [
      'a frame naming the bundle as eval origin',
      `eval (eval at f (${BUNDLE}:3:120), <anonymous>:1:1)`,
      'eval (eval at f (lib/services/store-truth.ts:98:31), <anonymous>:1:1)',
    ],
  ])('%s', (_, frame, expected) => {
    expect(originalFrame(frame, BUNDLE, findOrigin)).toBe(expected);
  });

  it('reads a bundle path with characters a pattern would take for its own', () => {
    const bundle = 'file:///var/task/a+b(1)/index.mjs';
    expect(originalFrame(`f (${bundle}:3:120)`, bundle, findOrigin)).toBe('f (lib/services/store-truth.ts:98:31)');
    expect(originalFrame('f (file:///var/task/aab(1)/index.mjs:3:120)', bundle, findOrigin)).toBe(
      'f (file:///var/task/aab(1)/index.mjs:3:120)',
    );
  });

  it('asks the map for the line and column the frame names', () => {
    const asked: [number, number][] = [];
    originalFrame(`f (${BUNDLE}:17:4)`, BUNDLE, (line, column) => {
      asked.push([line, column]);
      return {};
    });
    expect(asked).toEqual([[17, 4]]);
  });
});

describe("a stack's first line", () => {
  it('is the error as it prints itself', () => {
    expect(headerOf(new TypeError('bad'))).toBe('TypeError: bad');
    expect(headerOf('thrown text')).toBe('thrown text');
  });

  it('names the kind of object when printing it throws', () => {
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    expect(headerOf(hostile)).toBe('[object Object]');
  });
});
