/**
 * Generators of hostile requests (fast-check) and the checks every answer to one must pass.
 *
 * Bodies start from a valid body of the route and are mutated (fields dropped or replaced by wrong
 * types, edge numbers, huge or odd strings, prototype-pollution keys, deep nesting, invalid UTF-8),
 * or are random JSON, random text or random bytes. Headers, query strings, path parameters and
 * methods are mutated less often. A body is built as bytes, so it can hold what JSON.stringify
 * cannot write: invalid UTF-8, 100,000 levels of nesting, `1e999`, an own `__proto__` key.
 */
import fc from 'fast-check';
import { ERRORS } from '../../lib/core/errors.js';
import type { ApiName } from '../../lib/http/envelopes.js';
import type { Route } from '../../lib/routes.js';
import { dingyueAnswerProblems } from './dingyue-envelope.js';
import { revenuecatAnswerProblems } from './revenuecat-decoders.js';

/** Written into the body verbatim, not JSON-encoded. */
export class RawJson {
  constructor(
    readonly bytes: Buffer,
    readonly label: string,
  ) {}
}

export type Hostile = null | boolean | number | string | RawJson | Hostile[] | { [key: string]: Hostile };

const isObject = (value: Hostile): value is { [key: string]: Hostile } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawJson);

/** Sets an own property, even `__proto__` (an assignment would change the prototype instead). */
function defineKey(target: { [key: string]: Hostile }, key: string, value: Hostile): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function objectOf(entries: [string, Hostile][]): { [key: string]: Hostile } {
  const object: { [key: string]: Hostile } = {};
  for (const [key, value] of entries) defineKey(object, key, value);
  return object;
}

/** JSON text of a hostile value, as bytes (RawJson parts are copied as they are). */
export function encodeJson(value: Hostile): Buffer {
  const parts: Buffer[] = [];
  const write = (v: Hostile): void => {
    if (v instanceof RawJson) parts.push(v.bytes);
    else if (Array.isArray(v)) {
      parts.push(Buffer.from('['));
      v.forEach((item, i) => {
        if (i > 0) parts.push(Buffer.from(','));
        write(item);
      });
      parts.push(Buffer.from(']'));
    } else if (isObject(v)) {
      parts.push(Buffer.from('{'));
      Object.entries(v).forEach(([key, item], i) => {
        parts.push(Buffer.from(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`));
        write(item);
      });
      parts.push(Buffer.from('}'));
    } else if (typeof v === 'number' && !Number.isFinite(v)) {
      parts.push(Buffer.from(Number.isNaN(v) ? 'NaN' : v > 0 ? '1e999' : '-1e999'));
    } else parts.push(Buffer.from(JSON.stringify(v)));
  };
  write(value);
  return Buffer.concat(parts);
}

const raw = (text: string | Buffer, label: string) =>
  new RawJson(Buffer.isBuffer(text) ? text : Buffer.from(text), label);

// ---------------------------------------------------------------------------------------------
// Values

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate, beyond U+10FFFF, truncated. */
const INVALID_UTF8: readonly number[][] = [
  [0x80],
  [0xbf, 0x80],
  [0xc0, 0x80],
  [0xc0, 0xaf],
  [0xc3, 0x28],
  [0xe2, 0x28, 0xa1],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
];

/** A JSON string holding bytes that are not UTF-8. */
const invalidUtf8String: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(...INVALID_UTF8), fc.string({ maxLength: 8, unit: 'grapheme-ascii' }))
  .map(([bytes, text]) =>
    raw(
      Buffer.concat([Buffer.from(`"${text.replace(/["\\]/g, '')}`), Buffer.from(bytes), Buffer.from('"')]),
      `invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
    ),
  );

/** Far deeper than any body may nest: must be refused before anything recursive touches it. */
const DEEP_LEVELS = [5_000, 20_000, 100_000] as const;

function nested(levels: number, kind: 'array' | 'object', closed: boolean): RawJson {
  const [open, close] = kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
  const text = `${open.repeat(levels)}${kind === 'object' ? '1' : ''}${closed ? close.repeat(levels) : ''}`;
  return raw(text, `${levels} levels of ${kind}${closed ? '' : ' (unclosed)'}`);
}

const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(...DEEP_LEVELS), fc.constantFrom('array' as const, 'object' as const), fc.boolean())
  .map(([levels, kind, closed]) => nested(levels, kind, closed));

/** Around DynamoDB's limit of 32 nested levels per item. */
const moderatelyDeep: fc.Arbitrary<RawJson> = fc
  .tuple(fc.integer({ min: 10, max: 40 }), fc.constantFrom('array' as const, 'object' as const))
  .map(([levels, kind]) => nested(levels, kind, true));

/** Numbers at the edges of JSON, JavaScript (2^53, 8.64e15 ms) and DynamoDB (1e-130..1e126, 38 digits). */
const EDGE_NUMBERS: Hostile[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  1e308,
  -1e308,
  1.7976931348623157e308,
  5e-324,
  -5e-324,
  1e-200,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  1e21,
  8.64e15,
  1e11,
  0.1 + 0.2,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

const edgeNumbers: fc.Arbitrary<Hostile> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  fc
    .constantFrom(
      '-0',
      '1e999',
      '-1e999',
      '1e-400',
      '123456789012345678901234567890',
      '0.0000000000000000000000000001',
      '1E+2',
      '-0.0e-0',
    )
    .map((text) => raw(text, `number ${text}`)),
  fc.double({ noNaN: true }),
  fc.integer(),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map((n) => raw(n.toString(), `integer ${n}`)),
);

const nanishStrings = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '0x1F',
  '1_000',
  '١٢٣',
  ' 42 ',
  '4.2e1',
  '',
  ' ',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '-0',
  '+1',
);

