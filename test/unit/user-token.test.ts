import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newUserTokenSecret } from '../../lib/core/ids.js';
import { checkUserToken, signUserToken } from '../../lib/domain/user-token.js';
import { requireUserToken } from '../../lib/http/auth.js';
import { appErrorThrownBy } from '../support/assertions.js';

/** The worked example of docs/security.md (section "Mobile trust model"), literally. */
const EXAMPLE = {
  secret: 'ust_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8',
  appId: 'app_0123456789abcdef',
  userId: 'user-42',
  exp: 1893456000, // 2030-01-01T00:00:00Z
  token: 'v1.1893456000.CIAJ6OytigFZoYYL6r5vWUGlTxcgkms95QtTv6HDK9g',
};
const BEFORE_EXP = Date.parse('2029-12-31T23:59:59Z');
const expected = { secret: EXAMPLE.secret, appId: EXAMPLE.appId, userId: EXAMPLE.userId };

/** The same token with one character of its signature changed. */
const withSignatureChar = (token: string, index: number, char: string) => {
  const cut = token.lastIndexOf('.') + 1 + index;
  return token.slice(0, cut) + char + token.slice(cut + 1);
};

describe('signed user tokens (v1)', () => {
  it('the worked example of docs/security.md gives exactly its token, and the page shows both', () => {
    expect(signUserToken(EXAMPLE.secret, EXAMPLE.appId, EXAMPLE.userId, EXAMPLE.exp)).toBe(EXAMPLE.token);
    expect(checkUserToken(EXAMPLE.token, expected, BEFORE_EXP)).toBe('valid');
    const page = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    for (const value of [EXAMPLE.secret, EXAMPLE.appId, EXAMPLE.userId, String(EXAMPLE.exp), EXAMPLE.token])
      expect(page).toContain(value);
  });

  it('is refused for another user, another app, or another secret', () => {
    expect(checkUserToken(EXAMPLE.token, { ...expected, userId: 'user-43' }, BEFORE_EXP)).toBe('wrong_signature');
    expect(checkUserToken(EXAMPLE.token, { ...expected, appId: 'app_0123456789abcdee' }, BEFORE_EXP)).toBe(
      'wrong_signature',
    );
    expect(checkUserToken(EXAMPLE.token, { ...expected, secret: newUserTokenSecret() }, BEFORE_EXP)).toBe(
      'wrong_signature',
    );
  });

  it('user and app ids are compared exactly: case and surrounding text matter', () => {
    for (const userId of ['User-42', 'USER-42', 'user-42 ', ' user-42', 'user-4', 'user-420', '']) {
      expect(checkUserToken(EXAMPLE.token, { ...expected, userId }, BEFORE_EXP), JSON.stringify(userId)).toBe(
        'wrong_signature',
      );
    }
    expect(checkUserToken(EXAMPLE.token, { ...expected, appId: EXAMPLE.appId.toUpperCase() }, BEFORE_EXP)).toBe(
      'wrong_signature',
    );
  });

  it('a changed exp or signature is refused', () => {
    expect(checkUserToken(EXAMPLE.token.replace('1893456000', '1893456001'), expected, BEFORE_EXP)).toBe(
      'wrong_signature',
    );
    expect(checkUserToken(EXAMPLE.token.replace('1893456000', '9893456000'), expected, BEFORE_EXP)).toBe(
      'wrong_signature',
    );
    expect(checkUserToken(withSignatureChar(EXAMPLE.token, 0, 'D'), expected, BEFORE_EXP)).toBe('wrong_signature');
    // The last character carries 4 bits; 'h' decodes to the same bytes as 'g' but is not the server's spelling.
    expect(checkUserToken(withSignatureChar(EXAMPLE.token, 42, 'h'), expected, BEFORE_EXP)).toBe('wrong_signature');
  });

  it('expires at exp: valid until the second before, refused from that second on', () => {
    expect(checkUserToken(EXAMPLE.token, expected, EXAMPLE.exp * 1000 - 1)).toBe('valid');
    expect(checkUserToken(EXAMPLE.token, expected, EXAMPLE.exp * 1000)).toBe('expired');
    // Only a genuine token is said to be expired.
    expect(checkUserToken(EXAMPLE.token, { ...expected, userId: 'user-43' }, EXAMPLE.exp * 1000)).toBe(
      'wrong_signature',
    );
  });

  it('anything but the exact v1 spelling is malformed', () => {
    const [, exp, sig] = EXAMPLE.token.split('.') as [string, string, string];
    const standardBase64 = Buffer.from(sig, 'base64url').toString('base64');
    for (const token of [
      '',
      'v1',
      `V1.${exp}.${sig}`,
      `v2.${exp}.${sig}`,
      `v1.0${exp}.${sig}`,
      `v1.${exp}.${sig}=`,
      `v1.${exp}.${standardBase64}`,
      `v1.${exp}.${sig.slice(1)}`,
      `v1.${exp}.${sig}A`,
      `v1.-${exp}.${sig}`,
      `v1.1${exp.padEnd(12, '0')}.${sig}`,
      `v1.${exp}.${sig}.extra`,
      `v1..${sig}`,
      ` ${EXAMPLE.token}`,
      `Bearer ${EXAMPLE.token}`,
    ]) {
      expect(checkUserToken(token, expected, BEFORE_EXP), token).toBe('malformed');
    }
  });

  it('user ids are signed as UTF-8, and dots in them cannot move the field boundaries', () => {
    const exp = 1893456000;
    const accented = signUserToken(EXAMPLE.secret, EXAMPLE.appId, 'zoë', exp);
    expect(checkUserToken(accented, { ...expected, userId: 'zoë' }, BEFORE_EXP)).toBe('valid');
    expect(checkUserToken(accented, { ...expected, userId: 'zoe' }, BEFORE_EXP)).toBe('wrong_signature');
    // "v1.<app>.1893456000.7.x" is (exp 1893456000, user "7.x"); no other exp/user split signs the same.
    const dotted = signUserToken(EXAMPLE.secret, EXAMPLE.appId, '7.x', exp);
    expect(checkUserToken(dotted, { ...expected, userId: '7.x' }, BEFORE_EXP)).toBe('valid');
    expect(checkUserToken(dotted, { ...expected, userId: 'x' }, BEFORE_EXP)).toBe('wrong_signature');
  });

  it('for any secret, app, user and exp, the token checks, and any other character in it does not', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.stringMatching(/^app_[0-9a-f]{16}$/),
        fc.string({ minLength: 1, maxLength: 256 }),
        fc.integer({ min: 1, max: 999_999_999_999 }),
        fc.nat(),
        fc.constantFrom(...'ABCabc019_-.'),
        (secret, appId, userId, exp, position, replacement) => {
          const token = signUserToken(secret, appId, userId, exp);
          const now = exp * 1000 - 1;
          expect(checkUserToken(token, { secret, appId, userId }, now)).toBe('valid');
          const at = position % token.length;
          if (token[at] === replacement) return;
          const mutated = token.slice(0, at) + replacement + token.slice(at + 1);
          expect(checkUserToken(mutated, { secret, appId, userId }, now)).not.toBe('valid');
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    [1, 'v1.1.LXB-yoHJSbmYoahIv2f5VUILlgDC3NCFbEE-JWy0Tiw'],
    [999_999_999_999, 'v1.999999999999.S0gPwCONQobBqyHB8mYblq6CcjrFjihoUYE0b2asMKA'],
  ])('signing takes exp %i, an end of the range the format carries', (exp, token) => {
    expect(signUserToken(EXAMPLE.secret, EXAMPLE.appId, EXAMPLE.userId, exp)).toBe(token);
  });

  it('signing refuses an exp out of range saying which range it takes', () => {
    for (const exp of [0, 1e12]) {
      const sign = () => signUserToken(EXAMPLE.secret, EXAMPLE.appId, EXAMPLE.userId, exp);
      expect(sign, String(exp)).toThrow(RangeError);
      expect(sign, String(exp)).toThrow(new RangeError('exp must be whole seconds in 1..999999999999'));
    }
  });

  it('signing refuses an exp the format cannot carry', () => {
    for (const exp of [0, -1, 1.5, 1e12, Number.NaN])
      expect(() => signUserToken(EXAMPLE.secret, EXAMPLE.appId, EXAMPLE.userId, exp), String(exp)).toThrow(RangeError);
  });

  it('requireUserToken: absent is 401 MISSING_REQUIRED_HEADER, anything not valid 401 INVALID_USER_TOKEN saying why', () => {
    for (const token of [undefined, '', '  ']) {
      const missing = appErrorThrownBy(() => requireUserToken(token, expected, BEFORE_EXP));
      expect([missing.kind, missing.status, missing.code]).toEqual([
        'USER_TOKEN_MISSING',
        401,
        'MISSING_REQUIRED_HEADER',
      ]);
      expect(missing.message).toContain('X-USER-TOKEN');
    }
    const cases: [string, number, string][] = [
      ['garbage', BEFORE_EXP, 'not a v1 user token'],
      [withSignatureChar(EXAMPLE.token, 3, 'z'), BEFORE_EXP, 'not issued for this X-USER-ID'],
      [EXAMPLE.token, EXAMPLE.exp * 1000, 'expired'],
    ];
    for (const [token, now, message] of cases) {
      const error = appErrorThrownBy(() => requireUserToken(token, expected, now));
      expect([error.status, error.code]).toEqual([401, 'INVALID_USER_TOKEN']);
      expect(error.message).toContain(message);
    }
    expect(() => requireUserToken(` ${EXAMPLE.token} `, expected, BEFORE_EXP)).not.toThrow();
  });
});
