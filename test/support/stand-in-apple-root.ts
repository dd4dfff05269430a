/**
 * lib/stores/apple-root-ca-g3.ts with the stand-in chain's root (test/fixtures/app-store-standin,
 * "Test only, not Apple") in place of Apple Root CA G3, for tests that verify notifications and
 * transactions the stand-in chain signed through the shipped code's default root:
 *
 *   vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('./stand-in-apple-root.js'));
 *
 * The benchmarks substitute the same module in their own way (bench/support/apple-stand-in-root.ts).
 */
import { readFileSync } from 'node:fs';

export const APPLE_ROOT_CA_G3_PEM = readFileSync(
  new URL('../fixtures/app-store-standin/root.pem', import.meta.url),
  'utf8',
);
