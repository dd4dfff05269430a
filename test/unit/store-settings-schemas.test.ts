import { describe, expect, it } from 'vitest';
import { appStoreSettingsSchema, googlePlaySettingsSchema } from '../../lib/data/store-settings.js';

/** The issues zod reports, as path and message. */
const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.success ? [] : (result.error?.issues ?? []).map(({ path, message }) => ({ path: path.join('.'), message }));

const SANDBOX = { bundle_id: 'com.example.subs', environment: 'Sandbox' };
const P8 = '-----BEGIN PRIVATE KEY-----\nMIGT\n-----END PRIVATE KEY-----';

describe('App Store settings (admin stores apple set)', () => {
  it.each<[string, Record<string, unknown>, { path: string; message: string }[]]>([
    ['Sandbox without the app Apple id', SANDBOX, []],
    ['Production with it', { ...SANDBOX, environment: 'Production', app_apple_id: 1234567890 }, []],
    [
      'Production without it',
      { ...SANDBOX, environment: 'Production' },
      [{ path: 'app_apple_id', message: 'Production needs the app Apple id' }],
    ],
    ['a server API key in PEM', { ...SANDBOX, server_api: { issuer_id: 'i', key_id: 'K', private_key: P8 } }, []],
    [
      'a server API key that is not PEM',
      { ...SANDBOX, server_api: { issuer_id: 'i', key_id: 'K', private_key: 'MIGTAgEAMBMGByqGSM49' } },
      [{ path: 'server_api.private_key', message: 'must be the .p8 key (PEM)' }],
    ],
  ])('%s', (_, given, issues) => {
    expect(issuesOf(appStoreSettingsSchema.safeParse(given))).toEqual(issues);
  });
});

const SERVICE_ACCOUNT = { client_email: 'play@p.iam.gserviceaccount.com', private_key: P8, project_id: 'p' };

describe('Google Play settings (admin stores google set)', () => {
  it.each([
    ['com.example.subs', true],
    ['a.b', true],
    ['Com.Example_1.A2', true],
    ['example', false],
    ['1com.example', false],
    ['com.1example', false],
    ['com.example.', false],
    ['.com.example', false],
    ['com..example', false],
    ['com.exa-mple', false],
    [' com.example', false],
    ['com.example ', false],
    ['com.example/x', false],
  ])('package %s: %s', (packageName, valid) => {
    const issues = issuesOf(
      googlePlaySettingsSchema.safeParse({ package_name: packageName, service_account: SERVICE_ACCOUNT }),
    );
    expect(issues).toEqual(valid ? [] : [{ path: 'package_name', message: 'must be an Android package name' }]);
  });

  it('keeps the key file whole, and wants its key in PEM', () => {
    const parsed = googlePlaySettingsSchema.parse({
      package_name: 'com.example.subs',
      service_account: SERVICE_ACCOUNT,
    });
    expect(parsed.service_account).toEqual(SERVICE_ACCOUNT);
    const issues = issuesOf(
      googlePlaySettingsSchema.safeParse({
        package_name: 'com.example.subs',
        service_account: { ...SERVICE_ACCOUNT, private_key: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' },
      }),
    );
    expect(issues).toEqual([{ path: 'service_account.private_key', message: 'must be a PEM private key' }]);
  });
});
