/**
 * `paywalls upload`: a paywall or guide page bundle (a zip with `index.html` at its root), checked
 * whole, stored where the app downloads it (./../paywall-storage.ts), then recorded as the next
 * version of its id. Nothing is stored when the zip has a problem; every problem is listed.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readPaywalls, recordPaywallVersion } from '../../lib/data/paywalls.js';
import { bundlePath, MAX_PAYWALLS_PER_APP, paywallSchema } from '../../lib/schemas/paywall.js';
import { CliError, type CommandTable } from '../command.js';
import { requireApp, required } from '../options.js';
import { checkBundle } from '../paywall-bundle.js';
import { bundleStorage } from '../paywall-storage.js';

export const paywallCommands: CommandTable = {
  'paywalls upload': {
    usage:
      'paywalls upload --app A --id P --file bundle.zip [--name N]   (a zip with index.html at its root; each upload of P is its next version)',
    options: { app: { type: 'string' }, id: { type: 'string' }, file: { type: 'string' }, name: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const id = required(values, 'id');
      const file = required(values, 'file');
      const name = typeof values.name === 'string' ? values.name : id;
      const problems: string[] = [];
      for (const [option, value] of [
        ['id', id],
        ['name', name],
      ] as const) {
        const parsed = paywallSchema.shape[option].safeParse(value);
        if (!parsed.success)
          problems.push(`--${option} ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
      }
      let zip: Uint8Array<ArrayBuffer>;
      try {
        zip = new Uint8Array(await readFile(file));
      } catch (error) {
        throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 'INVALID_FILE');
      }
      const bundle = checkBundle(zip);
      problems.push(...bundle.problems.map((problem) => `the zip ${problem}`));
      const { paywalls } = await readPaywalls(appId);
      if (!paywalls.some((paywall) => paywall.id === id) && paywalls.length >= MAX_PAYWALLS_PER_APP)
        problems.push(`${appId} has ${paywalls.length} paywalls, the most an app may have`);
      if (problems.length > 0 || !bundle.facts)
        throw new CliError(`${file} is not a valid paywall bundle:\n  ${problems.join('\n  ')}`, 'INVALID_FILE');

      const sha256 = createHash('sha256').update(zip).digest('hex');
      const storage = await bundleStorage(process.argv.slice(2).includes('--aws'));
      const path = bundlePath(appId, { id, sha256 });
      await storage.put(path, zip);
      const paywall = await recordPaywallVersion(appId, {
        id,
        name,
        sha256,
        bytes: zip.byteLength,
        files: bundle.facts.files,
      });
      return {
        json: { app_id: appId, paywall, stored_at: `${storage.where}/${path}` },
        text: `Stored paywall ${id} version ${paywall.version} for ${appId} (${paywall.files} files, ${paywall.bytes} bytes): ${storage.where}/${path}`,
      };
    },
  },
};
