/**
 * lib/http/header-case.ts against its oracle, @middy/http-header-normalizer with its defaults
 * (what every endpoint used before, docs/decisions/header-case.md): the same headers and
 * multi-value headers out, for any names a client may send.
 */
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerCaseHeaders } from '../../lib/http/header-case.js';

type Before = (request: { event: APIGatewayProxyEvent }) => unknown;
const ours = lowerCaseHeaders().before as unknown as Before;
const oracle = httpHeaderNormalizer().before as unknown as Before;

function run(before: Before, event: Partial<APIGatewayProxyEvent>) {
  const request = { event: structuredClone(event) as APIGatewayProxyEvent };
  before(request);
  const { headers, multiValueHeaders } = request.event;
  return { headers: headers && { ...headers }, multiValueHeaders: multiValueHeaders && { ...multiValueHeaders } };
}

const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);

describe('lowerCaseHeaders: the header names every endpoint reads', () => {
  it.each([
    ['mixed case', { headers: { 'X-API-KEY': 'pk_1', 'Content-Type': 'application/json' } }],
    ['two spellings of one name: the later wins', { headers: { 'X-User-Id': 'a', 'x-user-id': 'b' } }],
    ['multi-value headers', { headers: { Accept: 'a' }, multiValueHeaders: { Accept: ['a', 'b'], 'X-Ids': ['1'] } }],
    ['no headers at all (a scheduled or direct invoke)', {}],
    ['null headers', { headers: null, multiValueHeaders: null }],
    ['canonical-case exceptions stay lower case', { headers: { ETag: '"1"', 'WWW-Authenticate': 'Bearer', DNT: '1' } }],
  ] as [string, Partial<APIGatewayProxyEvent>][])('%s: as the oracle', (_, event) => {
    expect(run(ours, event)).toEqual(run(oracle, event));
  });

  it('any names and values: as the oracle', () => {
    fc.assert(
      fc.property(
        fc.dictionary(headerName, fc.string()),
        fc.option(fc.dictionary(headerName, fc.array(fc.string(), { maxLength: 3 })), { nil: undefined }),
        (headers, multiValueHeaders) => {
          const event = {
            headers,
            ...(multiValueHeaders ? { multiValueHeaders } : {}),
          } as Partial<APIGatewayProxyEvent>;
          expect(run(ours, event)).toEqual(run(oracle, event));
        },
      ),
      { numRuns: 300 },
    );
  });
});
