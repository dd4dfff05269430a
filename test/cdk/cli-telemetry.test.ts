/**
 * The CDK CLI sends no usage reports from this project: cdk.json's `cli-telemetry: false` turns
 * them off for every `cdk` command run here (`npm run synth`, `npm run cdk -- …`), whatever the
 * user's own settings (as `REDOCLY_TELEMETRY=off` does for the OpenAPI lint).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.js';

const run = promisify(execFile);

describe('the CDK CLI', () => {
  it('reports its telemetry disabled for `npm run cdk`, with no user setting or variable to help', async () => {
    // A home of its own: no ~/.cdk.json of the user's; and no CDK_DISABLE_CLI_TELEMETRY.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'cdk-home-')) };
    delete env.CDK_DISABLE_CLI_TELEMETRY;
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'cdk', '--', 'cli-telemetry', '--status'], {
      cwd: REPO_ROOT,
      env,
    });
    expect(`${stdout}${stderr}`).toContain('CLI Telemetry is disabled');
  }, 60_000);

  it('is run by the npm scripts from the directory of cdk.json, whose context carries the setting', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const cdkScripts = Object.entries(manifest.scripts).filter(([, command]) => /(^|[\s;&|])cdk(\s|$)/.test(command));
    expect(Object.fromEntries(cdkScripts)).toEqual({ synth: 'cdk synth --quiet', cdk: 'cdk' });
    const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(cdkJson.context['cli-telemetry']).toBe(false);
  });
});
