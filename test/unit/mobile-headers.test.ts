/**
 * The mobile API's header rules as lib/http/mobile-headers.ts applies them, with the expected
 * values written out from the spec (mobile-reporting-api.md: the common headers; segment-info's
 * example sends only X-USER-ID and X-APP-ID), not read from the module's own tables.
 */

import { describe, expect, it } from 'vitest';
import { readMobileHeaders } from '../../lib/http/mobile-headers.js';
import { appErrorThrownBy } from '../support/assertions.js';

const COMMON = {
  'x-user-id': 'user-1',
  'user-agent': 'TestSDK/1.0',
  'x-app-id': 'app_1',
  'x-platform': 'iOS',
  'x-version': '1.2.3',
  accept: 'application/json',
};

describe('readMobileHeaders', () => {
  it.each([
    ['x-user-id', 'X-USER-ID'],
    ['user-agent', 'User-Agent'],
    ['x-app-id', 'X-APP-ID'],
    ['x-platform', 'X-PLATFORM'],
    ['x-version', 'X-VERSION'],
    ['accept', 'Accept'],
  ])('the common rule refuses a request without %s, or with it blank, naming %s', (name, display) => {
    for (const value of [undefined, '   ']) {
      const error = appErrorThrownBy(() => readMobileHeaders({ ...COMMON, [name]: value }, 'common', false));
      expect(error).toMatchObject({ code: 'MISSING_REQUIRED_HEADER', message: `Missing required header ${display}` });
    }
  });

  it('asks for Content-Type only when the request has a body', () => {
    expect(() => readMobileHeaders(COMMON, 'common', false)).not.toThrow();
    expect(appErrorThrownBy(() => readMobileHeaders(COMMON, 'common', true)).message).toBe(
      'Missing required header Content-Type',
    );
    expect(() => readMobileHeaders({ ...COMMON, 'content-type': 'application/json' }, 'common', true)).not.toThrow();
  });

  it('the identity rule asks for X-USER-ID and X-APP-ID only', () => {
    expect(readMobileHeaders({ 'x-user-id': ' u ', 'x-app-id': ' app_1 ' }, 'identity', false)).toEqual({
      userId: 'u',
      appIdHeader: 'app_1',
      platform: undefined,
      sdkVersion: undefined,
    });
    expect(appErrorThrownBy(() => readMobileHeaders({ 'x-user-id': 'u' }, 'identity', false)).message).toBe(
      'Missing required header X-APP-ID',
    );
  });

  it('reads the trimmed identity, the platform in any case and the SDK version cut to 64 characters', () => {
    expect(
      readMobileHeaders(
        { ...COMMON, 'x-user-id': ' user-1 ', 'x-platform': ' ANDROID ', 'x-version': ` ${'9'.repeat(70)} ` },
        'common',
        false,
      ),
    ).toEqual({ userId: 'user-1', appIdHeader: 'app_1', platform: 'android', sdkVersion: '9'.repeat(64) });
    expect(readMobileHeaders(COMMON, 'common', false).platform).toBe('ios');
  });

  it('refuses a platform other than iOS or Android, and an X-USER-ID over 256 characters', () => {
    expect(
      appErrorThrownBy(() => readMobileHeaders({ ...COMMON, 'x-platform': 'web' }, 'common', false)),
    ).toMatchObject({ code: 'INVALID_PARAMETER', message: 'X-PLATFORM must be iOS or Android' });
    expect(() => readMobileHeaders({ ...COMMON, 'x-user-id': 'u'.repeat(256) }, 'common', false)).not.toThrow();
    expect(
      appErrorThrownBy(() => readMobileHeaders({ ...COMMON, 'x-user-id': 'u'.repeat(257) }, 'common', false)),
    ).toMatchObject({ code: 'INVALID_PARAMETER', message: 'X-USER-ID must be at most 256 characters' });
  });
});
