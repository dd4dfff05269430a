/**
 * Names of the per-app secrets in Secrets Manager (AWS only): `<prefix><app id>/<kind>`, where
 * the prefix is the stack's STORE_SECRETS_PREFIX. Store credentials are read by the verifying
 * functions; the test store's signing key only by the operator CLI (`receipts mint`), so no
 * function is granted it.
 */
export const STORE_CREDENTIAL_SECRETS = ['app_store', 'google_play'] as const;
export const TEST_STORE_KEY_SECRET = 'test_store';
export type SecretKind = (typeof STORE_CREDENTIAL_SECRETS)[number] | typeof TEST_STORE_KEY_SECRET;

export const secretNameOf = (prefix: string, appId: string, kind: SecretKind) => `${prefix}${appId}/${kind}`;

/** The IAM resource name of every app's secret of one kind: Secrets Manager appends `-` and six random characters to each ARN. */
export const secretResourceNameOf = (prefix: string, kind: SecretKind) => `${prefix}*/${kind}-??????`;