/** Lengths at and just past the limits the schemas state. */
const boundaryStrings = fc
  .tuple(
    fc.constantFrom(
      1,
      3,
      63,
      64,
      65,
      127,
      128,
      129,
      199,
      200,
      201,
      255,
      256,
      257,
      499,
      500,
      501,
      511,
      512,
      513,
      1024,
      1025,
      2048,
      2049,
    ),
    fc.constantFrom('a', 'Z', '9', '_', 'é', '😀', ' '),
  )
  .map(([length, char]) => char.repeat(length));

/** About 100k characters (up to 400 KB of UTF-8). */
const hugeStrings = fc
  .constantFrom('x', 'é', '😀', '\u0000', '\\', '"', '%00', '<script>', 'A1+/=')
  .map((unit) => unit.repeat(Math.ceil(100_000 / unit.length)));

const oddStrings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u202Eevil',
    '\uFEFFbom',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'Ω≈ç√',
    '𝕏',
    '../../etc/passwd',
    "' OR '1'='1",
    '${jndi:ldap://x}',
    '{{7*7}}',
    '#',
    'a#b',
    'APP#x',
    'sub_000000000000000000000000',
    '<img src=x>',
  ),
);

const timestamps = fc.constantFrom(
  '2024-02-30T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00.000Z',
  '0000-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '2025-01-01',
  '2025-13-01T00:00:00Z',
  '2025-01-01T25:61:61Z',
  'now',
  'yesterday',
  '2025-01-01T00:00:00',
  '2025-01-01T00:00:00+25:00',
  '2024-02-30',
  '0000-00-00',
  '9999-99-99',
  '275760-09-13',
  '1900-01-01',
  '2025-1-1',
);

/** Objects that pollute a prototype if merged or assigned naively. */
const pollution: fc.Arbitrary<Hostile> = fc.constantFrom(
  objectOf([['__proto__', objectOf([['polluted', 'yes']])]]),
  objectOf([['constructor', objectOf([['prototype', objectOf([['polluted', 'yes']])]])]]),
  objectOf([['prototype', objectOf([['polluted', 'yes']])]]),
  objectOf([['__proto__', null]]),
  objectOf([
    ['toString', 'x'],
    ['valueOf', 1],
    ['hasOwnProperty', true],
  ]),
);

