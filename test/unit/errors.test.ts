import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AppError, ERRORS } from '../../lib/core/errors.js';
import { bearerToken } from '../../lib/http/auth.js';
import { errorBody, errorResponse } from '../../lib/http/envelopes.js';
import { MAX_JSON_DEPTH, parseJsonBody, parsePart } from '../../lib/http/parse.js';
import { appErrorThrownBy } from '../support/assertions.js';

describe('error table and envelopes', () => {
  it('every error kind has an HTTP status and a message', () => {
    for (const [kind, entry] of Object.entries(ERRORS)) {
      expect(entry.status, kind).toBeGreaterThanOrEqual(400);
      expect(entry.message.length, kind).toBeGreaterThan(0);
    }
  });

  it('the spec statuses of the subscription API codes hold', () => {
    const expected = {
      SUBSCRIPTION_NOT_FOUND: 404,
      INVALID_RECEIPT: 400,
      RECEIPT_ALREADY_USED: 400,
      PRODUCT_NOT_FOUND: 404,
      SUBSCRIPTION_EXPIRED: 400,
      VERIFICATION_FAILED: 400,
      INVALID_API_KEY: 401,
    };
    for (const [kind, status] of Object.entries(expected))
      expect(new AppError(kind as keyof typeof ERRORS).status).toBe(status);
  });

  it('a missing API key is a 401 with the public code MISSING_REQUIRED_HEADER', () => {
    const error = new AppError('API_KEY_MISSING');
    expect(error.status).toBe(401);
    expect(error.code).toBe('MISSING_REQUIRED_HEADER');
  });

  it('the subscription API nests errors under "error" with details', () => {
    const error = new AppError('INVALID_PARAMETER', 'bad', {
      details: [{ path: 'body.price', message: 'must be a number' }],
    });
    expect(errorBody('subscriptions', error, 'req-1')).toEqual({
      error: {
        code: 'INVALID_PARAMETER',
        message: 'bad',
        details: [{ path: 'body.price', message: 'must be a number' }],
      },
    });
  });

  it('the mobile API uses {status: "error", code, message}', () => {
    expect(errorBody('mobile', new AppError('INVALID_API_KEY'), 'req-1')).toEqual({
      status: 'error',
      code: 'INVALID_API_KEY',
      message: 'API key is invalid',
    });
  });

  it('a 500 carries the request id in the body and header but no internals', () => {
    const response = errorResponse(
      'subscriptions',
      new AppError('INTERNAL_ERROR', undefined, { cause: new Error('secret stack') }),
      'req-9',
    );
    expect(response.statusCode).toBe(500);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'req-9' });
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal error', request_id: 'req-9' },
    });
    expect(response.body).not.toContain('secret stack');
  });
});

