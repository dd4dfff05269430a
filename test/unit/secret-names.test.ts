import { describe, expect, it } from 'vitest';
import { freshModule } from '../support/fresh-module.js';

const secretNames = () => freshModule(() => import('../../lib/stores/secret-names.js'));

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
    const { STORE_CREDENTIAL_SECRETS, TEST_STORE_KEY_SECRET } = await secretNames();
    expect([STORE_CREDENTIAL_SECRETS, TEST_STORE_KEY_SECRET]).toEqual([['app_store', 'google_play'], 'test_store']);
  });

  it('names an app’s secret <prefix><app id>/<kind>', async () => {
    const { secretNameOf } = await secretNames();
    expect(secretNameOf('subscription-backend/prod/', 'app_0123', 'app_store')).toBe(
      'subscription-backend/prod/app_0123/app_store',
    );
    expect(secretNameOf('', 'app_0123', 'test_store')).toBe('app_0123/test_store');
  });

  it('grants every app’s secret of one kind, with the six characters Secrets Manager appends', async () => {
    const { secretResourceNameOf } = await secretNames();
    expect(secretResourceNameOf('subscription-backend/prod/', 'google_play')).toBe(
      'subscription-backend/prod/*/google_play-??????',
    );
  });

  it('the grant covers the name the function reads, and no other kind or stack', async () => {
    const { secretNameOf, secretResourceNameOf } = await secretNames();
    const granted = iamPattern(secretResourceNameOf('subscription-backend/prod/', 'app_store'));
    const arnName = (name: string) => `${name}-AbC123`;
    expect(granted.test(arnName(secretNameOf('subscription-backend/prod/', 'app_0123', 'app_store')))).toBe(true);
    expect(granted.test(arnName(secretNameOf('subscription-backend/prod/', 'app_0123', 'test_store')))).toBe(false);
    expect(granted.test(arnName(secretNameOf('subscription-backend/staging/', 'app_0123', 'app_store')))).toBe(false);
  });
});
