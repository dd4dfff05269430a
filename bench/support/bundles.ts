/**
 * The deployed function bundles: one per handler module of lib/routes.ts (one function serves all
 * routes of a module, such as the V1 and V2 paths of a mobile endpoint) plus the event and job
 * functions of the notifications construct, built with the stack's own esbuild settings.
 */

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { NOTIFICATION_FUNCTIONS } from '../../cdk/constructs/notifications.js';
import { esbuildOptions } from '../../cdk/constructs/service-function.js';
import { endpointFunctions } from '../../lib/routes.js';

export interface DeployedFunction {
  /** Handler module relative to the repository root. */
  handler: string;
  /** Names of the deployed functions that run this module: one, as the stack deploys a module once. */
  names: string[];
}

export function deployedFunctions(): DeployedFunction[] {
  return [
    ...endpointFunctions().map((fn) => ({ handler: fn.handler, names: [fn.name] })),
    ...Object.entries(NOTIFICATION_FUNCTIONS).map(([name, handler]) => ({ handler, names: [name] })),
  ];
}

/** Bundles the floor (bench/support/floor-handler.ts) like a function. */
export const FLOOR_HANDLER = 'bench/support/floor-handler.ts';

/** Issue #8 budget: no function bundle is more than this larger than the floor. */
export const SIZE_MARGIN_BYTES = 120 * 1024;

export interface Bundle {
  /** The bundle, `<outdir>/<name>/index.mjs` (its source map next to it). */
  file: string;
  /** Size of index.mjs, the code Lambda loads (the source map is only read for stack traces). */
  bytes: number;
  metafile: Metafile;
}

/** `plugins`: for a benchmark's own build only (the deployed bundle is built without). */
export async function buildBundle(
  handler: string,
  outdir: string,
  name: string,
  plugins: Plugin[] = [],
): Promise<Bundle> {
  const file = join(outdir, name, 'index.mjs');
  const { metafile } = await build({ ...esbuildOptions(handler, file), metafile: true, plugins });
  return { file, bytes: statSync(file).size, metafile };
}

/** Bytes each package (or lib/ directory) contributes to a bundle, largest first. */
export function bytesByPackage(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, 2).join('/');
      totals.set(pkg, (totals.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}
