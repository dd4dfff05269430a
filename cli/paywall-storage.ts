/**
 * Where `admin paywalls upload` puts a bundle's zip, at `bundlePath` (lib/schemas/paywall.ts):
 * - in AWS, the stack's paywalls bucket under `paywalls/` (PAYWALLS_BUCKET, else the stack's
 *   PaywallsBucketName output), which CloudFront serves at `<distribution>/paywalls/`: one S3
 *   PutObject signed with SigV4 (./signed-request.ts);
 * - locally, PAYWALLS_DIR (default `<DATA_DIR>/paywalls`), which `npm start` serves at `/paywalls/`.
 * A zip is named by its SHA-256, so putting it twice writes the same bytes and no URL changes.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DEFAULT_STACK_NAME } from '../lib/core/defaults.js';
import { PAYWALLS_BUCKET_OUTPUT, PAYWALLS_PREFIX } from '../lib/schemas/paywall.js';
import { paywallsDir } from '../local/paywall-files.js';
import { configuredEndpoint, sendSigned } from './signed-request.js';

export interface BundleStorage {
  /** Where the bundles go, for the CLI's output. */
  where: string;
  put(path: string, zip: Uint8Array<ArrayBuffer>): Promise<void>;
}

export function localBundles(root = paywallsDir()): BundleStorage {
  return {
    where: root,
    async put(path, zip) {
      const file = join(root, path);
      await mkdir(dirname(file), { recursive: true });
      // Whole or not at all: a reader never sees half a zip.
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, zip);
      await rename(partial, file);
    },
  };
}

export function bucketBundles(bucket: string): BundleStorage {
  return {
    where: `s3://${bucket}/${PAYWALLS_PREFIX}`,
    async put(path, zip) {
      const key = `${PAYWALLS_PREFIX}/${path}`;
      const pathStyle = configuredEndpoint('S3') !== undefined;
      const response = await sendSigned({
        service: 's3',
        endpointId: 'S3',
        defaultEndpoint: (region) => new URL(`https://${bucket}.s3.${region}.amazonaws.com`),
        method: 'PUT',
        path: pathStyle ? `/${bucket}/${key}` : `/${key}`,
        headers: {
          'content-type': 'application/zip',
          // Immutable: the key is the zip's hash.
          'cache-control': 'public, max-age=31536000, immutable',
        },
        body: zip,
        timeoutMs: 60_000,
      });
      if (!response.ok) {
        const text = await response.text();
        const message = /<Message>([\s\S]*?)<\/Message>/.exec(text)?.[1] ?? text.slice(0, 200);
        throw new Error(`S3 PutObject of s3://${bucket}/${key} answered ${response.status}: ${message}`);
      }
    },
  };
}

/** The bucket with --aws (PAYWALLS_BUCKET, else the stack's output), the local folder without. */
export async function bundleStorage(aws: boolean): Promise<BundleStorage> {
  if (!aws) return localBundles();
  if (process.env.PAYWALLS_BUCKET) return bucketBundles(process.env.PAYWALLS_BUCKET);
  const stackName = process.env.STACK_NAME || DEFAULT_STACK_NAME;
  const { stackOutput } = await import('./stack-outputs.js');
  const bucket = await stackOutput(stackName, PAYWALLS_BUCKET_OUTPUT);
  if (!bucket) throw new Error(`stack ${stackName} has no ${PAYWALLS_BUCKET_OUTPUT} output: set PAYWALLS_BUCKET`);
  return bucketBundles(bucket);
}
