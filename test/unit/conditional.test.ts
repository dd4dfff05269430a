/** Conditional GET (lib/http/conditional.ts): If-None-Match as RFC 9110 13.1.2 reads it, cases written out. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { conditionalResponse, etagOf, noneMatchHits } from '../../lib/http/conditional.js';

const BODY = '{"data":{"active":true}}';
const TAG = etagOf(BODY);
const ok = (statusCode = 200): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'r' },
  body: BODY,
});

describe('noneMatchHits', () => {
  it.each([
    [undefined, false],
    ['', false],
    [TAG, true],
    [` ${TAG} `, true],
    [`W/${TAG}`, true],
    [`"other", ${TAG}`, true],
    [`"other",W/${TAG}`, true],
    ['"other", "another"', false],
    ['*', true],
    ['"other", *', true],
    [`X/${TAG}`, false],
    [`${TAG}x`, false],
    [`w/${TAG}`, false],
    // W/ counts only in front.
    [`${TAG.slice(0, 5)}W/${TAG.slice(5)}`, false],
  ])('If-None-Match %j holds the tag: %s', (header, hits) => {
    expect(noneMatchHits(header, TAG)).toBe(hits);
  });
});

describe('conditionalResponse', () => {
  it('gives a 200 its ETag (a 27-character base64url SHA-256 prefix) and private, no-cache', () => {
    expect(TAG).toMatch(/^"[\w-]{27}"$/);
    expect(conditionalResponse(ok(), undefined)).toEqual({
      ...ok(),
      headers: { ...ok().headers, ETag: TAG, 'Cache-Control': 'private, no-cache' },
    });
  });

  it('answers 304 without a body or Content-Type when the client holds the body', () => {
    expect(conditionalResponse(ok(), TAG)).toEqual({
      statusCode: 304,
      headers: { 'X-Request-Id': 'r', ETag: TAG, 'Cache-Control': 'private, no-cache' },
      body: '',
    });
  });

  it('never turns an answer other than 200 into a 304', () => {
    expect(conditionalResponse(ok(201), TAG)).toMatchObject({ statusCode: 201, body: BODY });
  });
});
