/** Setting and showing an app's store settings; private keys are never printed back. */
import { readFile } from 'node:fs/promises';
import { getApp } from '../../lib/data/apps.js';
import { tableName } from '../../lib/data/client.js';
import {
  appStoreSettingsSchema,
  type ConfigurableStore,
  googlePlaySettingsSchema,
  publicKeyFingerprint,
  putStoreSettings,
  type StoreSettings,
  showStoreSettings,
} from '../../lib/data/store-settings.js';
import { CliError, type CommandTable } from '../command.js';
import { requireApp, required } from '../options.js';

function parsedSettings<S extends ConfigurableStore>(store: S, raw: unknown): StoreSettings[S] {
  const schema = store === 'app_store' ? appStoreSettingsSchema : googlePlaySettingsSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // Paths and messages only: never echo the values (they may hold a private key).
    throw new CliError(
      `invalid ${store} settings: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'} ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data as StoreSettings[S];
}

export const storeCommands: CommandTable = {
  'stores apple set': {
    usage:
      'stores apple set --app A --bundle-id B --environment Sandbox|Production [--app-apple-id N (required for Production)] [--issuer-id I --key-id K --key-file F.p8]',
    options: {
      app: { type: 'string' },
      'bundle-id': { type: 'string' },
      environment: { type: 'string' },
      'app-apple-id': { type: 'string' },
      'issuer-id': { type: 'string' },
      'key-id': { type: 'string' },
      'key-file': { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const apiOptions = ['issuer-id', 'key-id', 'key-file'].filter((name) => values[name] !== undefined);
      if (apiOptions.length > 0 && apiOptions.length < 3)
        throw new CliError('--issuer-id, --key-id and --key-file go together (App Store Server API key)');
      let serverApi: Record<string, string> | undefined;
      if (apiOptions.length === 3) {
        const keyFile = required(values, 'key-file');
        let privateKey: string;
        try {
          privateKey = await readFile(keyFile, 'utf8');
        } catch (error) {
          throw new CliError(`cannot read ${keyFile}: ${(error as Error).message}`, 'INVALID_FILE');
        }
        serverApi = {
          issuer_id: required(values, 'issuer-id'),
          key_id: required(values, 'key-id'),
          private_key: privateKey,
        };
      }
      const settings = parsedSettings('app_store', {
        bundle_id: required(values, 'bundle-id'),
        environment: required(values, 'environment'),
        ...(values['app-apple-id'] !== undefined ? { app_apple_id: Number(values['app-apple-id']) } : {}),
        ...(serverApi ? { server_api: serverApi } : {}),
      });
      const { location } = await putStoreSettings(appId, 'app_store', settings);
      return {
        json: {
          app_id: appId,
          store: 'app_store',
          bundle_id: settings.bundle_id,
          environment: settings.environment,
          server_api: settings.server_api !== undefined,
          stored_in: location,
        },
        text: `App Store settings of ${appId} stored in ${location}: ${settings.bundle_id} (${settings.environment})${settings.server_api ? ', with an App Store Server API key' : ''}.`,
      };
    },
  },
  'stores google set': {
    usage:
      'stores google set --app A --package-name P --service-account-file F.json [--push-audience URL --push-service-account EMAIL]',
    options: {
      app: { type: 'string' },
      'package-name': { type: 'string' },
      'service-account-file': { type: 'string' },
      'push-audience': { type: 'string' },
      'push-service-account': { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const file = required(values, 'service-account-file');
      if ((values['push-service-account'] === undefined) !== (values['push-audience'] === undefined))
        throw new CliError(
          '--push-audience and --push-service-account go together (the push subscription authenticates with both; the audience alone proves nothing)',
        );
      let serviceAccount: unknown;
      try {
        serviceAccount = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`, 'INVALID_FILE');
      }
      const settings = parsedSettings('google_play', {
        package_name: required(values, 'package-name'),
        service_account: serviceAccount,
        ...(values['push-audience'] !== undefined ? { push_audience: values['push-audience'] } : {}),
        ...(values['push-service-account'] !== undefined
          ? { push_service_account: values['push-service-account'] }
          : {}),
      });
      const { location } = await putStoreSettings(appId, 'google_play', settings);
      // The private key is never printed back.
      return {
        json: {
          app_id: appId,
          store: 'google_play',
          package_name: settings.package_name,
          client_email: settings.service_account.client_email,
          push_audience: settings.push_audience ?? null,
          push_service_account: settings.push_service_account ?? null,
          stored_in: location,
        },
        text: [
          `Google Play settings of ${appId} stored in ${location}: ${settings.package_name} as ${settings.service_account.client_email}.`,
          settings.push_audience
            ? `Real-time developer notifications accepted for audience ${settings.push_audience}${settings.push_service_account ? ` signed as ${settings.push_service_account}` : ''}.`
            : 'No --push-audience: real-time developer notifications are refused.',
        ].join('\n'),
      };
    },
  },
  'stores show': {
    usage: 'stores show --app A',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const [{ app_store: apple, google_play: google }, app] = await Promise.all([
        showStoreSettings(appId),
        getApp(appId, true),
      ]);
      // The test store's public key is what its receipts are checked with; the private key is only named by where it is.
      const publicKey = app?.test_store_public_key;
      const testStore = {
        enabled: app?.test_store === true,
        public_key_sha256: publicKey ? publicKeyFingerprint(publicKey) : null,
        stored_in: app?.test_store_private_key_secret
          ? `Secrets Manager secret ${app.test_store_private_key_secret}`
          : publicKey
            ? `table ${tableName}`
            : null,
      };
      return {
        json: { app_id: appId, app_store: apple, google_play: google, test_store: testStore },
        text: [
          `Store settings of ${appId}:`,
          apple
            ? [
                `App Store: ${apple.bundle_id} (${apple.environment}; takes ${apple.accepts_environments.join(' and ')} transactions)${apple.app_apple_id === null ? ', no app Apple id' : `, app Apple id ${apple.app_apple_id}`}.`,
                apple.server_api
                  ? `  App Store Server API key ${apple.server_api.key_id} of issuer ${apple.server_api.issuer_id}.`
                  : '  No App Store Server API key: legacy receipts are refused, the sweeper does not ask the App Store.',
                `  Stored in ${apple.stored_in}${apple.updated_at ? `, set ${apple.updated_at}` : ''}.`,
              ].join('\n')
            : `App Store: not set (\`stores apple set --app ${appId} ...\`).`,
          google
            ? [
                `Google Play: ${google.package_name} as ${google.client_email}.`,
                google.push_audience
                  ? `  Real-time developer notifications accepted for audience ${google.push_audience}${google.push_service_account ? ` signed as ${google.push_service_account}` : ''}.`
                  : '  No --push-audience: real-time developer notifications are refused.',
                `  Stored in ${google.stored_in}${google.updated_at ? `, set ${google.updated_at}` : ''}.`,
              ].join('\n')
            : `Google Play: not set (\`stores google set --app ${appId} ...\`).`,
          testStore.enabled
            ? `Test store: on, public key SHA-256 ${testStore.public_key_sha256}; signing key in ${testStore.stored_in}.`
            : `Test store: off${testStore.public_key_sha256 ? ` (its key ${testStore.public_key_sha256} is kept for turning it on again)` : ''}.`,
        ].join('\n'),
      };
    },
  },
};
