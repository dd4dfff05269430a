/**
 * Paywall and guide page bundles in `npm start`: the zips `admin paywalls upload` wrote under
 * PAYWALLS_DIR (default `<DATA_DIR>/paywalls`), served at /paywalls/ as CloudFront serves the
 * stack's bucket in AWS. Only a bundle's own path is answered (`<app>/<id>/<sha256>.zip`), so no
 * request reaches another file of the folder.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PAYWALLS_PREFIX } from '../lib/schemas/paywall.js';
import type { StaticAnswer } from './api-reference.js';
import { DEFAULT_DATA_DIR } from './server-file.js';

export const PAYWALLS_PATH = `/${PAYWALLS_PREFIX}`;

/** The folder the CLI writes bundles to and `npm start` serves them from. */
export const paywallsDir = (env: NodeJS.ProcessEnv = process.env): string =>
  resolve(env.PAYWALLS_DIR || join(env.DATA_DIR || DEFAULT_DATA_DIR, 'paywalls'));

const BUNDLE_PATH = /^\/paywalls\/(app_[0-9a-f]{16})\/([A-Za-z0-9_-]{1,64})\/([0-9a-f]{64})\.zip$/;

const notFound: StaticAnswer = { status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'Not found\n' };

export function paywallFiles(dir: string): (method: string, path: string) => Promise<StaticAnswer | undefined> {
  return async (method, path) => {
    if (!path.startsWith(`${PAYWALLS_PATH}/`)) return undefined;
    if (method !== 'GET' && method !== 'HEAD')
      return {
        status: 405,
        headers: { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' },
        body: 'Method not allowed\n',
      };
    const match = BUNDLE_PATH.exec(path);
    if (!match) return notFound;
    const [, appId, id, sha256] = match as unknown as [string, string, string, string];
    try {
      return {
        status: 200,
        headers: {
          'Content-Type': 'application/zip',
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
        },
        body: await readFile(join(dir, appId, id, `${sha256}.zip`)),
      };
    } catch {
      return notFound;
    }
  };
}
