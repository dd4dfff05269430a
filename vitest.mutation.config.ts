import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The suite as Stryker runs it against each mutant: the test files of one scope (MUTATION_TESTS,
 * set by stryker.config.mjs). Never included: tests that measure or build bundles (an instrumented
 * bundle is larger by design), synthesize the CDK stack, or run the service in a child process,
 * where Stryker's active mutant does not reach.
 */
const include: string[] = JSON.parse(process.env.MUTATION_TESTS ?? '["test/unit/**/*.test.ts"]');

// Spread, not mergeConfig: mergeConfig would append to the base's include list.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include,
    exclude: [
      '**/node_modules/**',
      'test/cdk/**',
      'test/integration/bundle*.test.ts',
      'test/integration/soak-smoke.test.ts',
      'test/e2e/quick-start.test.ts',
      'test/e2e/local-start.test.ts',
      'test/e2e/cli-commands.test.ts',
      'test/e2e/notifications-restart.test.ts',
    ],
    reporters: ['default'],
    // Read by the few tests too heavy to run once per mutant (test/support/mutation.ts).
    env: { ...base.test?.env, MUTATION_RUN: '1' },
  },
});
