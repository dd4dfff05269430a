/**
 * zod's English messages (zod/locales `en`), for the string formats lib/ validates only: the full
 * locale names some forty formats no schema here uses, and its table is most of its 2.7 KB in every
 * function bundle (docs/decisions/zod-messages.md). Each message is the locale's own, word for word;
 * test/unit/zod-messages.test.ts holds them to the locale, issue by issue and format by format.
 */
import type * as z from 'zod/mini';

/** zod's own helpers (zod/v4/core/util.js), which its package does not export apart from all of zod's core. */
const util = {
  parsedType(data: unknown): string {
    if (typeof data === 'number') return Number.isNaN(data) ? 'nan' : 'number';
    if (typeof data === 'object') {
      if (data === null) return 'null';
      if (Array.isArray(data)) return 'array';
      if (Object.getPrototypeOf(data) !== Object.prototype && 'constructor' in data && data.constructor)
        return (data.constructor as { name: string }).name;
    }
    return typeof data;
  },
  stringifyPrimitive: (value: unknown): string =>
    typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? `"${value}"` : `${value}`,
  joinValues: (values: readonly unknown[], separator: string): string =>
    values.map((value) => util.stringifyPrimitive(value)).join(separator),
};

/** The formats of lib/'s schemas (z.email, z.url, z.iso.date, z.iso.datetime, z.base64), as the locale names them. */
export const FORMAT_NOUNS: Readonly<Record<string, string>> = {
  email: 'email address',
  url: 'URL',
  datetime: 'ISO datetime',
  date: 'ISO date',
  base64: 'base64-encoded string',
};

const SIZABLE: Readonly<Record<string, string>> = {
  string: 'characters',
  file: 'bytes',
  array: 'items',
  set: 'items',
  map: 'entries',
};

const typeName = (type: string, input?: unknown): string =>
  type === 'number' && typeof input === 'number' && !Number.isFinite(input)
    ? String(input)
    : type === 'nan'
      ? 'NaN'
      : type;

export function englishMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${typeName(issue.expected)}, received ${typeName(util.parsedType(issue.input), issue.input)}`;
    case 'invalid_value':
      if (issue.values.length === 1) return `Invalid input: expected ${util.stringifyPrimitive(issue.values[0])}`;
      return `Invalid option: expected one of ${util.joinValues(issue.values, '|')}`;
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const adj = issue.exact ? 'exactly ' : issue.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const bound = (big ? issue.maximum : issue.minimum).toString();
      const unit = SIZABLE[issue.origin as string];
      const what = big ? (issue.origin ?? 'value') : issue.origin;
      return `${big ? 'Too big' : 'Too small'}: expected ${what} to ${unit ? `have ${adj}${bound} ${unit}` : `be ${adj}${bound}`}`;
    }
    case 'invalid_format':
      if (issue.format === 'starts_with') return `Invalid string: must start with "${issue.prefix}"`;
      if (issue.format === 'ends_with') return `Invalid string: must end with "${issue.suffix}"`;
      if (issue.format === 'includes') return `Invalid string: must include "${issue.includes}"`;
      if (issue.format === 'regex') return `Invalid string: must match pattern ${issue.pattern}`;
      return `Invalid ${FORMAT_NOUNS[issue.format] ?? issue.format}`;
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${util.joinValues(issue.keys, ', ')}`;
    case 'invalid_key':
      return `Invalid key in ${issue.origin}`;
    case 'invalid_union':
      if (
        Array.isArray((issue as { options?: unknown }).options) &&
        (issue as { options: unknown[] }).options.length > 0
      )
        return `Invalid discriminator value. Expected ${(issue as { options: unknown[] }).options.map((o) => `'${o}'`).join(' | ')}`;
      if ((issue as { inclusive?: boolean }).inclusive === false) return 'Invalid input: more than one option matched';
      return 'Invalid input';
    case 'invalid_element':
      return `Invalid value in ${issue.origin}`;
    default:
      return 'Invalid input';
  }
}