const hostileKey = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'a'.repeat(65),
      'k'.repeat(300),
      '#',
      'pk',
      'sk',
      'type',
      'app_id',
      'user_id',
      '$where',
      'x.y',
      'a#b',
      '\u0000',
      '😀',
      'Version3.1',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);

const hostileValue: fc.Arbitrary<Hostile> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Hostile>(null, true, false, 0, 1, -1, '', ' ', 'true', [], {}, [null], [[]], [{}]),
  },
  { weight: 5, arbitrary: edgeNumbers },
  { weight: 2, arbitrary: nanishStrings },
  { weight: 2, arbitrary: boundaryStrings },
  { weight: 1, arbitrary: hugeStrings },
  { weight: 2, arbitrary: oddStrings },
  { weight: 2, arbitrary: timestamps },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: moderatelyDeep },
  { weight: 2, arbitrary: pollution },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Hostile> },
  { weight: 1, arbitrary: invalidUtf8String },
);

// ---------------------------------------------------------------------------------------------
// Mutations of a valid body

type Path = (string | number)[];

function pathsOf(value: Hostile, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      paths.push(...pathsOf(item, [...prefix, i]));
    });
  } else if (isObject(value))
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

function clone(value: Hostile): Hostile {
  if (Array.isArray(value)) return value.map(clone);
  if (isObject(value)) return objectOf(Object.entries(value).map(([k, v]) => [k, clone(v)]));
  return value;
}

/**
 * Values valid in form but different in meaning, by field name (another user, product, receipt,
 * status...): a perturbed field takes one of them, so that requests get past validation and meet
 * the business rules (PRODUCT_NOT_FOUND, RECEIPT_ALREADY_USED, INVALID_STATUS_TRANSITION...).
 */
export type Alternatives = Record<string, readonly Hostile[]>;

type Mutation =
  | { kind: 'drop'; at: number }
  | { kind: 'replace'; at: number; value: Hostile }
  | { kind: 'addKey'; at: number; key: string; value: Hostile }
  | { kind: 'perturb'; at: number; pick: number; text: string; number: number };

const perturbation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constant('perturb' as const),
  at: fc.nat(),
  pick: fc.nat(),
  text: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,24}$/),
  number: fc.oneof(fc.integer({ min: -10, max: 1000 }), fc.double({ min: -1000, max: 1_000_000, noNaN: true })),
});

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('addKey' as const), at: fc.nat(), key: hostileKey, value: hostileValue }),
  },
  { weight: 2, arbitrary: perturbation },
);

/** The alternatives of a field: own entries only, a key named `constructor` has none. */
export const alternativesFor = (alternatives: Alternatives, key: string | number | undefined): readonly Hostile[] =>
  typeof key === 'string' && Object.hasOwn(alternatives, key) ? alternatives[key]! : [];

/** Another value of the same type for the field at `path`: one of its alternatives if it has any. */
function perturbed(
  current: Hostile,
  key: string | number | undefined,
  m: Extract<Mutation, { kind: 'perturb' }>,
  alternatives: Alternatives,
): Hostile {
  const options = alternativesFor(alternatives, key);
  if (options.length > 0) return clone(options[m.pick % options.length]!);
  if (typeof current === 'string') return m.text;
  if (typeof current === 'number') return m.number;
  if (typeof current === 'boolean') return !current;
  return current;
}

