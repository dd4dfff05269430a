/** Creating, listing and updating apps, and issuing their user-token secret. */

import { issueUserTokenSecret, setUserTokenRequired, UserTokenSecretExists } from '../../lib/data/api-keys.js';
import {
  addAppsToDirectory,
  createApp,
  listApps,
  RESTORE_POLICIES,
  type RestorePolicy,
  setRestorePolicy,
  setSupportEmail,
  setTestStore,
} from '../../lib/data/apps.js';
import {
  configuredStoresOf,
  keepTestStorePrivateKey,
  publicKeyOfKeptTestStoreKey,
} from '../../lib/data/store-settings.js';
import { DEFAULT_RATE_LIMIT_TIER, RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import { currencySchema, emailAddressSchema } from '../../lib/schemas/common.js';
import { CliError, type CommandTable } from '../command.js';
import { describeTier, requireApp, required, tierOf } from '../options.js';

export const appCommands: CommandTable = {
  'apps create': {
    usage: `apps create --name N [--test-store] [--currency USD] [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: {
      name: { type: 'string' },
      'test-store': { type: 'boolean', default: false },
      currency: { type: 'string', default: 'USD' },
      tier: { type: 'string' },
    },
    async run(values) {
      const name = required(values, 'name');
      if (name.length > 200) throw new CliError('--name must be at most 200 characters');
      const currency = currencySchema.safeParse(values.currency);
      if (!currency.success) throw new CliError('--currency must be a 3-letter ISO 4217 code');
      const tier = tierOf(values) ?? DEFAULT_RATE_LIMIT_TIER;
      const { app, secretKey, sdkKey } = await createApp({
        name,
        reportingCurrency: currency.data,
        testStore: values['test-store'] === true,
        tier,
        keepTestStoreKey: keepTestStorePrivateKey,
      });
      return {
        json: { app_id: app.app_id, secret_key: secretKey.key, sdk_key: sdkKey.key },
        text: [
          `Created app ${app.app_id} "${app.name}" (reporting currency ${app.reporting_currency}${app.test_store ? ', test store on' : ''}).`,
          `secret_key  ${secretKey.key}   (Authorization: Bearer ..., subscription API)`,
          `sdk_key     ${sdkKey.key}   (X-API-KEY, mobile API)`,
          `Both keys: ${describeTier(tier)}.`,
          'The keys are shown only now: the service stores only their SHA-256 hashes.',
        ].join('\n'),
      };
    },
  },
  'apps list': {
    usage: 'apps list [--scan]',
    options: { scan: { type: 'boolean', default: false } },
    async run(values) {
      // After an upgrade from a version without the directory: find the older apps first.
      const added =
        values.scan === true
          ? await addAppsToDirectory({
              onPage: ({ scanned, apps }) => console.error(`scanned ${scanned} item(s), ${apps} app(s) found`),
            })
          : undefined;
      const listed = await listApps();
      const configured = await configuredStoresOf(listed.map((app) => app.app_id));
      const apps = listed.map((app) => {
        const stores = configured.get(app.app_id) ?? [];
        return {
          ...app,
          app_store_configured: stores.includes('app_store'),
          google_play_configured: stores.includes('google_play'),
        };
      });
      const line = (app: (typeof apps)[number]) =>
        [
          app.app_id,
          JSON.stringify(app.name),
          app.reporting_currency,
          app.test_store ? 'test store on' : 'test store off',
          `restore ${app.restore_policy}`,
          app.require_user_token ? 'user tokens required' : 'no user tokens',
          `created ${app.created_at}`,
          `stores ${configured.get(app.app_id)?.join(',') || 'none'}`,
        ].join('  ');
      return {
        json: { apps },
        text: [
          ...(added ? [`Scanned ${added.scanned} item(s): ${added.apps} app(s) in the directory.`] : []),
          apps.length === 0 ? 'No apps yet: npm run --silent admin -- apps create --name N' : `${apps.length} app(s):`,
          ...apps.map(line),
        ].join('\n'),
      };
    },
  },
  'apps update': {
    usage:
      'apps update --app A [--restore-policy block|transfer] [--require-user-token on|off] [--test-store on|off] [--support-email ADDRESS|off]',
    options: {
      app: { type: 'string' },
      'restore-policy': { type: 'string' },
      'require-user-token': { type: 'string' },
      'test-store': { type: 'string' },
      'support-email': { type: 'string' },
    },
    async run(values) {
      const policy = values['restore-policy'];
      const userToken = values['require-user-token'];
      const testStore = values['test-store'];
      const supportEmail = values['support-email'];
      if (policy === undefined && userToken === undefined && testStore === undefined && supportEmail === undefined)
        throw new CliError('give --restore-policy, --require-user-token, --test-store and/or --support-email');
      if (supportEmail !== undefined && supportEmail !== 'off' && !emailAddressSchema.safeParse(supportEmail).success)
        throw new CliError('--support-email must be an email address, or off');
      if (testStore !== undefined && testStore !== 'on' && testStore !== 'off')
        throw new CliError('--test-store must be on or off');
      if (policy !== undefined && !(RESTORE_POLICIES as readonly string[]).includes(policy as string))
        throw new CliError(`--restore-policy must be one of ${RESTORE_POLICIES.join(', ')}`);
      if (userToken !== undefined && userToken !== 'on' && userToken !== 'off')
        throw new CliError('--require-user-token must be on or off');
      const appId = await requireApp(values);
      const json: Record<string, unknown> = { app_id: appId };
      const text: string[] = [];
      if (policy !== undefined) {
        await setRestorePolicy(appId, policy as RestorePolicy);
        json.restore_policy = policy;
        text.push(
          policy === 'transfer'
            ? `${appId}: restoring a purchase owned by another user moves it to the restoring user.`
            : `${appId}: restoring a purchase owned by another user is refused (RECEIPT_ALREADY_USED).`,
        );
      }
      if (userToken !== undefined) {
        const setting = await setUserTokenRequired(appId, userToken === 'on');
        json.require_user_token = setting.require_user_token;
        if (setting.issued_secret) json.user_token_secret = setting.issued_secret;
        text.push(
          setting.require_user_token
            ? `${appId}: mobile requests acting on a user now need X-USER-TOKEN signed with the app's user-token secret.`
            : `${appId}: mobile requests no longer need X-USER-TOKEN (the secret is kept for turning it on again).`,
          ...(setting.issued_secret
            ? [`User-token secret (for the app's server; shown only now): ${setting.issued_secret}`]
            : []),
        );
      }
      if (testStore !== undefined) {
        const setting = await setTestStore(appId, testStore === 'on', {
          keepTestStoreKey: keepTestStorePrivateKey,
          publicKeyOfKept: publicKeyOfKeptTestStoreKey,
        });
        json.test_store = setting.test_store;
        text.push(
          setting.test_store
            ? `${appId}: the test store is on: \`receipts mint --app ${appId} ...\` mints receipts that POST /v1/subscriptions/verify accepts${setting.generated_key ? ' (a new signing key was generated)' : ''}.`
            : `${appId}: the test store is off: receipts it minted are refused (its signing key is kept for turning it on again).`,
        );
      }
      if (supportEmail !== undefined) {
        const email = supportEmail === 'off' ? undefined : String(supportEmail);
        await setSupportEmail(appId, email);
        json.support_email = email ?? null;
        text.push(
          email
            ? `${appId}: the customer center's "contact support" writes to ${email} (readable by any sdk key holder).`
            : `${appId}: the customer center offers no support email.`,
        );
      }
      return { json, text: text.join('\n') };
    },
  },
  'apps user-token-secret': {
    usage: 'apps user-token-secret --app A [--rotate]',
    options: { app: { type: 'string' }, rotate: { type: 'boolean', default: false } },
    async run(values) {
      const appId = await requireApp(values);
      const setting = await issueUserTokenSecret(appId, values.rotate === true).catch((error: unknown) => {
        if (!(error instanceof UserTokenSecretExists)) throw error;
        throw new CliError(
          `${error.message}; --rotate replaces it (tokens signed with the old one are refused at once)`,
          'SECRET_EXISTS',
        );
      });
      return {
        json: { app_id: appId, secret: setting.issued_secret, require_user_token: setting.require_user_token },
        text: [
          `User-token secret of ${appId} (for the app's server; shown only now): ${setting.issued_secret}`,
          setting.require_user_token
            ? 'User tokens are required: tokens signed with any earlier secret are refused from now on.'
            : 'User tokens are not required yet: `apps update --app A --require-user-token on` turns that on.',
        ].join('\n'),
      };
    },
  },
};
