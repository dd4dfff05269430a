/** Runs the project's own commands (operator CLI, npm start) as a user would, under the test's Node 24. */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
/** One process per command (tsx as a loader, not its CLI, which would add a parent process). */
const WITH_TSX = ['--import', 'tsx'];

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnNode(args: string[], env: Record<string, string | undefined>, cwd: string): ChildProcess {
  return spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function runToEnd(child: ChildProcess): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** Runs a plain JavaScript file with this Node (no TypeScript loader), from `cwd`. */
export const runNode = (script: string, env: Record<string, string | undefined>, cwd: string) =>
  runToEnd(spawnNode([script], env, cwd));

/** Runs one of the project's TypeScript entry points to completion. */
export const runTs = (script: string, args: string[], env: Record<string, string | undefined> = {}) =>
  runToEnd(spawnNode([...WITH_TSX, script, ...args], env, REPO_ROOT));

/** The operator CLI against the test table. */
export const admin = (...args: string[]) => runTs('cli/cli.ts', args);

/** `admin notifications mint` as a process: the path and body to POST, as the store would. */
export async function mintNotification(
  appId: string,
  transaction: string,
  type: string,
  ...args: string[]
): Promise<{ path: string; body: { signedPayload: string } }> {
  const result = await admin(
    'notifications',
    'mint',
    '--app',
    appId,
    '--transaction',
    transaction,
    '--type',
    type,
    ...args,
    '--json',
  );
  if (result.code !== 0) throw new Error(`notifications mint exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as { path: string; body: { signedPayload: string } };
}

/** Starts a long-running entry point (npm start); `output` is everything it printed so far. */
export function startTs(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): { child: ChildProcess; output: () => string } {
  const child = spawnNode([...WITH_TSX, script, ...args], env, REPO_ROOT);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}