/** The body after the mutations; undefined when the root itself was dropped (no body at all). */
function mutate(valid: Hostile, mutations: Mutation[], alternatives: Alternatives): Hostile | undefined {
  let root: Hostile | undefined = clone(valid);
  for (const generated of mutations) {
    if (root === undefined) root = {};
    // Generated values may be shared constants: insert copies, so later mutations never change them.
    const m =
      generated.kind === 'drop' || generated.kind === 'perturb'
        ? generated
        : { ...generated, value: clone(generated.value) };
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    const parent =
      path.length === 0
        ? undefined
        : path.slice(0, -1).reduce<Hostile>((node, key) => (node as Record<string, Hostile>)[key as string]!, root);
    const last = path[path.length - 1];
    const set = (value: Hostile) => {
      if (parent === undefined) root = value;
      else if (Array.isArray(parent)) parent[last as number] = value;
      else defineKey(parent as Record<string, Hostile>, last as string, value);
    };
    if (m.kind === 'drop') {
      if (parent === undefined) root = undefined;
      else if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete (parent as Record<string, Hostile>)[last as string];
    } else if (m.kind === 'replace') {
      set(m.value);
    } else if (m.kind === 'perturb') {
      const current = parent === undefined ? root : (parent as Record<string, Hostile>)[last as string]!;
      set(perturbed(current, last, m, alternatives));
    } else {
      const target = path.reduce<Hostile>((node, key) => (node as Record<string, Hostile>)[key as string]!, root);
      if (isObject(target)) defineKey(target, m.key, m.value);
      else if (Array.isArray(target)) target.push(objectOf([[m.key, m.value]]));
    }
  }
  return root;
}

/** Whether the generated bytes hold something every route must refuse with a 400 whatever else they say. */
const mustRefuse = (label: string) => /invalid UTF-8|\d{4,} levels/.test(label);

function labelOf(value: Hostile | undefined): string[] {
  if (value instanceof RawJson) return [value.label];
  if (Array.isArray(value)) return value.flatMap(labelOf);
  if (value !== undefined && isObject(value)) return Object.values(value).flatMap(labelOf);
  return [];
}

export interface GeneratedBody {
  bytes: Buffer | undefined;
  description: string;
  /** Invalid UTF-8 or nesting far beyond the limit: any route that reads the body answers 400. */
  refuse: boolean;
}

const fromValue = (value: Hostile | undefined, description: string): GeneratedBody => {
  const labels = labelOf(value);
  return {
    bytes: value === undefined ? undefined : encodeJson(value),
    description: [description, ...labels].join('; '),
    refuse: labels.some(mustRefuse),
  };
};

