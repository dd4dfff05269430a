import fc from 'fast-check';
import { v5 as uuidV5Oracle } from 'uuid';
import { describe, expect, it } from 'vitest';
import {
  APP_ACCOUNT_TOKEN_NAMESPACE,
  accountTokenAllows,
  appAccountTokenFor,
  isUuid,
  uuidV5,
} from '../../lib/domain/app-account-token.js';

const APP = 'app_0123456789abcdef';

describe('app account tokens (UUIDv5 of <app_id>:<user_id>)', () => {
  it('the worked example of docs/store-verification.md, literally', () => {
    expect(appAccountTokenFor('app_0123456789abcdef', 'user-42')).toBe('b1011b47-a5c7-5dd0-a3ea-fde09a0c181a');
  });

  it('the namespace is UUIDv5 of https://subscription-backend/app-account-token in the URL namespace', () => {
    expect(APP_ACCOUNT_TOKEN_NAMESPACE).toBe('2f694459-cded-58fc-83f6-fffbcdd41979');
    expect(uuidV5('https://subscription-backend/app-account-token', uuidV5Oracle.URL)).toBe(
      APP_ACCOUNT_TOKEN_NAMESPACE,
    );
    expect(uuidV5Oracle('https://subscription-backend/app-account-token', uuidV5Oracle.URL)).toBe(
      APP_ACCOUNT_TOKEN_NAMESPACE,
    );
  });

  it('equals the uuid package’s v5 for any app and user id (non-ASCII included)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^app_[0-9a-f]{16}$/),
        fc.string({ minLength: 1, maxLength: 256, unit: 'grapheme' }),
        (appId, userId) => {
          expect(appAccountTokenFor(appId, userId)).toBe(
            uuidV5Oracle(`${appId}:${userId}`, APP_ACCOUNT_TOKEN_NAMESPACE),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is a version 5, RFC 9562 variant, lowercase UUID', () => {
    expect(appAccountTokenFor(APP, 'anyone')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  // Made while the file is collected: the statically imported function, which the tests check.
  const alice = appAccountTokenFor(APP, 'alice');
  it.each([
    ['without a token, anyone may bind the purchase', null, 'alice', true],
    ['without a token, anyone else too', null, 'mallory', true],
    ["with the user's own token, the user may", alice, 'alice', true],
    [
      "with the user's own token in upper case (Swift's UUID.uuidString), the user may",
      alice.toUpperCase(),
      'alice',
      true,
    ],
    ["with another user's token, the user may not", alice, 'mallory', false],
    [
      'with the token of the same user id in another app, the user may not',
      appAccountTokenFor('app_fedcba9876543210', 'alice'),
      'alice',
      false,
    ],
    // Not ours (not version 5): the purchase is owned as one without a token.
    ['with a token that is not a UUID (the user id itself), the token binds nothing', 'alice', 'alice', true],
    ['with an empty token, the token binds nothing', '', 'alice', true],
    // DingYue SDK: payment.applicationUsername = its X-USER-ID (API/DYMIAPManager.swift:148), a v4 UUID.
    [
      'with a version-4 UUID, the device id of the DingYue SDK, the token binds nothing',
      '3f2a9c1e-7b4d-4e2f-9a01-b2c3d4e5f607',
      'another-device',
      true,
    ],
    ["with another user's token sent as one's own user id, nobody may", alice, alice, false],
  ])('%s', (_case, token, user, allowed) => {
    expect(accountTokenAllows(token, APP, user)).toBe(allowed);
  });

  it.each([
    ['2f694459-cded-58fc-83f6-fffbcdd41979', true],
    ['2F694459-CDED-58FC-83F6-FFFBCDD41979', true],
    ['x2f694459-cded-58fc-83f6-fffbcdd41979', false],
    ['2f694459-cded-58fc-83f6-fffbcdd41979x', false],
    ['2f694459cded58fc83f6fffbcdd41979', false],
    ['2f694459-cded-58fc-83f6-fffbcdd4197g', false],
  ])('isUuid(%o) is %s', (value, expected) => {
    expect(isUuid(value)).toBe(expected);
  });

  it('uuidV5 refuses a namespace that is not a UUID, naming it', () => {
    expect(() => uuidV5('name', 'not-a-uuid')).toThrow(new Error('namespace not-a-uuid is not a UUID'));
    expect(() => uuidV5('name', `${APP_ACCOUNT_TOKEN_NAMESPACE}0`)).toThrow(
      new Error('namespace 2f694459-cded-58fc-83f6-fffbcdd419790 is not a UUID'),
    );
  });
});
