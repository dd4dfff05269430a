import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../lib/http/auth.js';
import { appErrorThrownBy } from '../support/assertions.js';

/** RFC 6750: the scheme is case-insensitive, one token follows it; a refusal names the scheme expected. */
describe('Authorization: Bearer <secret key> (bearerToken)', () => {
  it.each([
    ['Bearer sk_abc', 'sk_abc'],
    ['bearer sk_abc', 'sk_abc'],
    ['BEARER   sk_abc', 'sk_abc'],
    ['Bearer sk_abc  ', 'sk_abc'],
  ])('%j carries the key %j', (header, key) => {
    expect(bearerToken(header)).toBe(key);
  });

  it('no header: API_KEY_MISSING, with the challenge', () => {
    const error = appErrorThrownBy(() => bearerToken(undefined));
    expect(error).toMatchObject({
      kind: 'API_KEY_MISSING',
      code: 'MISSING_REQUIRED_HEADER',
      message: 'Authorization header with a Bearer secret key is required',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  });

  it.each(['Basic sk_abc', 'xBearer sk_abc', 'Bearer', 'Bearer ', 'Bearer sk_abc extra', 'Token Bearer sk_abc'])(
    '%j: INVALID_API_KEY, with the challenge',
    (header) => {
      const error = appErrorThrownBy(() => bearerToken(header));
      expect(error).toMatchObject({
        code: 'INVALID_API_KEY',
        message: 'Authorization header must be "Bearer <secret key>"',
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    },
  );
});
