/**
 * The loopback launcher of DynamoDB Local (local/java) is what its source compiles to, and never
 * outlives the process that started it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileLauncher } from '../../local/build-dynamodb-launcher.js';
import { LAUNCHER_CLASS, LAUNCHER_DIR, portIsOpen } from '../../local/dynamodb.js';
import { freePort } from '../support/ports.js';
import { REPO_ROOT } from '../support/processes.js';

describe('DynamoDB Local launcher', () => {
  it('the committed class is its source compiled against the shipped jar (npm run build:dynamodb-launcher)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'launcher-'));
    compileLauncher(out);
    const built = readFileSync(join(out, `${LAUNCHER_CLASS}.class`));
    expect(built.equals(readFileSync(join(LAUNCHER_DIR, `${LAUNCHER_CLASS}.class`)))).toBe(true);
  }, 60_000);

  it('ends when the process that started it is killed outright (it runs in a process group of its own)', async () => {
    const port = await freePort();
    const script = `import { startDynamoDbLocal } from './local/dynamodb.ts';
await startDynamoDbLocal({ port: ${port} });
console.log('ready');
setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      parent.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      parent.once('exit', (code) => reject(new Error(`the parent exited with ${code} before DynamoDB Local was up`)));
    });
    expect(await portIsOpen(port)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 20_000;
    while ((await portIsOpen(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await portIsOpen(port)).toBe(false);
  }, 120_000);
});
