/**
 * lib/schemas/zod-messages.ts against zod's own English locale, the oracle it was copied from
 * (docs/decisions/zod-messages.md): the same message for every issue kind, and for every string
 * format a schema of lib/ uses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from 'zod/locales';
import type * as z from 'zod/mini';
import { englishMessage, FORMAT_NOUNS } from '../../lib/schemas/zod-messages.js';

const oracle = en().localeError as (issue: z.core.$ZodRawIssue) => string;
type Issue = z.core.$ZodRawIssue;
const issue = (fields: Record<string, unknown>) => ({ input: undefined, path: [], ...fields }) as unknown as Issue;

const ISSUES: Issue[] = [
  ...[
    ['string', 42],
    ['number', 'x'],
    ['number', Number.NaN],
    ['number', Number.POSITIVE_INFINITY],
    ['object', null],
    ['object', []],
    ['string', new Date(0)],
    ['boolean', undefined],
    ['nan', 1],
    ['array', new Map()],
  ].map(([expected, input]) => issue({ code: 'invalid_type', expected, input })),
  issue({ code: 'invalid_value', values: ['ios'] }),
  issue({ code: 'invalid_value', values: [1] }),
  issue({ code: 'invalid_value', values: ['ios', 'android', 7n] }),
  ...(['too_big', 'too_small'] as const).flatMap((code) =>
    ['string', 'array', 'set', 'map', 'file', 'number', 'bigint', 'date', undefined].flatMap((origin) =>
      [{ inclusive: true }, { inclusive: false }, { exact: true, inclusive: true }].map((bounds) =>
        issue({ code, origin, ...bounds, [code === 'too_big' ? 'maximum' : 'minimum']: 5 }),
      ),
    ),
  ),
  issue({ code: 'invalid_format', format: 'starts_with', prefix: 'pk_' }),
  issue({ code: 'invalid_format', format: 'ends_with', suffix: '.p8' }),
  issue({ code: 'invalid_format', format: 'includes', includes: '@' }),
  issue({ code: 'invalid_format', format: 'regex', pattern: '/^[a-z]+$/' }),
  ...[...Object.keys(FORMAT_NOUNS), 'not_a_known_format'].map((format) => issue({ code: 'invalid_format', format })),
  issue({ code: 'not_multiple_of', divisor: 3 }),
  issue({ code: 'unrecognized_keys', keys: ['a'] }),
  issue({ code: 'unrecognized_keys', keys: ['a', 'b'] }),
  issue({ code: 'invalid_key', origin: 'record' }),
  issue({ code: 'invalid_union', errors: [] }),
  issue({ code: 'invalid_union', errors: [], inclusive: false }),
  issue({ code: 'invalid_union', errors: [], options: ['a', 'b'] }),
  issue({ code: 'invalid_element', origin: 'map' }),
  issue({ code: 'custom' }),
];

describe("zod's messages, as lib/schemas/zod-messages.ts writes them", () => {
  it.each(ISSUES.map((i) => [JSON.stringify(i, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)), i] as const))(
    '%s',
    (_name, i) => {
      expect(englishMessage(i)).toBe(oracle(i));
    },
  );

  it("names every string format a schema of lib/ uses, as zod's locale does", () => {
    const formats = new Map([
      ['z.email(', 'email'],
      ['z.url(', 'url'],
      ['z.iso.date(', 'date'],
      ['z.iso.datetime(', 'datetime'],
      ['z.base64(', 'base64'],
    ]);
    const used = new Set<string>();
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
      );
    for (const file of walk('lib')) {
      const text = readFileSync(file, 'utf8');
      for (const [call, format] of formats) if (text.includes(call)) used.add(format);
      // Any other zod string format (z.uuid(, z.e164(, z.iso.time( ...) would need its noun here.
      expect(text, file).not.toMatch(
        /\bz\.(uuid|guid|cuid2?|ulid|xid|ksuid|nanoid|emoji|ipv4|ipv6|mac|cidrv4|cidrv6|base64url|e164|jwt|hostname|httpUrl|iso\.(time|duration))\(/,
      );
    }
    expect([...used].sort()).toEqual(Object.keys(FORMAT_NOUNS).sort());
    for (const format of used)
      expect(englishMessage(issue({ code: 'invalid_format', format }))).toBe(
        oracle(issue({ code: 'invalid_format', format })),
      );
  });
});