/** Bodies for a route whose valid body is `valid`: mostly mutations of it, some random JSON, text and bytes. */
export function hostileBody(valid: Hostile, alternatives: Alternatives = {}): fc.Arbitrary<GeneratedBody> {
  const withInvalidUtf8 = fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([at, bytes]) => {
    // Inside a string of the valid body: the text is otherwise valid JSON.
    const text = encodeJson(valid);
    const quotes = [...text.entries()].filter(([, b]) => b === 0x22).map(([i]) => i);
    const cut = quotes.length > 0 ? quotes[at % quotes.length]! + 1 : 0;
    return {
      bytes: Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]),
      description: `valid body with invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
      refuse: true,
    };
  });
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc
        .array(mutation, { minLength: 1, maxLength: 3 })
        .map((ms) => fromValue(mutate(valid, ms, alternatives), `mutated: ${ms.map((m) => m.kind).join(', ')}`)),
    },
    // Valid in form only: these get past validation to the business rules.
    {
      weight: 5,
      arbitrary: fc
        .array(perturbation, { minLength: 1, maxLength: 2 })
        .map((ms) => fromValue(mutate(valid, ms, alternatives), 'perturbed')),
    },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => fromValue(value as Hostile, 'random JSON')) },
    {
      weight: 1,
      arbitrary: fc
        .object({ key: hostileKey, maxDepth: 2 })
        .map((value) => fromValue(JSON.parse(JSON.stringify(value)) as Hostile, 'random object')),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(
            '',
            'null',
            '{',
            '}',
            '[]',
            '"',
            'undefined',
            'NaN',
            '{"a":1,}',
            "{'a':1}",
            '{"a":1}{"b":2}',
            ' ',
            '\u0000',
            '\uFEFF{}',
            '{"a":1}\u0000',
            '/*x*/{}',
          ),
        )
        .map((text) => ({
          bytes: Buffer.from(text),
          description: `text ${JSON.stringify(text.slice(0, 60))}`,
          refuse: false,
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 256 })
        .map((bytes) => ({ bytes: Buffer.from(bytes), description: `${bytes.length} random bytes`, refuse: false })),
    },
    { weight: 2, arbitrary: withInvalidUtf8 },
    { weight: 1, arbitrary: deepNesting.map((deep) => fromValue(deep, 'whole body')) },
  );
}

// ---------------------------------------------------------------------------------------------
// Headers, query strings, path parameters

/** What Node's HTTP client lets through in a header value (no CR, LF or NUL), printable mostly. */
export const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  fc.string({
    unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 8,
  }),
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'null',
    'undefined',
    '__proto__',
    'a'.repeat(257),
    'k'.repeat(4000),
    'iOS ',
    ' android',
    'IOS',
    'web',
    'Windows',
  ),
);

export const headerName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'x-http-method-override',
    'x-forwarded-for',
    'x-amzn-requestid',
    'transfer-encoding-x',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
);

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonp',
  'application/json-patch+json',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json;charset=latin1',
  '*/*',
  '',
] as const;

export const queryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  nanishStrings,
  boundaryStrings,
  timestamps,
  fc.constantFrom('k'.repeat(3000), '%', '%zz', '&', '=', '#', '__proto__'),
);
export const queryName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'page',
    'limit',
    'cursor',
    'status',
    '',
    'a[b]',
    'a.b',
  ),
  fc.string({ maxLength: 10 }),
);

/** A path segment as sent: percent-encoded hostile text, or raw sequences that are not valid percent-encoding. */
export const pathSegment = fc.oneof(
  fc
    .oneof(
      oddStrings,
      nanishStrings,
      boundaryStrings,
      fc.constantFrom('__proto__', 'constructor', 'prototype', '..', '.', 'k'.repeat(3000)),
    )
    // toWellFormed: a lone surrogate has no UTF-8, hence no percent-encoding (it is sent as U+FFFD).
    .map((s) => encodeURIComponent(s.toWellFormed())),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2e%2e', '%FF', '%ED%A0%80', 'a%20b', '%25'),
);

// ---------------------------------------------------------------------------------------------
// What every answer must satisfy

const PUBLIC_CODES = new Map<string, Set<number>>();
for (const [kind, entry] of Object.entries(ERRORS)) {
  const code = 'code' in entry ? entry.code : kind;
  if (!PUBLIC_CODES.has(code)) PUBLIC_CODES.set(code, new Set());
  PUBLIC_CODES.get(code)!.add(entry.status);
}

/** Traces of internals: a stack frame, a source file, a module path, a JavaScript error's name. */
const LEAKS: readonly RegExp[] = [
  /\n\s+at /,
  /\bat [^ ]+ \(/,
  /\.(ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /file:\/\//,
  /\b(Type|Range|Syntax|Reference|Eval|URI|Aggregate)?Error: /,
  /Maximum call stack/,
  /Cannot read propert/,
  /is not a function/,
  /MAX_SAFE_INTEGER/,
  /ValidationException|Exception\b/,
  /Unexpected token|in JSON at position/,
];

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Everything wrong with an answer of `api` (empty when it is right). */
export function answerProblems(
  api: ApiName,
  answer: Answer,
  method = 'GET',
  /** The DingYue call that answered (a route under /dingyue): that SDK's envelope, not the mobile API's. */
  dingyueRoute?: string,
): string[] {
  const problems: string[] = [];
  // A subscription API resource's CORS preflight: the gateway's empty 204 (test/e2e/cors.test.ts).
  if (api === 'subscriptions' && method.toUpperCase() === 'OPTIONS' && answer.status === 204 && answer.text === '')
    return [];
  // RevenueCat's remote config is answered 204 without a body (docs/sdk-revenuecat.md).
  if (api === 'revenuecat' && answer.status === 204) return answer.text === '' ? [] : ['a 204 with a body'];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  for (const leak of LEAKS)
    if (leak.test(answer.text)) problems.push(`body leaks internals (${leak}): ${answer.text.slice(0, 300)}`);
  if (!String(answer.headers['content-type'] ?? '').startsWith('application/json'))
    problems.push(`content-type ${answer.headers['content-type']}`);
  if (dingyueRoute) return [...problems, ...dingyueAnswerProblems(dingyueRoute, answer.status, answer.text)];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [...problems, `body is not JSON: ${answer.text.slice(0, 200)}`];
  }
  const record = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const onlyKeys = (value: Record<string, unknown>, allowed: string[], where: string) => {
    const extra = Object.keys(value).filter((k) => !allowed.includes(k));
    if (extra.length > 0) problems.push(`${where} has unexpected keys ${extra.join(', ')}`);
  };
  const checkCode = (code: unknown) => {
    const statuses = typeof code === 'string' ? PUBLIC_CODES.get(code) : undefined;
    if (!statuses) problems.push(`code ${JSON.stringify(code)} is not in lib/core/errors.ts`);
    else if (!statuses.has(answer.status))
      problems.push(`code ${code} with status ${answer.status} (expected ${[...statuses].join(' or ')})`);
  };
  const success = answer.status >= 200 && answer.status < 300;
  if (!record(body)) return [...problems, `body is not an object: ${answer.text.slice(0, 200)}`];
  // RevenueCat's dialect: the SDKs' decoders, and our code (its status is the dialect's: test/unit/revenuecat-errors.test.ts).
  if (api === 'revenuecat') {
    const header = answer.headers['content-type'];
    problems.push(...revenuecatAnswerProblems(answer.status, Array.isArray(header) ? header[0] : header, answer.text));
    if (!success && !PUBLIC_CODES.has(body.error as string))
      problems.push(`error ${JSON.stringify(body.error)} is not in lib/core/errors.ts`);
    return problems;
  }
  // The store notification routes answer in the subscription API's envelopes.
  if (api !== 'mobile') {
    if (success) {
      if (!('data' in body) || 'error' in body) problems.push(`success without data: ${answer.text.slice(0, 200)}`);
    } else {
      onlyKeys(body, ['error'], 'body');
      const error = body.error;
      if (!record(error)) return [...problems, `no error object: ${answer.text.slice(0, 200)}`];
      onlyKeys(error, ['code', 'message', 'details', 'retryable'], 'error');
      checkCode(error.code);
      if (typeof error.message !== 'string' || error.message === '')
        problems.push('error.message is not a non-empty string');
      if (error.details !== undefined) {
        const valid =
          Array.isArray(error.details) &&
          error.details.every((d) => record(d) && typeof d.path === 'string' && typeof d.message === 'string');
        if (!valid)
          problems.push(`error.details is not [{path, message}]: ${JSON.stringify(error.details).slice(0, 200)}`);
      }
    }
  } else if (success) {
    onlyKeys(body, ['status', 'message', 'data'], 'body');
    if (body.status !== 'success' || typeof body.message !== 'string')
      problems.push(`success envelope: ${answer.text.slice(0, 200)}`);
  } else {
    onlyKeys(body, ['status', 'code', 'message', 'retryable'], 'body');
    if (body.status !== 'error') problems.push(`status is ${JSON.stringify(body.status)}, not "error"`);
    checkCode(body.code);
    if (typeof body.message !== 'string' || body.message === '') problems.push('message is not a non-empty string');
  }
  return problems;
}

/** A request path for `route` with these (already percent-encoded) path parameters. */
export const pathOf = (route: Route, params: Record<string, string>): string =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`);
