import { describe, expect, it } from 'vitest';
import { corsHeaders, preflightHeaders, readConsoleOrigins } from '../../lib/http/cors.js';

const CONSOLE = 'https://d111.cloudfront.net';

describe('CORS of the subscription API', () => {
  it.each([
    // origin, allowed, headers of an answer
    [
      CONSOLE,
      [CONSOLE],
      {
        'Access-Control-Allow-Origin': CONSOLE,
        'Access-Control-Expose-Headers': 'Retry-After, RateLimit, RateLimit-Policy, ETag, X-Request-Id',
        Vary: 'Origin',
      },
    ],
    ['https://evil.example', [CONSOLE], { Vary: 'Origin' }],
    [undefined, [CONSOLE], { Vary: 'Origin' }],
    ['null', [CONSOLE], { Vary: 'Origin' }],
    [`${CONSOLE}.evil.example`, [CONSOLE], { Vary: 'Origin' }],
    [CONSOLE, [], {}],
  ] as const)('an answer to %s (allowed %j)', (origin, allowed, expected) => {
    expect(corsHeaders(origin, allowed)).toEqual(expected);
  });

  it.each([
    [
      CONSOLE,
      [CONSOLE],
      {
        'Access-Control-Allow-Origin': CONSOLE,
        'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      },
    ],
    ['https://evil.example', [CONSOLE], { Vary: 'Origin' }],
    [CONSOLE, [], {}],
  ] as const)('a preflight from %s (allowed %j)', (origin, allowed, expected) => {
    expect(preflightHeaders(origin, allowed)).toEqual(expected);
  });
});

describe('CONSOLE_ORIGINS', () => {
  it.each([
    [undefined, []],
    ['', []],
    [CONSOLE, [CONSOLE]],
    [` ${CONSOLE} , http://127.0.0.1:3000 `, [CONSOLE, 'http://127.0.0.1:3000']],
  ] as const)('%j reads as %j', (raw, expected) => {
    expect(readConsoleOrigins(raw)).toEqual(expected);
  });

  it.each([
    '*',
    'https://*.cloudfront.net',
    `${CONSOLE}/`,
    `${CONSOLE}/console`,
    'd111.cloudfront.net',
    'ftp://x.example',
    `x${CONSOLE}`,
  ])('refuses %j', (raw) => {
    expect(() => readConsoleOrigins(raw)).toThrow(/CONSOLE_ORIGINS must list origins/);
  });
});