describe('request parsing', () => {
  it('malformed JSON is INVALID_PARAMETER, never an exception of another kind', () => {
    expect(appErrorThrownBy(() => parseJsonBody('{"a":', false)).code).toBe('INVALID_PARAMETER');
  });

  it(`a body nested deeper than ${MAX_JSON_DEPTH} levels is INVALID_PARAMETER, even 100,000 levels (no stack overflow)`, () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(parseJsonBody(nested(MAX_JSON_DEPTH), false)).toBeInstanceOf(Array);
    for (const body of [
      nested(MAX_JSON_DEPTH + 1),
      nested(100_000),
      '{"a":'.repeat(100_000),
      `{"a":${nested(MAX_JSON_DEPTH)}}`,
    ]) {
      const error = appErrorThrownBy(() => parseJsonBody(body, false));
      expect(error).toMatchObject({
        kind: 'INVALID_PARAMETER',
        message: `body nests deeper than ${MAX_JSON_DEPTH} levels`,
      });
    }
  });

  it('brackets inside strings, escaped quotes included, do not count as nesting', () => {
    const text = JSON.stringify({ a: '[[[[{{{{'.repeat(10), b: '\\"[[[[', c: '"'.repeat(30) + '['.repeat(30) });
    expect(parseJsonBody(text, false)).toEqual(JSON.parse(text));
  });

  it('the depth check agrees with a character-by-character scan on 20,000 generated texts, malformed ones included', () => {
    // The reference: strings run to their closing quote (or the end), a backslash escapes the next character.
    const tooDeep = (text: string) => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > MAX_JSON_DEPTH) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = '[]{}"\\a,:';
    let deep = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = '['.repeat(Math.floor(random() * 24));
      for (let length = Math.floor(random() * 50); length > 0; length--)
        text += alphabet[Math.floor(random() * alphabet.length)];
      const expected = tooDeep(text);
      if (expected) deep++;
      let refusedForDepth = false;
      try {
        parseJsonBody(text, false);
      } catch (error) {
        refusedForDepth = (error as Error).message === `body nests deeper than ${MAX_JSON_DEPTH} levels`;
      }
      expect({ text, refusedForDepth }).toEqual({ text, refusedForDepth: expected });
    }
    // Both answers are well represented, so agreement is not agreement on one answer.
    expect(deep).toBeGreaterThan(2_000);
    expect(deep).toBeLessThan(18_000);
  });

  it('a 10 MB string, or 5 million escapes, is scanned without exhausting the stack', () => {
    const long = JSON.stringify({ a: 'x'.repeat(10_000_000) });
    expect(parseJsonBody(long, false)).toEqual({ a: 'x'.repeat(10_000_000) });
    const escapes = JSON.stringify({ a: '"'.repeat(5_000_000) });
    expect(parseJsonBody(escapes, false)).toEqual({ a: '"'.repeat(5_000_000) });
  });

  it('a base64 body (as API Gateway passes it) that is not UTF-8 is INVALID_PARAMETER, not decoded with U+FFFD', () => {
    const base64 = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((p) => Buffer.from(p as string))).toString('base64');
    expect(parseJsonBody(base64('{"name":"Zoë 😀"}'), true)).toEqual({ name: 'Zoë 😀' });
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const error = appErrorThrownBy(() => parseJsonBody(base64('{"name":"', bad, '"}'), true));
      expect(error).toMatchObject({
        kind: 'INVALID_PARAMETER',
        message: 'body is not valid UTF-8',
        details: [{ path: 'body', message: 'is not valid UTF-8' }],
      });
    }
  });

  it('zod failures list every field path', () => {
    const schema = z.strictObject({ a: z.number(), b: z.string() });
    try {
      parsePart('body', schema, { a: 'x', c: 1 });
      expect.unreachable();
    } catch (error) {
      const paths = (error as AppError).details?.map((d) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['body.a', 'body.b', 'body']));
    }
  });

  it('the message names the first failing path; unknown keys are listed by name', () => {
    const error = appErrorThrownBy(() => parsePart('query', z.strictObject({ a: z.number() }), { a: 1, zz: 2, yy: 3 }));
    expect(error).toMatchObject({
      kind: 'INVALID_PARAMETER',
      message: 'query: Unrecognized keys: "zz", "yy": zz, yy',
      details: [{ path: 'query', message: 'Unrecognized keys: "zz", "yy": zz, yy' }],
    });
    expect(appErrorThrownBy(() => parsePart('params', z.object({ id: z.string() }), {})).message).toBe(
      'params.id: Invalid input: expected string, received undefined',
    );
  });

  it('an empty body is none; one that is not JSON, a byte order mark first, says so', () => {
    expect(parseJsonBody('', false)).toBeUndefined();
    expect(parseJsonBody(null, true)).toBeUndefined();
    for (const [body, base64] of [
      ['{"a":1', false],
      [Buffer.from('\uFEFF{"a":1}').toString('base64'), true],
    ] as const) {
      expect(appErrorThrownBy(() => parseJsonBody(body, base64))).toMatchObject({
        kind: 'INVALID_PARAMETER',
        message: 'body is not valid JSON',
        details: [{ path: 'body', message: 'is not valid JSON' }],
      });
    }
  });

  it('a closing bracket ends its level: many siblings nest no deeper than one of them', () => {
    const siblings = `[${Array.from({ length: MAX_JSON_DEPTH * 2 }, () => '[{}]').join(',')}]`;
    expect(parseJsonBody(siblings, false)).toHaveLength(MAX_JSON_DEPTH * 2);
  });

  it('Bearer tokens are read case-insensitively and anything else is rejected', () => {
    expect(bearerToken('Bearer sk_abc')).toBe('sk_abc');
    expect(bearerToken('bearer   sk_abc')).toBe('sk_abc');
    expect(() => bearerToken(undefined)).toThrow(expect.objectContaining({ kind: 'API_KEY_MISSING' }));
    expect(() => bearerToken('Basic dXNlcg==')).toThrow(expect.objectContaining({ kind: 'INVALID_API_KEY' }));
    expect(() => bearerToken('Bearer a b')).toThrow(expect.objectContaining({ kind: 'INVALID_API_KEY' }));
  });
});
