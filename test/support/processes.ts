/** Runs the project's own commands (operator CLI, npm start) as a user would, under the test's Node 24. */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const TSX_CLI = resolve(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runTs(script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** The operator CLI against the test table. */
export const admin = (...args: string[]) => runTs('lib/admin/cli.ts', args);

export function startTs(script: string, args: string[], env: Record<string, string | undefined>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [TSX_CLI, script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}
