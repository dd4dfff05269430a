import { describe, expect, it } from 'vitest';
import { credentialInPublicJson, secretInPublicSetting } from '../../lib/domain/public-settings.js';

describe('settings readable by any sdk key holder', () => {
  it.each([
    ['app_id', 'ca-app-pub-3940256099942544~1458002511'],
    ['banner_unit_id', 'ca-app-pub-1/2'],
    ['sdk_key', 'abc123'],
    ['app_key', '85460dcd'],
    ['placement', 'rewarded'],
    ['test_mode', true],
    ['refresh_seconds', 30],
    ['skip_label', 'sk'],
    // A credential's prefix inside a value, not at its start.
    ['placement', 'disk_1'],
    ['network', 'fork_live_1'],
  ] as const)('%s = %s is public', (name, value) => {
    expect(secretInPublicSetting(name, value)).toBeUndefined();
  });

  it.each([
    ['client_secret', 'x'],
    ['reporting_api_key', 'x'],
    ['apiKey', 'x'],
    ['access_token', 'x'],
    ['password', 'x'],
    ['private_key_id', 'x'],
    ['service_credentials', 'x'],
    ['signing_key', 'x'],
    ['key', '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----'],
    ['key', 'sk_0123456789abcdef'],
    ['key', 'whsec_abc'],
    ['key', 'ust_abc'],
    ['key', 'rk_live_abc'],
  ] as const)('%s = %s is refused', (name, value) => {
    expect(secretInPublicSetting(name, value)).toMatch(/readable by any sdk key holder \(GET \/adsinfo\)/);
  });
});

describe('public JSON (offerings metadata, remote switches): the first credential in it, with its place', () => {
  const READ_BY = 'readable by anyone';
  it.each<[string, unknown, string, unknown]>([
    ['a plain value', 'Unlock everything', 'headline', undefined],
    ['a boolean under a credential-like name', true, 'secret_menu', undefined],
    ['numbers and nulls', { token_count: 3, none: null }, 'metadata', undefined],
    ['a string named like a credential', { api_key: 'abc' }, 'metadata', { path: ['api_key'] }],
    [
      'deep in an array',
      { cards: [{ title: 'a' }, { title: 'sk_live_1' }] },
      'metadata',
      { path: ['cards', 1, 'title'] },
    ],
    ['a bare string, by the name the JSON has', 'abc', 'stripe_secret', { path: [] }],
    ['an array item takes its parent name', { tokens: ['a'] }, 'metadata', { path: ['tokens', 0] }],
  ])('%s', (_, value, name, found) => {
    const result = credentialInPublicJson(value, name, READ_BY);
    if (found === undefined) expect(result).toBeUndefined();
    else expect(result).toEqual({ ...(found as object), message: expect.stringContaining(READ_BY) });
  });
});
