/**
 * Apple signs no notification for us, so the App Store notification benchmarks trust the stand-in
 * chain's root (test/fixtures/app-store-standin, "Test only, not Apple") in place of Apple Root CA
 * G3, as the tests do by mocking lib/stores/apple-root-ca-g3.js: only that module's one constant
 * differs (a PEM of the same kind and size); the verification, the decoding and the apply path are
 * the shipped code. For a bundle, an esbuild plugin substitutes the module (the bundle's size is
 * measured on the genuine build); in a benchmark process running lib/ itself, a module hook.
 */
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { resolve } from 'node:path';
import type { Plugin } from 'esbuild';

const STAND_IN_ROOT = resolve(import.meta.dirname, '../../test/fixtures/app-store-standin/root.pem');
const APPLE_ROOT_MODULE = /\/lib\/stores\/apple-root-ca-g3\.[jt]s$/;

const standInRootModule = () =>
  `export const APPLE_ROOT_CA_G3_PEM = ${JSON.stringify(readFileSync(STAND_IN_ROOT, 'utf8'))};\n`;

/** For a bench build only: lib/stores/apple-root-ca-g3.ts becomes the stand-in root. */
export const standInAppleRootPlugin: Plugin = {
  name: 'stand-in-apple-root',
  setup(build) {
    build.onLoad({ filter: APPLE_ROOT_MODULE }, () => ({ contents: standInRootModule(), loader: 'js' }));
  },
};

/** In this process, from now on: lib/stores/apple-root-ca-g3 is the stand-in root (call before lib/ is imported). */
export function trustStandInAppleRoot(): void {
  registerHooks({
    load(url, context, nextLoad) {
      if (!APPLE_ROOT_MODULE.test(new URL(url).pathname)) return nextLoad(url, context);
      return { format: 'module', source: standInRootModule(), shortCircuit: true };
    },
  });
}
