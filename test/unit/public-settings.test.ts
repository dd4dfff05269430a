import { describe, expect, it } from 'vitest';
import { secretInPublicSetting } from '../../lib/domain/public-settings.js';

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
