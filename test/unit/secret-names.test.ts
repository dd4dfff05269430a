import { describe, expect, it } from 'vitest';
import {
  STORE_CREDENTIAL_SECRETS,
  secretNameOf,
  secretResourceNameOf,
  TEST_STORE_KEY_SECRET,
} from '../../lib/stores/secret-names.js';

/** IAM's wildcards in a resource name: `*` any run of characters, `?` one character. */
const iamPattern = (resource: string) =>
  new RegExp(
    `^${resource
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

describe('store secret names', () => {
  it('names the kinds: store credentials, and the test store key', async () => {
    expect([STORE_CREDENTIAL_SECRETS, TEST_STORE_KEY_SECRET]).toEqual([['app_store', 'google_play'], 'test_store']);
  });

  it('names an app’s secret <prefix><app id>/<kind>', async () => {
    expect(secretNameOf('subscription-backend/prod/', 'app_0123', 'app_store')).toBe(
      'subscription-backend/prod/app_0123/app_store',
    );
    expect(secretNameOf('', 'app_0123', 'test_store')).toBe('app_0123/test_store');
  });

  it('grants every app’s secret of one kind, with the six characters Secrets Manager appends', async () => {
    expect(secretResourceNameOf('subscription-backend/prod/', 'google_play')).toBe(
      'subscription-backend/prod/*/google_play-??????',
    );
  });

  it('the grant covers the name the function reads, and no other kind or stack', async () => {
    const granted = iamPattern(secretResourceNameOf('subscription-backend/prod/', 'app_store'));
    const arnName = (name: string) => `${name}-AbC123`;
    expect(granted.test(arnName(secretNameOf('subscription-backend/prod/', 'app_0123', 'app_store')))).toBe(true);
    expect(granted.test(arnName(secretNameOf('subscription-backend/prod/', 'app_0123', 'test_store')))).toBe(false);
    expect(granted.test(arnName(secretNameOf('subscription-backend/staging/', 'app_0123', 'app_store')))).toBe(false);
  });
});
